import "server-only";

import type { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";

import { sandboxKeypair } from "@/lib/buyers/sandbox-wallet";
import { AppError } from "@/lib/core/errors";

import { fullnodeUrl } from "./chain";
import { resolveCoinOrThrow } from "./coins";

// What the product knows of the Sui sandbox (sandbox/sui, a fake fullnode that test-mode crypto stores use): its
// URL (SUI_SANDBOX_URL, via chain.ts), the built-in test wallet's fixed key, and its test-only faucet — as a
// test account's keys and faucet would be. The product never imports the sandbox; it talks to it over HTTP.

/**
 * The built-in test wallet of test mode: a fixed, public key that only ever holds sandbox coins. It is the sandbox
 * buyer's wallet (lib/buyers/sandbox-wallet.ts), so the buyer who signs in with it pays with it.
 */
export const sandboxTestWallet = (): Ed25519Keypair => sandboxKeypair();

/** What the faucet gives a sandbox wallet by default, by symbol, in base units (several coin objects each). */
export const SANDBOX_FAUCET: Record<string, bigint[]> = {
  SUI: [50_000_000_000n, 50_000_000_000n],
  USDC: [250_000_000n, 250_000_000n],
  USDT: [250_000_000n],
};

/**
 * Funds a wallet on the Sui sandbox (test mode only), through its test-only admin hook.
 * @throws payment_provider_error — no sandbox configured, or it did not answer.
 */
export const fundSandboxWallet = async (
  address: string,
  funds: Record<string, bigint[]> = SANDBOX_FAUCET,
): Promise<void> => {
  const url = fullnodeUrl("sandbox");
  for (const [symbol, balances] of Object.entries(funds)) {
    const coin = resolveCoinOrThrow("sandbox", symbol);
    let response: Response;
    try {
      response = await fetch(`${url}/__admin/fund`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ address, coinType: coin.coinType, balances: balances.map(String) }),
        signal: AbortSignal.timeout(5_000),
      });
    } catch (error) {
      throw new AppError("payment_provider_error", "The Sui sandbox could not be reached", {
        details: { provider: "sui", reason: "unreachable" },
        cause: error,
      });
    }
    await response.body?.cancel();
    if (!response.ok) {
      throw new AppError("payment_provider_error", `The Sui sandbox refused to fund (${response.status})`, {
        details: { provider: "sui", reason: "bad_response" },
      });
    }
  }
};
