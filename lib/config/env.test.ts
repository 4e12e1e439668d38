import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { parseEnv, privateOutboundAllowed } from "./env";

// The webhook delivery timeout and claim lease settings (issue #7 crash test): unset keeps the published
// defaults, and a lease that does not outlast the timeout is refused at boot.

describe("WEBHOOK_DELIVERY_TIMEOUT_MS / WEBHOOK_CLAIM_TTL_MS", () => {
  test("unset: both undefined (lib/webhooks/schedule.ts defaults apply)", () => {
    const env = parseEnv({});
    assert.equal(env.WEBHOOK_DELIVERY_TIMEOUT_MS, undefined);
    assert.equal(env.WEBHOOK_CLAIM_TTL_MS, undefined);
  });

  test("a lease longer than the timeout is accepted and read as numbers", () => {
    const env = parseEnv({ WEBHOOK_DELIVERY_TIMEOUT_MS: "5000", WEBHOOK_CLAIM_TTL_MS: "6000" });
    assert.equal(env.WEBHOOK_DELIVERY_TIMEOUT_MS, 5000);
    assert.equal(env.WEBHOOK_CLAIM_TTL_MS, 6000);
  });

  test("a lease not longer than the timeout (set, or the 10 000 ms default) is refused, naming the variable", () => {
    assert.throws(
      () => parseEnv({ WEBHOOK_DELIVERY_TIMEOUT_MS: "5000", WEBHOOK_CLAIM_TTL_MS: "5000" }),
      /WEBHOOK_CLAIM_TTL_MS: must exceed WEBHOOK_DELIVERY_TIMEOUT_MS/,
    );
    assert.throws(() => parseEnv({ WEBHOOK_CLAIM_TTL_MS: "9000" }), /WEBHOOK_CLAIM_TTL_MS: must exceed/);
    assert.equal(parseEnv({ WEBHOOK_CLAIM_TTL_MS: "10001" }).WEBHOOK_CLAIM_TTL_MS, 10_001);
  });

  test("not a whole number of ms in range → refused", () => {
    for (const bad of [
      { WEBHOOK_DELIVERY_TIMEOUT_MS: "soon" },
      { WEBHOOK_DELIVERY_TIMEOUT_MS: "999" },
      { WEBHOOK_CLAIM_TTL_MS: "12000.5" },
    ])
      assert.throws(() => parseEnv(bad), /Invalid environment:\n {2}WEBHOOK_/);
  });
});

describe("OUTBOUND_ALLOW_PRIVATE", () => {
  const allowed = (source: Record<string, string>) => privateOutboundAllowed(parseEnv(source));
  test("production refuses private targets unless the operator sets 1", () => {
    assert.equal(allowed({ NODE_ENV: "production" }), false);
    assert.equal(allowed({ NODE_ENV: "production", OUTBOUND_ALLOW_PRIVATE: "1" }), true);
    assert.equal(allowed({ NODE_ENV: "production", OUTBOUND_ALLOW_PRIVATE: "0" }), false);
  });
  test("development and tests allow them unless set to 0", () => {
    assert.equal(allowed({ NODE_ENV: "development" }), true);
    assert.equal(allowed({ NODE_ENV: "test" }), true);
    assert.equal(allowed({ NODE_ENV: "development", OUTBOUND_ALLOW_PRIVATE: "0" }), false);
  });
  test("anything else is a boot error", () => {
    assert.throws(() => parseEnv({ OUTBOUND_ALLOW_PRIVATE: "yes" }), /OUTBOUND_ALLOW_PRIVATE/);
  });
});
