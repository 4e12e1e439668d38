import "server-only";

import { createHash, randomBytes, randomUUID } from "node:crypto";

import { createLocalJWKSet, errors as joseErrors, jwtVerify, SignJWT, type JWK } from "jose";

import { memoByObject } from "@/lib/core/memo-by-object";
import { SIGNING_ALG } from "@/lib/stores/signing-keys";

import { ACCESS_TOKEN_TTL_SECONDS, ACCESS_TOKEN_TYP } from "./constants";
import { issuerOf } from "./metadata";
import { getAccessTokenKey } from "./server-keys";

// Access tokens: ES256 JWTs in the RFC 9068 profile (typ at+jwt; iss, aud, sub, client_id, scope, exp, iat, jti).
// `sid` names the token family (a code exchange and its refreshes) so one revocation kills every access token
// of the family; `kind` tells a buyer token (sub = buyer) from a platform client_credentials token
// (sub = client id). Refresh tokens and codes are opaque random strings; only their SHA-256 is stored.

export type AccessTokenClaims = {
  sub: string;
  client_id: string;
  scope: string;
  kind: "buyer" | "client";
  sid?: string;
  exp: number;
};

/** The audience of every access token: this service as one resource server (RFC 8707 resources under it). */
export const audienceOf = (baseUrl: string): string => baseUrl;

export const issueAccessToken = async ({
  baseUrl,
  subject,
  clientId,
  scopes,
  kind,
  familyId,
  now,
}: {
  baseUrl: string;
  subject: string;
  clientId: string;
  scopes: readonly string[];
  kind: "buyer" | "client";
  familyId?: string;
  now: Date;
}): Promise<{ accessToken: string; expiresIn: number }> => {
  const key = await getAccessTokenKey();
  const iat = Math.floor(now.getTime() / 1000);
  const accessToken = await new SignJWT({
    client_id: clientId,
    scope: scopes.join(" "),
    kind,
    ...(familyId ? { sid: familyId } : {}),
  })
    .setProtectedHeader({ alg: SIGNING_ALG, typ: ACCESS_TOKEN_TYP, kid: key.kid })
    .setIssuer(issuerOf(baseUrl))
    .setAudience(audienceOf(baseUrl))
    .setSubject(subject)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_TTL_SECONDS)
    .setJti(randomUUID())
    .sign(key.privateKey);
  return { accessToken, expiresIn: ACCESS_TOKEN_TTL_SECONDS };
};

/**
 * The key set that verifies our access tokens, one per loaded key: jose's local set imports a JWK on its first
 * use and keeps it, so a set made per call would import the public key (a WebCrypto job) on every bearer request.
 */
const jwkSetOf = memoByObject((publicJwk: JWK) => createLocalJWKSet({ keys: [publicJwk] }));

/**
 * Verifies signature (our key only, ES256 only — `alg: none` and other algorithms are refused), typ, issuer,
 * audience and expiry. Returns the claims, or null for any invalid token (the reason is not revealed).
 */
export const verifyAccessTokenJwt = async (
  token: string,
  { baseUrl, now = new Date() }: { baseUrl: string; now?: Date },
): Promise<AccessTokenClaims | null> => {
  try {
    const jwks = jwkSetOf((await getAccessTokenKey()).publicJwk);
    const { payload } = await jwtVerify(token, jwks, {
      algorithms: [SIGNING_ALG],
      typ: ACCESS_TOKEN_TYP,
      issuer: issuerOf(baseUrl),
      audience: audienceOf(baseUrl),
      requiredClaims: ["sub", "exp", "iat", "client_id", "scope"],
      currentDate: now,
    });
    const { sub, client_id: clientId, scope, kind, sid, exp } = payload;
    if (typeof sub !== "string" || typeof clientId !== "string" || typeof scope !== "string") return null;
    if (kind !== "buyer" && kind !== "client") return null;
    if (kind === "buyer" && typeof sid !== "string") return null;
    return {
      sub,
      client_id: clientId,
      scope,
      kind,
      ...(typeof sid === "string" ? { sid } : {}),
      exp: exp as number,
    };
  } catch (error) {
    if (error instanceof joseErrors.JOSEError) return null;
    throw error;
  }
};

/** An opaque secret with 256 bits of entropy, prefixed so leaked strings are recognisable. */
export const newOpaqueToken = (prefix: string): string =>
  `${prefix}_${randomBytes(32).toString("base64url")}`;

/** Codes, refresh tokens: stored as hex SHA-256 (the secret has full entropy, so no stretching is needed). */
export const hashToken = (token: string): string => createHash("sha256").update(token).digest("hex");
