import "server-only";

import { randomBytes } from "node:crypto";

import { importJWK, type CryptoKey, type JWK } from "jose";

import { getDb } from "@/lib/config/db";
import { createSigningKeyMaterial, SIGNING_ALG, toPublicJwk } from "@/lib/stores/signing-keys";

// Keys of the authorization server, persisted so tokens survive restarts: the ES256 access-token key (its public
// half published at the JWKS endpoint) and, when NEXTAUTH_SECRET is unset, the buyer session secret. Each is
// created once on first use under a fixed id; a concurrent creator loses the unique race and reads the winner.

const ACCESS_TOKEN_KEY_ID = "osk_access_token_es256";
const SESSION_SECRET_ID = "osk_session_secret";

const loadOrCreate = async (
  id: string,
  kind: string,
  make: () => Promise<{ material: string; publicJwk: string | null }>,
) => {
  const db = await getDb();
  const existing = await db.oAuthServerKey.findUnique({ where: { id } });
  if (existing) return existing;
  const made = await make();
  await db.oAuthServerKey.createMany({ data: [{ id, kind, ...made }], skipDuplicates: true });
  return db.oAuthServerKey.findUniqueOrThrow({ where: { id } });
};

export type AccessTokenKey = { kid: string; privateKey: CryptoKey; publicJwk: JWK };

let accessTokenKey: Promise<AccessTokenKey> | undefined;

/** The ES256 key that signs access tokens (loaded once per process). */
export const getAccessTokenKey = (): Promise<AccessTokenKey> => {
  accessTokenKey ??= (async () => {
    const row = await loadOrCreate(ACCESS_TOKEN_KEY_ID, "access_token", async () => {
      const key = await createSigningKeyMaterial();
      return { material: JSON.stringify(key.privateJwk), publicJwk: JSON.stringify(key.publicJwk) };
    });
    const privateJwk = JSON.parse(row.material) as JWK;
    const publicJwk = toPublicJwk(JSON.parse(row.publicJwk ?? row.material));
    const privateKey = (await importJWK(privateJwk, SIGNING_ALG)) as CryptoKey;
    return { kid: publicJwk.kid ?? ACCESS_TOKEN_KEY_ID, privateKey, publicJwk };
  })().catch((error: unknown) => {
    accessTokenKey = undefined;
    throw error;
  });
  return accessTokenKey;
};

/** The JWKS document (RFC 7517 §5): public keys only. */
export const getJwks = async (): Promise<{ keys: JWK[] }> => ({
  keys: [(await getAccessTokenKey()).publicJwk],
});

/** The next-auth session secret: NEXTAUTH_SECRET when set, else one random secret kept in the database. */
export const getStoredSessionSecret = async (): Promise<string> => {
  const row = await loadOrCreate(SESSION_SECRET_ID, "session", async () => ({
    material: JSON.stringify({ secret: randomBytes(32).toString("base64url") }),
    publicJwk: null,
  }));
  return (JSON.parse(row.material) as { secret: string }).secret;
};

/** Test seam: forget the in-process key cache (a fresh test database has no key yet). */
export const resetServerKeyCache = (): void => {
  accessTokenKey = undefined;
};
