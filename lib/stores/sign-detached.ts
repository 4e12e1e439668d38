import "server-only";

import { CompactSign, importJWK, type JWK } from "jose";

import type { Db } from "@/lib/config/db";
import { memoByObject } from "@/lib/core/memo-by-object";

import { currentSigningKey } from "./rotate-signing-key";
import { SIGNING_ALG } from "./signing-keys";

// Detached JWS (RFC 7515 Appendix F) with the store's current signing key, for signatures a store makes over
// its own responses (UCP AP2 `ap2.merchant_authorization`, issue #5). The private JWK stays in lib/stores.

const importKey = memoByObject((privateJwk: object) =>
  importJWK({ ...(privateJwk as JWK), alg: SIGNING_ALG }, SIGNING_ALG),
);

/** `<b64url(header)>..<b64url(signature)>` over `payload` with header { alg: ES256, kid }, or null (no key). */
export const signDetachedWithStoreKey = async (
  db: Pick<Db, "storeSigningKey">,
  storeId: string,
  payload: Uint8Array,
): Promise<string | null> => {
  const row = await currentSigningKey(db, { storeId });
  if (!row) return null;
  const key = await importKey(row.privateJwk as object);
  const jws = await new CompactSign(payload).setProtectedHeader({ alg: SIGNING_ALG, kid: row.kid }).sign(key);
  const [header, , signature] = jws.split(".");
  return `${header}..${signature}`;
};
