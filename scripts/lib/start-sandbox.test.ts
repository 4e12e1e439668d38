import assert from "node:assert/strict";
import { once } from "node:events";
import path from "node:path";
import { test } from "node:test";

import { SuiGrpcClient } from "@mysten/sui/grpc";

import { REPO_ROOT } from "./paths";
import { SANDBOXES, startSandbox } from "./start-sandbox";

// `npm start` launches each provider sandbox as its own process (scripts/serve.ts): here the Sui one, for real.
const tsx = path.join(REPO_ROOT, "node_modules/.bin/tsx");
const sui = SANDBOXES.find((s) => s.envVar === "SUI_SANDBOX_URL")!;

test("the Sui sandbox starts as a process, names its URL, answers both faces, and exits with its parent's pipe", async () => {
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
  } finally {
    const exited = once(child, "exit");
    child.stdin!.end(); // the server's pipe closing (it died): the sandbox must not outlive it
    await exited;
  }
  assert.notEqual(child.exitCode ?? child.signalCode, null);
});

test("a sandbox URL already set is used as is: nothing is started", async () => {
  const env: Record<string, string | undefined> = { SUI_SANDBOX_URL: "http://127.0.0.1:1" };
  assert.equal(await startSandbox(tsx, REPO_ROOT, sui, env), null);
  assert.equal(env.SUI_SANDBOX_URL, "http://127.0.0.1:1");
});
