import assert from "node:assert/strict";
import { test } from "node:test";

import { getEnv } from "@/lib/config/env";
import { AppError } from "@/lib/core/errors";

import { chainForNetwork, fullnodeUrl } from "./chain";

test("live networks use the configured fullnode URLs (defaults: Mysten's public gRPC endpoints)", () => {
  assert.equal(fullnodeUrl("mainnet"), getEnv().SUI_MAINNET_URL);
  assert.equal(fullnodeUrl("testnet"), getEnv().SUI_TESTNET_URL);
  assert.equal(getEnv().SUI_MAINNET_URL, "https://fullnode.mainnet.sui.io:443");
  assert.equal(chainForNetwork("mainnet").network, "mainnet");
});

test("the sandbox network reads SUI_SANDBOX_URL per call and fails cleanly without it", () => {
  const saved = process.env.SUI_SANDBOX_URL;
  try {
    delete process.env.SUI_SANDBOX_URL;
    assert.throws(
      () => fullnodeUrl("sandbox"),
      (error) => error instanceof AppError && error.code === "payment_provider_error",
    );
    process.env.SUI_SANDBOX_URL = "http://127.0.0.1:4321";
    assert.equal(fullnodeUrl("sandbox"), "http://127.0.0.1:4321");
    assert.equal(chainForNetwork("sandbox").network, "sandbox");
  } finally {
    if (saved === undefined) delete process.env.SUI_SANDBOX_URL;
    else process.env.SUI_SANDBOX_URL = saved;
  }
});
