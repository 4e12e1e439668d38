import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";

import { generateApiKey } from "@/lib/credentials/api-key-format";

import { logError, redactSecrets } from "./log";

// What an unexpected error's message may quote never reaches the log as is: each secret format we issue or hold.
const secrets = () => {
  const apiKey = generateApiKey().key;
  const opaque = (prefix: string) => `${prefix}_${randomBytes(32).toString("base64url")}`;
  return {
    apiKey,
    clientSecret: `ocs_${generateApiKey().key.slice(-43)}`,
    refreshToken: opaque("ort"),
    code: opaque("oac"),
    jwt: `eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJidXllcl8xIn0.${randomBytes(64).toString("base64url")}`,
    stripeKey: `sk_live_${randomBytes(16).toString("hex")}`,
    webhookSecret: `whsec_${randomBytes(24).toString("base64")}`,
    clientSecretPi: `pi_3Abc123_secret_${randomBytes(12).toString("hex")}`,
  };
};

test("redactSecrets removes every secret format and keeps the API key's public prefix", () => {
  const all = secrets();
  const text = Object.entries(all)
    .map(([name, value]) => `${name}=${value}`)
    .join(" ");
  const redacted = redactSecrets(`${text} Authorization: Bearer abcdefghijklmnop`);
  for (const [name, value] of Object.entries(all)) assert.equal(redacted.includes(value), false, name);
  assert.equal(redacted.includes("abcdefghijklmnop"), false);
  assert.ok(redacted.includes(`acs_${all.apiKey.split("_")[1]}_[redacted]`), redacted);
  assert.equal(redactSecrets("order ord_123 for checkout chk_456"), "order ord_123 for checkout chk_456");
});

test("logError writes neither the message's nor the stack's secrets", () => {
  const { apiKey, jwt } = secrets();
  const lines: string[] = [];
  const original = console.error;
  console.error = (line: string) => lines.push(line);
  try {
    logError(
      new Error("query failed", { cause: new Error(`no row for key ${apiKey} and token ${jwt}`) }),
      "r-1",
    );
  } finally {
    console.error = original;
  }
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.includes(apiKey), false);
  assert.equal(lines[0]!.includes(jwt), false);
  assert.equal((JSON.parse(lines[0]!) as { request_id: string }).request_id, "r-1");
});
