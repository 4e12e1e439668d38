import "server-only";

import { errors as joseErrors, jwtVerify, SignJWT } from "jose";

import { SIGNING_ALG } from "@/lib/stores/signing-keys";

import { issuerOf } from "./metadata";
import { getAccessTokenKey } from "./server-keys";

// The authorization endpoint shows its errors on a page of the site (/oauth/error), never on the client's
// redirect_uri (RFC 6749 §4.1.2.1). What happened travels to that page as a short-lived JWT signed with the
// authorization server's key, so nobody can link to our error page with words of their own.

export const OAUTH_ERROR_PATH = "/oauth/error";
const TICKET_TYP = "oauth-error+jwt";
const TICKET_TTL_SECONDS = 600;

export type OAuthErrorTicket = { error: string; description: string };

const audienceOf = (baseUrl: string) => `${baseUrl}${OAUTH_ERROR_PATH}`;

/** Where to send the browser to show an authorization error: the error page with the signed ticket. */
export const oauthErrorPageUrl = async (
  ticket: OAuthErrorTicket,
  { baseUrl, now = new Date() }: { baseUrl: string; now?: Date },
): Promise<string> => {
  const key = await getAccessTokenKey();
  const iat = Math.floor(now.getTime() / 1000);
  const jwt = await new SignJWT({ error: ticket.error, error_description: ticket.description })
    .setProtectedHeader({ alg: SIGNING_ALG, typ: TICKET_TYP, kid: key.kid })
    .setIssuer(issuerOf(baseUrl))
    .setAudience(audienceOf(baseUrl))
    .setIssuedAt(iat)
    .setExpirationTime(iat + TICKET_TTL_SECONDS)
    .sign(key.privateKey);
  const url = new URL(OAUTH_ERROR_PATH, baseUrl);
  url.searchParams.set("ticket", jwt);
  return url.href;
};

/** The error a ticket carries, or null for a missing, forged, expired or foreign one. */
export const readOAuthErrorTicket = async (
  jwt: string,
  { baseUrl, now = new Date() }: { baseUrl: string; now?: Date },
): Promise<OAuthErrorTicket | null> => {
  if (!jwt || jwt.length > 4096) return null;
  try {
    const key = await getAccessTokenKey();
    const { payload } = await jwtVerify(jwt, key.publicJwk, {
      algorithms: [SIGNING_ALG],
      typ: TICKET_TYP,
      issuer: issuerOf(baseUrl),
      audience: audienceOf(baseUrl),
      currentDate: now,
    });
    const { error, error_description: description } = payload;
    return typeof error === "string" && typeof description === "string" ? { error, description } : null;
  } catch (error) {
    if (error instanceof joseErrors.JOSEError || error instanceof TypeError) return null;
    throw error;
  }
};
