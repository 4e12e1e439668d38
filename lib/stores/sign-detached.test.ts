import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { test } from "node:test";

import { compactVerify, importJWK, type JWK } from "jose";

import type { Db } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";

import { signDetachedWithStoreKey } from "./sign-detached";
import { createSigningKeyMaterial } from "./signing-keys";

// The detached JWS is made without jose; jose (as any verifier would) must accept it as an ES256 JWS by the
// store's published key over exactly the payload, and refuse it over anything else.

const dbWith = (row: { kid: string; privateJwk: object; createdAt?: Date } | null) =>
  ({
    storeSigningKey: { findFirst: async () => (row ? { ...row, createdAt: new Date() } : null) },
  }) as unknown as Pick<Db, "storeSigningKey">;

test("a detached ES256 JWS that jose verifies with the published key, over this payload only", async () => {
  const material = await createSigningKeyMaterial();
  const db = dbWith({ kid: material.kid, privateJwk: material.privateJwk });
  const payload = new TextEncoder().encode('{"id":"chk_1","currency":"USD","total":1299,"name":"Ünïcode ✓"}');
  const jws = await signDetachedWithStoreKey(db, newId("store"), payload);
  assert.ok(jws);
  const [header, empty, signature] = jws.split(".");
  assert.equal(empty, "", "detached: no payload between the dots");
  assert.deepEqual(JSON.parse(Buffer.from(header!, "base64url").toString()), {
    alg: "ES256",
    kid: material.kid,
  });
  assert.equal(Buffer.from(signature!, "base64url").length, 64, "R‖S, not DER");
  const key = await importJWK(material.publicJwk as JWK, "ES256");
  const attached = (bytes: Uint8Array) =>
    `${header}.${Buffer.from(bytes).toString("base64url")}.${signature}`;
  const verified = await compactVerify(attached(payload), key);
  assert.deepEqual(Buffer.from(verified.payload), Buffer.from(payload));
  assert.equal(verified.protectedHeader.kid, material.kid);
  await assert.rejects(compactVerify(attached(new TextEncoder().encode('{"id":"chk_1"}')), key));
  const other = await createSigningKeyMaterial();
  await assert.rejects(compactVerify(attached(payload), await importJWK(other.publicJwk as JWK, "ES256")));
});

test("no current key: no signature; a key that is not P-256: refused, not signed with", async () => {
  assert.equal(await signDetachedWithStoreKey(dbWith(null), newId("store"), new Uint8Array([1])), null);
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "secp384r1" });
  const p384 = dbWith({ kid: "k384", privateJwk: privateKey.export({ format: "jwk" }) });
  await assert.rejects(signDetachedWithStoreKey(p384, newId("store"), new Uint8Array([1])), /P-256/);
});
