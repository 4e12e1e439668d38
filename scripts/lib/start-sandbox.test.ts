import assert from "node:assert/strict";
import { once } from "node:events";
import path from "node:path";
import { test } from "node:test";

import { SuiGrpcClient } from "@mysten/sui/grpc";
import { normalizeStructTag } from "@mysten/sui/utils";

import { SANDBOX_WALLET_ADDRESS } from "@/lib/buyers/sandbox-wallet";

import { TEST_WALLET_FUNDS } from "./fund-sandbox-wallet";
import { REPO_ROOT } from "./paths";
import { SANDBOXES, startSandbox } from "./start-sandbox";

// `npm start` launches each provider sandbox as its own process (scripts/serve.ts): here the Sui one, for real.
const tsx = path.join(REPO_ROOT, "node_modules/.bin/tsx");
const sui = SANDBOXES.find((s) => s.envVar === "SUI_SANDBOX_URL")!;

/** The sandbox wallet's total per normalized coin type, read through the sandbox's admin hook. */
const walletBalances = async (url: string): Promise<Map<string, bigint>> => {
  const response = await fetch(`${url}/__admin/balances?address=${SANDBOX_WALLET_ADDRESS}`);
  const body = (await response.json()) as { balances: { coinType: string; total: string }[] };
  return new Map(body.balances.map((b) => [b.coinType, BigInt(b.total)]));
};

const expectedFunds = (): Map<string, bigint> =>
  new Map(
    TEST_WALLET_FUNDS.map((f) => [normalizeStructTag(f.coinType), f.balances.reduce((a, b) => a + b, 0n)]),
  );

test("the Sui sandbox starts as a process, names its URL, answers both faces, funds the test wallet, and exits with its parent's pipe", async () => {
  const env: Record<string, string | undefined> = {};
  const child = await startSandbox(tsx, REPO_ROOT, sui, env);
  assert.ok(child);
  try {
    const url = env.SUI_SANDBOX_URL!;
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const rpc = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "suix_getReferenceGasPrice", params: [] }),
    });
    assert.deepEqual(await rpc.json(), { jsonrpc: "2.0", id: 1, result: "1000" });
    const grpc = new SuiGrpcClient({ network: "localnet", baseUrl: url });
    assert.equal((await grpc.core.getReferenceGasPrice()).referenceGasPrice, "1000");
    // test mode's demo wallet can pay at once: gas and every coin of TEST_WALLET_FUNDS, as coin objects
    assert.deepEqual(await walletBalances(url), expectedFunds());
    const { objects } = await grpc.core.listCoins({
      owner: SANDBOX_WALLET_ADDRESS,
      coinType: "0x2::sui::SUI",
    });
    assert.equal(objects.length, 2);
  } finally {
    const exited = once(child, "exit");
    child.stdin!.end(); // the server's pipe closing (it died): the sandbox must not outlive it
    await exited;
  }
  assert.notEqual(child.exitCode ?? child.signalCode, null);
});

test("without prime (outside test mode) the sandbox starts empty: the sandbox wallet is not funded", async () => {
  const env: Record<string, string | undefined> = {};
  const child = await startSandbox(tsx, REPO_ROOT, sui, env, { prime: false });
  assert.ok(child);
  try {
    assert.deepEqual(await walletBalances(env.SUI_SANDBOX_URL!), new Map());
  } finally {
    const exited = once(child, "exit");
    child.stdin!.end();
    await exited;
  }
});

test("a sandbox URL already set is used as is: nothing is started", async () => {
  const env: Record<string, string | undefined> = { SUI_SANDBOX_URL: "http://127.0.0.1:1" };
  assert.equal(await startSandbox(tsx, REPO_ROOT, sui, env), null);
  assert.equal(env.SUI_SANDBOX_URL, "http://127.0.0.1:1");
});
