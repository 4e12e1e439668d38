import assert from "node:assert/strict";
import { test } from "node:test";

import { generateApiKey, hashApiKey, isSameHash, parseApiKeyPrefix } from "./api-key-format";

test("generateApiKey: the key parses back to its prefix and hashes to the stored hash", () => {
  const { key, prefix, secretHash } = generateApiKey();
  assert.match(key, /^acs_[A-Za-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
  assert.equal(parseApiKeyPrefix(key), prefix);
  assert.equal(hashApiKey(key), secretHash);
  assert.ok(!secretHash.includes(key.slice(17)), "the secret is not stored in clear");
});

test("parseApiKeyPrefix: rejects malformed keys", () => {
  for (const bad of ["", "acs_short_x", "sk_live_123", `acs_${"a".repeat(12)}_${"b".repeat(42)}`]) {
    assert.equal(parseApiKeyPrefix(bad), null, bad);
  }
});

test("isSameHash: equal only for identical hashes, false on length mismatch", () => {
  const h = hashApiKey("x");
  assert.equal(isSameHash(h, hashApiKey("x")), true);
  assert.equal(isSameHash(h, hashApiKey("y")), false);
  assert.equal(isSameHash(h, h.slice(0, 10)), false);
});

test("merchant keys and platform keys never parse as each other", () => {
  const merchant = generateApiKey("merchant");
  const platform = generateApiKey("platform");
  assert.match(merchant.key, /^acsm_[A-Za-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
  assert.equal(parseApiKeyPrefix(merchant.key, "merchant"), merchant.prefix);
  assert.equal(parseApiKeyPrefix(merchant.key), null);
  assert.equal(parseApiKeyPrefix(merchant.key, "platform"), null);
  assert.equal(parseApiKeyPrefix(platform.key, "merchant"), null);
});
