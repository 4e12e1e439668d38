import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";

import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Secp256k1Keypair } from "@mysten/sui/keypairs/secp256k1";
import { verifyPersonalMessageSignature } from "@mysten/sui/verify";

import { isAppError } from "@/lib/core/errors";

import {
  encodeIntentMandate,
  intentSigningBytes,
  readIntentMandate,
  type IntentPayload,
} from "./intent-mandate";

// readIntentMandate checks an Ed25519 signature with the platform's Ed25519 first and falls back to the SDK: its
// answer must be the SDK's for every signature, and a verified envelope read again must still expire.

const payloadFor = (address: string, overrides: Partial<IntentPayload> = {}): IntentPayload => ({
  v: 2,
  id: `im_${randomUUID()}`,
  buyer_address: address,
  agent: "https://agent.example/client",
  currency: "USD",
  limits: { day: 10_000 },
  merchants: "*",
  expires_at: new Date(Date.now() + 3_600_000).toISOString(),
  nonce: randomUUID(),
  ...overrides,
});

const codeOf = async (run: () => Promise<unknown>): Promise<string | null> => {
  try {
    await run();
    return null;
  } catch (error) {
    assert.ok(isAppError(error), String(error));
    return error.code;
  }
};

const sdkAccepts = async (payload: IntentPayload, signature: string, address: string) => {
  try {
    await verifyPersonalMessageSignature(intentSigningBytes(payload), signature, { address });
    return true;
  } catch {
    return false;
  }
};

test("an Ed25519 allowance: accepted exactly when the SDK accepts it (signed, tampered, another wallet's key, another address)", async () => {
  const buyer = Ed25519Keypair.generate();
  const other = Ed25519Keypair.generate();
  const address = buyer.toSuiAddress();
  const payload = payloadFor(address);
  const { signature } = await buyer.signPersonalMessage(intentSigningBytes(payload));
  const { signature: othersSignature } = await other.signPersonalMessage(intentSigningBytes(payload));
  const cases: [string, IntentPayload, string][] = [
    ["signed by the buyer", payload, signature],
    ["tampered after signing", { ...payload, limits: { day: 99_999 } }, signature],
    ["signed by another wallet for the buyer's address", payload, othersSignature],
    ["another address than the signer's", { ...payload, buyer_address: other.toSuiAddress() }, signature],
  ];
  for (const [what, sent, sig] of cases) {
    const sdk = await sdkAccepts(sent, sig, sent.buyer_address);
    const code = await codeOf(() => readIntentMandate(encodeIntentMandate(sent, sig), new Date()));
    assert.equal(code, sdk ? null : "mandate_invalid_signature", what);
  }
  assert.ok(await sdkAccepts(payload, signature, address), "the buyer's own signature is valid");
});

test("another signature scheme is still decided by the SDK alone", async () => {
  const buyer = Secp256k1Keypair.generate();
  const payload = payloadFor(buyer.toSuiAddress());
  const { signature } = await buyer.signPersonalMessage(intentSigningBytes(payload));
  assert.deepEqual(await readIntentMandate(encodeIntentMandate(payload, signature), new Date()), payload);
  const tampered = encodeIntentMandate({ ...payload, merchants: ["other-store"] }, signature);
  assert.equal(await codeOf(() => readIntentMandate(tampered, new Date())), "mandate_invalid_signature");
});

test("an allowance verified once and sent again: the same payload, and refused once it expired", async () => {
  const buyer = Ed25519Keypair.generate();
  const payload = payloadFor(buyer.toSuiAddress(), {
    expires_at: new Date(Date.now() + 60_000).toISOString(),
  });
  const { signature } = await buyer.signPersonalMessage(intentSigningBytes(payload));
  const encoded = encodeIntentMandate(payload, signature);
  const first = await readIntentMandate(encoded, new Date());
  first.limits.day = 1;
  assert.deepEqual(await readIntentMandate(encoded, new Date()), payload, "a caller's change is not kept");
  assert.equal(
    await codeOf(() => readIntentMandate(encoded, new Date(Date.now() + 120_000))),
    "mandate_expired",
  );
});
