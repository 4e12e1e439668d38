// The demo's test wallet on the Sui sandbox: `npm start` in test mode funds the sandbox buyer's wallet
// (lib/buyers/sandbox-wallet.ts, a public key) right after it starts the Sui sandbox, so a demo purchase over
// svc.crypto — the wallet page, or an outside agent (examples/agent-crypto) — has coins to pay with. The sandbox's
// ledger lives in memory, so each start funds a fresh chain. Over the sandbox's test-only admin hook (HTTP): the
// product and its scripts never import sandbox/.

import { SANDBOX_WALLET_ADDRESS } from "@/lib/buyers/sandbox-wallet";

/** What the wallet gets: per coin type, the coin objects' balances in base units (mainnet types, as the sandbox). */
export const TEST_WALLET_FUNDS: readonly { symbol: string; coinType: string; balances: readonly bigint[] }[] =
  [
    // gas (each payment reserves its budget from SUI) and the SUI legs of stores that accept it: 2 × 1,000 SUI
    { symbol: "SUI", coinType: "0x2::sui::SUI", balances: [1_000_000_000_000n, 1_000_000_000_000n] },
    // stablecoins pay first (auto): 2 × 5,000 USDC and 2 × 5,000 USDT, dozens of demo purchases
    {
      symbol: "USDC",
      coinType: "0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC",
      balances: [5_000_000_000n, 5_000_000_000n],
    },
    {
      symbol: "USDT",
      coinType: "0x375f70cf2ae4c00bf37117d0c85a2c71545e6ee05c4a5c7d282cd66a4504b068::usdt::USDT",
      balances: [5_000_000_000n, 5_000_000_000n],
    },
  ];

/** How many times one funding request is sent when the connection fails before an answer. */
const FUND_ATTEMPTS = 3;
const RETRY_DELAY_MS = 200;

/**
 * One funding request, on a connection of its own (`Connection: close`). The requests run while `npm start` sets
 * up and builds, when this process may not run for seconds (PGlite's start, a build on a busy machine): a reused
 * keep-alive connection could by then be one the sandbox had closed as idle, and the request sent on it failed
 * with `fetch failed … other side closed`, which ended the start after its build. A failure before any answer
 * is sent again, on a new connection (were the lost one funded after all, the test wallet has a few more test
 * coins).
 */
const postFund = async (url: string, body: string): Promise<Response> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(`${url}/__admin/fund`, {
        method: "POST",
        headers: { "content-type": "application/json", connection: "close" },
        body,
      });
    } catch (error) {
      if (attempt >= FUND_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * attempt));
    }
  }
};

/** Funds `address` (default: the sandbox wallet) on the Sui sandbox at `url`; returns a line for the console. */
export const fundTestWallet = async (url: string, address = SANDBOX_WALLET_ADDRESS): Promise<string> => {
  for (const { coinType, balances } of TEST_WALLET_FUNDS) {
    const response = await postFund(
      url,
      JSON.stringify({ address, coinType, balances: balances.map(String) }),
    );
    // read whole: the answer is done with, whatever it says
    const text = await response.text();
    if (!response.ok) {
      throw new Error(`the Sui sandbox refused to fund ${address} (${response.status}): ${text}`);
    }
  }
  const shown = TEST_WALLET_FUNDS.map((f) => `${f.balances.length} ${f.symbol} coins`).join(", ");
  return `funded the test wallet ${address} (${shown})`;
};
