import "server-only";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError, toAppError } from "@/lib/core/errors";

import { isValidS256Challenge } from "./checks/pkce";
import { isRegisteredRedirectUri } from "./checks/redirect-uri";
import { resolveBuyerScopes } from "./checks/scope";
import { isUrlClientId, resolveCimdClient, type FetchDocument } from "./cimd";
import { CONSENT_PATH, PENDING_AUTHORIZATION_TTL_SECONDS } from "./constants";
import { issuerOf } from "./metadata";
import type { OAuthErrorCode } from "./render-oauth";

// The authorization endpoint (RFC 6749 §4.1.1 with OAuth 2.1 / RFC 9700 rules). Until the client and its exact
// redirect_uri are known, every problem is shown on an error page — never a redirect, so the endpoint cannot be
// used as an open redirector (RFC 9700 §4.11). After that, errors go back to the client with state and iss.

export type AuthorizeOutcome =
  { kind: "error_page"; error: OAuthErrorCode; description: string } | { kind: "redirect"; location: string };

const SINGLE_VALUED = [
  "client_id",
  "redirect_uri",
  "response_type",
  "state",
  "scope",
  "code_challenge",
  "code_challenge_method",
  "resource",
];

/** The client's redirect URI with the response parameters, always with `iss` (RFC 9207), and `state` when the client sent one. */
export const authorizationResponseUrl = (
  redirectUri: string,
  params: Record<string, string | undefined>,
  baseUrl: string,
): string => {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.set(key, value);
  url.searchParams.set("iss", issuerOf(baseUrl));
  return url.href;
};

const MAX_STATE_LENGTH = 512;

const page = (error: OAuthErrorCode, description: string): AuthorizeOutcome => ({
  kind: "error_page",
  error,
  description,
});

/**
 * Validates an authorization request and parks it for the consent page.
 * Error page: invalid_request (client_id/redirect_uri), invalid_client (CIMD). Redirect: unsupported_response_type,
 * invalid_request (PKCE, state), invalid_scope.
 */
export const startAuthorization = async (
  params: URLSearchParams,
  {
    baseUrl,
    testMode,
    bridgeUrl,
    now = new Date(),
    fetchDocument,
  }: {
    baseUrl: string;
    /** The bridge's public URL when deployed apart (BRIDGE_URL): tokens for it are tokens for this service. */
    bridgeUrl?: string;
    testMode: boolean;
    now?: Date;
    fetchDocument?: FetchDocument;
  },
): Promise<AuthorizeOutcome> => {
  // RFC 6749 §3.1: parameters must not repeat
  const repeated = SINGLE_VALUED.find((name) => params.getAll(name).length > 1);
  if (repeated) return page("invalid_request", `The ${repeated} parameter is repeated`);

  const clientId = params.get("client_id");
  if (!clientId) return page("invalid_request", "client_id is required");
  if (!isUrlClientId(clientId)) {
    return page(
      "invalid_client",
      "Unknown client: client_id must be the https URL of a client metadata document",
    );
  }
  const redirectUri = params.get("redirect_uri");
  let client;
  try {
    // A redirect_uri the cached document lacks refetches it (the client may have just added it).
    client = await resolveCimdClient(clientId, {
      testMode,
      fetchDocument,
      accepts: (metadata) => !redirectUri || isRegisteredRedirectUri(metadata.redirectUris, redirectUri),
    });
  } catch (error) {
    const appError = toAppError(error);
    if (appError.code !== "invalid_client") throw error;
    return page("invalid_client", appError.message);
  }

  if (!redirectUri) return page("invalid_request", "redirect_uri is required");
  if (!isRegisteredRedirectUri(client.redirectUris, redirectUri)) {
    return page("invalid_request", "redirect_uri is not one of the client's registered redirect_uris");
  }

  const state = params.get("state") ?? undefined;
  const fail = (error: OAuthErrorCode, description: string): AuthorizeOutcome => ({
    kind: "redirect",
    location: authorizationResponseUrl(
      redirectUri,
      { error, error_description: description, state },
      baseUrl,
    ),
  });

  const responseType = params.get("response_type");
  // RFC 9700 §2.1.2: no implicit grant (response_type=token) and no hybrid types
  if (responseType !== "code")
    return fail("unsupported_response_type", "Only response_type=code is supported");
  const challenge = params.get("code_challenge");
  const method = params.get("code_challenge_method");
  if (!challenge) return fail("invalid_request", "code_challenge is required (PKCE)");
  if (method !== "S256")
    return fail("invalid_request", "code_challenge_method must be S256 (plain is refused)");
  if (!isValidS256Challenge(challenge))
    return fail("invalid_request", "code_challenge is not a S256 challenge");
  // OAuth 2.1 §4.1.1 / RFC 9700 §2.1: with PKCE, state is optional for CSRF; when sent it is echoed verbatim
  if (state !== undefined && (state.length === 0 || state.length > MAX_STATE_LENGTH)) {
    return fail("invalid_request", `state must be 1 to ${MAX_STATE_LENGTH} characters`);
  }
  const resource = params.get("resource");
  const isUnder = (root: string) => resource === root || resource?.startsWith(`${root}/`) === true;
  if (resource !== null && !isUnder(baseUrl) && !(bridgeUrl !== undefined && isUnder(bridgeUrl))) {
    return fail("invalid_request", "resource must be this service, its bridge or one of their endpoints");
  }
  let scopes: string[];
  try {
    scopes = resolveBuyerScopes(params.get("scope"));
  } catch (error) {
    if (error instanceof AppError) return fail("invalid_scope", error.message);
    throw error;
  }

  const db = await getDb();
  const pending = await db.oAuthPendingAuthorization.create({
    data: {
      id: newId("pendingAuthorization"),
      clientId: client.clientId,
      clientName: client.clientName,
      clientUri: client.clientUri,
      logoUri: client.logoUri,
      redirectUri,
      state: state ?? "",
      codeChallenge: challenge,
      scopes,
      createdAt: now,
      expiresAt: new Date(now.getTime() + PENDING_AUTHORIZATION_TTL_SECONDS * 1000),
    },
  });
  return {
    kind: "redirect",
    location: `${baseUrl}${CONSENT_PATH}?request=${encodeURIComponent(pending.id)}`,
  };
};
