// Store signing keys (ES256 / P-256): minted here, published as public JWKs in the store profile's signing_keys.
// No "server-only" import on purpose: the seed (plain tsx, outside Next) mints keys through this module too.
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from "jose";

export type SigningKeyMaterial = {
  /** RFC 7638 JWK thumbprint of the public key; stable for the key, so it doubles as the id verifiers look up. */
  kid: string;
  publicJwk: JWK;
  privateJwk: JWK;
};

export const SIGNING_ALG = "ES256";

/**
 * A retired key stays published (and verifiable) this long after rotation, then is deleted: UCP signatures.md
 * asks verifiers' keys to keep working at least 7 days after a rotation.
 */
export const SIGNING_KEY_GRACE_MS = 7 * 24 * 60 * 60 * 1000;

// RFC 7518 §6.2.2 (EC) and §6.3.2 (RSA) private members, plus the symmetric "k" (§6.4.1): none may ever be published.
const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"] as const;

/** Creates a fresh ES256 key pair; both JWKs carry kid/use/alg so the stored private half is self-describing. */
export const createSigningKeyMaterial = async (): Promise<SigningKeyMaterial> => {
  const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
  const exportedPublic = await exportJWK(publicKey);
  const exportedPrivate = await exportJWK(privateKey);
  // RFC 7638 §3.2: the thumbprint covers only the required members (crv, kty, x, y), so kid/use/alg added below do not change it.
  const kid = await calculateJwkThumbprint(exportedPublic, "sha256");
  const publicJwk: JWK = {
    kid,
    kty: exportedPublic.kty,
    crv: exportedPublic.crv,
    x: exportedPublic.x,
    y: exportedPublic.y,
    use: "sig",
    alg: SIGNING_ALG,
  };
  return { kid, publicJwk, privateJwk: { ...publicJwk, d: exportedPrivate.d } };
};

/**
 * Returns the publishable half of a stored JWK. Defensive: whatever was stored (even a private JWK by mistake),
 * private members are removed so a profile can never leak a signing secret.
 */
export const toPublicJwk = (stored: unknown): JWK => {
  if (typeof stored !== "object" || stored === null || Array.isArray(stored)) {
    throw new TypeError("Stored signing key is not a JWK object");
  }
  const jwk: Record<string, unknown> = { ...(stored as Record<string, unknown>) };
  for (const member of PRIVATE_MEMBERS) delete jwk[member];
  // key_ops from a private JWK would advertise "sign"; a public key only verifies.
  delete jwk.key_ops;
  return jwk as JWK;
};
