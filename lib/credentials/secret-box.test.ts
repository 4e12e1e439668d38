import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";

import { AppError } from "@/lib/core/errors";

import { isSealed, needsReseal, open, parseKeyring, seal, sealedKeyId } from "./secret-box";

const keyOf = () => randomBytes(32).toString("base64");

test("seal/open: round trip, the plain text nowhere in the ciphertext, each seal different", () => {
  const ring = parseKeyring(`k1:${keyOf()}`, true)!;
  const secret = "sk_live_abcdefghijklmnop1234";
  const a = seal(ring, secret, "store:s1:stripe_secret_key");
  const b = seal(ring, secret, "store:s1:stripe_secret_key");
  assert.ok(isSealed(a));
  assert.equal(sealedKeyId(a), "k1");
  assert.ok(!a.includes(secret) && !a.includes("1234"));
  assert.notEqual(a, b, "a fresh IV per seal");
  assert.equal(open(ring, a, "store:s1:stripe_secret_key"), secret);
});

test("open: another store's context, or a tampered ciphertext, does not open", () => {
  const ring = parseKeyring(`k1:${keyOf()}`, true)!;
  const sealed = seal(ring, "sk_live_abcdefghijkl", "store:s1:stripe_secret_key");
  assert.throws(() => open(ring, sealed, "store:s2:stripe_secret_key"));
  assert.throws(() => open(ring, sealed, "store:s1:stripe_webhook_secret"));
  const parts = sealed.split(":");
  const data = Buffer.from(parts[5]!, "base64url");
  data[0] = data[0]! ^ 1;
  parts[5] = data.toString("base64url");
  assert.throws(() => open(ring, parts.join(":"), "store:s1:stripe_secret_key"));
});

test("keyring rotation: the old key still opens, the new one seals, needsReseal tells which rows to redo", () => {
  const oldKey = keyOf();
  const before = parseKeyring(`old:${oldKey}`, true)!;
  const sealedOld = seal(before, "whsec_abcdefgh", "ctx");
  const after = parseKeyring(`new:${keyOf()},old:${oldKey}`, true)!;
  assert.equal(after.current.id, "new");
  assert.equal(open(after, sealedOld, "ctx"), "whsec_abcdefgh");
  assert.ok(needsReseal(after, sealedOld));
  const resealed = seal(after, open(after, sealedOld, "ctx"), "ctx");
  assert.equal(sealedKeyId(resealed), "new");
  assert.ok(!needsReseal(after, resealed));
  // once the old key is dropped, its ciphertexts no longer open, with the error the operator can act on
  const dropped = parseKeyring(`new:${after.keys.get("new")!.toString("base64")}`, true)!;
  assert.throws(
    () => open(dropped, sealedOld, "ctx"),
    (e) => e instanceof AppError && e.code === "secrets_key_missing",
  );
  assert.equal(open(dropped, resealed, "ctx"), "whsec_abcdefgh");
});

test("plain-text rows from before encryption read as they are and need sealing", () => {
  const ring = parseKeyring(`k1:${keyOf()}`, true)!;
  assert.equal(open(ring, "sk_live_legacyvalue", "ctx"), "sk_live_legacyvalue");
  assert.ok(needsReseal(ring, "sk_live_legacyvalue"));
});

test("parseKeyring: development fallback only outside production; malformed keys refused", () => {
  assert.equal(parseKeyring(undefined, true), null);
  assert.throws(
    () => seal(null, "x", "ctx"),
    (e) => e instanceof AppError && e.code === "secrets_key_missing",
  );
  const dev = parseKeyring(undefined, false)!;
  assert.equal(dev.current.id, "dev");
  // a configured key seals even outside production; the development key still opens old dev rows
  const configured = parseKeyring(`prod1:${keyOf()}`, false)!;
  assert.equal(configured.current.id, "prod1");
  assert.equal(open(configured, seal(dev, "v", "c"), "c"), "v");
  assert.throws(() => parseKeyring(`short:${randomBytes(16).toString("base64")}`, true), /32 bytes/);
});
