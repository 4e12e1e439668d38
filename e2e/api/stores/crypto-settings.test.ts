import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";

import { runAdmin } from "../../../scripts/lib/admin-commands";
import { seedStore } from "../../factories";
import { callApp, readJson } from "../../helpers/app-client";
import { runAdminCaptured } from "../../helpers/run-admin";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// A store's crypto rail settings (`npm run admin -- set-crypto`): the accepted coins by our symbols, resolved
// through our coin table in the store's order; the merchant's payout address, validated and normalized; the
// network a live store settles on (a test-mode store settles on the sandbox chain). The store profile's
// sh.svc.crypto config shows exactly the settings. Bad input changes nothing.

before(prepareTestDatabase);
after(closeTestDatabase);

const USDC_MAINNET = "0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC";
const USDC_TESTNET = "0xa1ec7fc00a6f40db9693ad1415d0c193ad3906494428cf252621037bd7117e29::usdc::USDC";
const WUSDC = "0x5d4b302506645c37ff133b98c4b50a5ae14841659738d6d733d59d0d217a93bf::coin::COIN";
const SUI = `0x${"0".repeat(63)}2::sui::SUI`;
const PAYOUT = `0x${"7c".repeat(32)}`;

const admin = (...argv: string[]) => runAdminCaptured(...argv);

type Profile = { ucp: { payment_handlers: Record<string, { config: Record<string, unknown> }[]> } };
const cryptoConfig = async (slug: string) => {
  const res = await readJson<Profile>(await callApp("GET", `/s/${slug}/.well-known/ucp`));
  return res.body.ucp.payment_handlers["sh.svc.crypto"]?.[0]?.config;
};

const refusedWith = (code: string, path: string, pattern: RegExp) => (error: unknown) => {
  assert.ok(error instanceof AppError, String(error));
  assert.equal(error.code, code);
  assert.equal(error.path, path);
  assert.match(error.message, pattern);
  return true;
};

describe("set-crypto", () => {
  test("enable with coins (any case, symbol or type, order kept, duplicates dropped) and a payout address; the profile shows them", async () => {
    const store = await seedStore();
    assert.equal(await cryptoConfig(store.slug), undefined, "no crypto handler while disabled");
    const { code, out } = await admin(
      "set-crypto",
      "--store",
      store.slug,
      "--enabled",
      "true",
      "--network",
      "mainnet",
      "--accepted-coins",
      `usdt,${SUI.replace(/^0x0+/, "0x")},USDC,usdt`,
      "--payout-address",
      PAYOUT.toUpperCase().replace("0X", "0x"),
      "--json",
    );
    assert.equal(code, 0, out);
    const shown = JSON.parse(out) as {
      accepted_coins: { symbol: string }[];
      network: string;
      payout_address: string;
    };
    assert.deepEqual(
      shown.accepted_coins.map((c) => c.symbol),
      ["USDT", "SUI", "USDC"],
    );
    assert.equal(shown.network, "sandbox");
    assert.equal(shown.payout_address, PAYOUT, "normalized to lower-case hex");
    const config = await cryptoConfig(store.slug);
    assert.equal(config?.network, "sui:sandbox");
    assert.equal(config?.recipient, PAYOUT);
    assert.deepEqual(
      (config?.accepted_coins as { symbol: string; coin_type: string; decimals: number }[]).map((c) => [
        c.symbol,
        c.coin_type,
        c.decimals,
      ]),
      [
        ["USDT", "0x375f70cf2ae4c00bf37117d0c85a2c71545e6ee05c4a5c7d282cd66a4504b068::usdt::USDT", 6],
        ["SUI", SUI, 9],
        ["USDC", USDC_MAINNET, 6],
      ],
    );
    const row = await (await getDb()).store.findUniqueOrThrow({ where: { id: store.id } });
    assert.deepEqual(row.acceptedCoins, ["USDT", "SUI", "USDC"], "stored as our symbols");
  });

  test("a live store on testnet shows testnet's coin types; a coin testnet lacks is refused there", async () => {
    const store = await seedStore({ mode: "live" });
    await assert.rejects(
      runAdmin(["set-crypto", "--store", store.slug, "--network", "testnet", "--accepted-coins", "USDT"]),
      refusedWith("unsupported_coin", "$.accepted_coins[0]", /Unknown coin symbol "USDT" on testnet/),
    );
    const { code } = await admin(
      "set-crypto",
      ...["--store", store.slug, "--network", "testnet", "--accepted-coins", "USDC,SUI"],
      ...["--payout-address", PAYOUT, "--enabled", "true"],
    );
    assert.equal(code, 0);
    const config = await cryptoConfig(store.slug);
    assert.equal(config?.network, "sui:testnet");
    assert.equal((config?.accepted_coins as { coin_type: string }[])[0]?.coin_type, USDC_TESTNET);
    // moving it to mainnet keeps the coins (both exist there), with mainnet's types
    await admin("set-crypto", "--store", store.slug, "--network", "mainnet");
    assert.equal(
      ((await cryptoConfig(store.slug))?.accepted_coins as { coin_type: string }[])[0]?.coin_type,
      USDC_MAINNET,
    );
    // and a network that lacks an accepted coin is refused
    await admin("set-crypto", "--store", store.slug, "--accepted-coins", "USDC,AUSD");
    await assert.rejects(
      runAdmin(["set-crypto", "--store", store.slug, "--network", "testnet"]),
      refusedWith("unsupported_coin", "$.accepted_coins", /AUSD is not available on testnet/),
    );
  });

  test("bad input is refused with a code and path and changes nothing", async () => {
    const store = await seedStore({ cryptoEnabled: true, acceptedCoins: ["USDC"], suiRecipient: PAYOUT });
    const before = await (await getDb()).store.findUniqueOrThrow({ where: { id: store.id } });
    const cases: [string[], string, string, RegExp][] = [
      [["--accepted-coins", WUSDC], "unsupported_coin", "$.accepted_coins[0]", /Wormhole wUSDC/],
      [["--accepted-coins", "DOGE"], "unsupported_coin", "$.accepted_coins[0]", /Unknown coin symbol "DOGE"/],
      [["--payout-address", "0xnothex"], "invalid_request", "$.payout_address", /must be a Sui address/],
      [["--payout-address", `0x${"a".repeat(65)}`], "invalid_request", "$.payout_address", /Sui address/],
      [["--payout-address", ""], "invalid_request", "$.payout_address", /need the merchant's payout address/],
      [["--network", "devnet"], "invalid_request", "$.network", /mainnet|testnet/],
    ];
    for (const [args, code, path, pattern] of cases) {
      await assert.rejects(
        runAdmin(["set-crypto", "--store", store.slug, ...args]),
        refusedWith(code, path, pattern),
      );
    }
    await assert.rejects(runAdmin(["set-crypto", "--store", store.slug]), /at least one of/);
    await assert.rejects(
      runAdmin(["set-crypto", "--store", store.slug, "--enabled", "yes"]),
      /true or false/,
    );
    await assert.rejects(
      runAdmin(["set-crypto", "--store", "no-such-store", "--enabled", "false"]),
      /No store/,
    );
    const after = await (await getDb()).store.findUniqueOrThrow({ where: { id: store.id } });
    assert.deepEqual(
      [after.cryptoEnabled, after.acceptedCoins, after.suiRecipient, after.suiNetwork],
      [before.cryptoEnabled, before.acceptedCoins, before.suiRecipient, before.suiNetwork],
    );
    // disabled, the address may be cleared
    const { code } = await admin(
      "set-crypto",
      "--store",
      store.slug,
      "--enabled",
      "false",
      "--payout-address",
      "",
    );
    assert.equal(code, 0);
    assert.equal(await cryptoConfig(store.slug), undefined);
  });
});
