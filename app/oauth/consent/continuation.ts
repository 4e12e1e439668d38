import "server-only";

import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { cookies } from "next/headers";

import { getBaseUrl } from "@/lib/config/env";
import { AUTHORIZATION_CODE_TTL_SECONDS, CONSENT_PATH } from "@/lib/oauth/constants";
import { issuerOf } from "@/lib/oauth/metadata";
import { getAccessTokenKey } from "@/lib/oauth/server-keys";
import { SIGNING_ALG } from "@/lib/stores/signing-keys";

// Between "Allow" and the agent's redirect_uri the browser stops at the limit step (DECISIONS B20: consent is not
// spending). The answer the agent gets — its redirect with code, state and iss — is made at "Allow", exactly as
// before, and waits here: in an httpOnly cookie scoped to the consent pages, living no longer than the code. The
// cookie holds where the browser goes next, so it is a JWT signed with the authorization server's key and bound to
// the buyer who allowed: a cookie planted by anyone else (another site, another buyer's session) sends nobody
// anywhere.

const COOKIE = "consent_continuation";
const TYP = "consent-continuation+jwt";

export type Continuation = { clientId: string; location: string };

const audience = () => `${getBaseUrl()}${CONSENT_PATH}/limit`;

export const saveContinuation = async (buyerId: string, continuation: Continuation): Promise<void> => {
  const key = await getAccessTokenKey();
  const iat = Math.floor(Date.now() / 1000);
  const jwt = await new SignJWT({ client_id: continuation.clientId, location: continuation.location })
    .setProtectedHeader({ alg: SIGNING_ALG, typ: TYP, kid: key.kid })
    .setIssuer(issuerOf(getBaseUrl()))
    .setAudience(audience())
    .setSubject(buyerId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + AUTHORIZATION_CODE_TTL_SECONDS)
    .sign(key.privateKey);
  (await cookies()).set(COOKIE, jwt, {
    path: CONSENT_PATH,
    httpOnly: true,
    sameSite: "lax",
    secure: getBaseUrl().startsWith("https:"),
    maxAge: AUTHORIZATION_CODE_TTL_SECONDS,
  });
};

/** The signed-in buyer's continuation, or null for none, a forged, expired or another buyer's one. */
export const readContinuation = async (buyerId: string): Promise<Continuation | null> => {
  const raw = (await cookies()).get(COOKIE)?.value;
  if (!raw || raw.length > 8192) return null;
  try {
    const key = await getAccessTokenKey();
    const { payload } = await jwtVerify(raw, key.publicJwk, {
      algorithms: [SIGNING_ALG],
      typ: TYP,
      issuer: issuerOf(getBaseUrl()),
      audience: audience(),
      subject: buyerId,
    });
    const { client_id: clientId, location } = payload;
    return typeof clientId === "string" && typeof location === "string" ? { clientId, location } : null;
  } catch (error) {
    if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return null;
    throw error;
  }
};

/** Reads the continuation once: the cookie is gone after this. */
export const takeContinuation = async (buyerId: string): Promise<Continuation | null> => {
  const continuation = await readContinuation(buyerId);
  (await cookies()).delete({ name: COOKIE, path: CONSENT_PATH });
  return continuation;
};
