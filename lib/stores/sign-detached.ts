import "server-only";

import { createPrivateKey, sign, type JsonWebKey, type KeyObject } from "node:crypto";

import type { Db } from "@/lib/config/db";
import { memoByObject } from "@/lib/core/memo-by-object";

import { currentSigningKey } from "./rotate-signing-key";
import { SIGNING_ALG } from "./signing-keys";

// Detached JWS (RFC 7515 Appendix F) with the store's current signing key, for signatures a store makes over
// its own responses (UCP AP2 `ap2.merchant_authorization`). The private JWK stays in lib/stores.
//
// Signed with node:crypto rather than jose: jose signs through WebCrypto, whose per-call job set-up cost about
// 120 µs a signature here against 35 µs for the same ECDSA through `crypto.sign`, and every checkout answer to an
// AP2 platform carries one. ES256 is simple to produce exactly (RFC 7515 §5.1, RFC 7518 §3.4: the signature over
// `b64url(header) "." b64url(payload)` as the raw 64-byte R‖S, which `dsaEncoding: "ieee-p1363"` gives); verifiers
// (ours with jose, the tests too) check it as any JWS.

const privateKeyOf = memoByObject((privateJwk: object): KeyObject => {
  const key = createPrivateKey({ key: privateJwk as JsonWebKey, format: "jwk" });
  if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== "prime256v1") {
    throw new Error(`A store signing key must be a P-256 key (${SIGNING_ALG})`);
  }
  return key;
});

/** `<b64url(header)>..<b64url(signature)>` over `payload` with header { alg: ES256, kid }, or null (no key). */
export const signDetachedWithStoreKey = async (
  db: Pick<Db, "storeSigningKey">,
  storeId: string,
  payload: Uint8Array,
): Promise<string | null> => {
  const row = await currentSigningKey(db, { storeId });
  if (!row) return null;
  const key = privateKeyOf(row.privateJwk as object);
  const header = Buffer.from(JSON.stringify({ alg: SIGNING_ALG, kid: row.kid })).toString("base64url");
  const signingInput = Buffer.from(`${header}.${Buffer.from(payload).toString("base64url")}`);
  const signature = sign("sha256", signingInput, { key, dsaEncoding: "ieee-p1363" });
  return `${header}..${signature.toString("base64url")}`;
};
