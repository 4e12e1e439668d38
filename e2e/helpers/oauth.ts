import * as oauth from "oauth4webapi";

import { decideAuthorization } from "@/lib/oauth/decide-authorization";
import { readOAuthErrorTicket, type OAuthErrorTicket } from "@/lib/oauth/error-ticket";

import { seedBuyer } from "../factories";
import { callApp, TEST_BASE_URL } from "./app-client";

// oauth4webapi — an independent, certified OAuth client — pointed at the service in-process: its fetch is routed
// to the real route handlers. The buyer's click on the consent page is the same core call the page's form makes
// (decideAuthorization); the page itself is driven by the Playwright test e2e/ui/consent.spec.ts.

export const inProcessFetch = async (url: string, init?: RequestInit): Promise<Response> => {
  const target = new URL(url);
  const headers = Object.fromEntries(new Headers(init?.headers).entries());
  const rawBody = init?.body === undefined || init.body === null ? undefined : String(init.body);
  return callApp(init?.method ?? "GET", `${target.pathname}${target.search}`, { headers, rawBody });
};

export const OAUTH_OPTIONS = {
  [oauth.customFetch]: inProcessFetch,
  [oauth.allowInsecureRequests]: true,
} as const;

/** Discovery from the base URL alone (RFC 8414). */
export const discover = async (): Promise<oauth.AuthorizationServer> => {
  const issuer = new URL(TEST_BASE_URL);
  return oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { ...OAUTH_OPTIONS, algorithm: "oauth2" }),
  );
};

export type AuthorizeParams = Record<string, string>;

/** GET the authorization endpoint; returns the raw response (303 to consent, a redirect with an error, or a page). */
export const authorize = (as: oauth.AuthorizationServer, params: AuthorizeParams): Promise<Response> => {
  const url = new URL(as.authorization_endpoint!);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return callApp("GET", `${url.pathname}${url.search}`);
};

/**
 * What the authorization endpoint's error page shows: the endpoint sends the browser to our own /oauth/error (never to
 * the client's redirect_uri) with a signed ticket; throws when the answer is anything else.
 */
export const errorPageOf = async (response: Response): Promise<OAuthErrorTicket> => {
  const location = response.headers.get("location") ?? "";
  if (response.status !== 303 || !location.startsWith(`${TEST_BASE_URL}/oauth/error?ticket=`)) {
    throw new Error(`expected a redirect to the error page, got ${response.status} ${location}`);
  }
  const ticket = await readOAuthErrorTicket(new URL(location).searchParams.get("ticket") ?? "", {
    baseUrl: TEST_BASE_URL,
  });
  if (!ticket) throw new Error(`the error page's ticket does not verify: ${location}`);
  return ticket;
};

export const pendingIdFrom = (response: Response): string => {
  const location = response.headers.get("location");
  if (response.status !== 303 || !location)
    throw new Error(`expected a redirect to consent, got ${response.status}`);
  const id = new URL(location).searchParams.get("request");
  if (!id) throw new Error(`no request id in ${location}`);
  return id;
};

/** A buyer account (as after a wallet sign-in), unique per call. */
export const newBuyer = seedBuyer;

export type Linked = {
  as: oauth.AuthorizationServer;
  client: oauth.Client;
  verifier: string;
  redirectUri: string;
  tokens: oauth.TokenEndpointResponse;
  buyerId: string;
  code: string;
};

/** The whole authorization-code flow with PKCE for one buyer; returns the token response and what built it. */
export const linkAgent = async ({
  clientId,
  redirectUri,
  scope,
  buyerId,
}: {
  clientId: string;
  redirectUri: string;
  scope: string;
  buyerId?: string;
}): Promise<Linked> => {
  const as = await discover();
  const client: oauth.Client = { client_id: clientId };
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const started = await authorize(as, {
    response_type: "code",
    client_id: clientId,
    redirect_uri: redirectUri,
    scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
  });
  const buyer = buyerId ?? (await newBuyer()).id;
  const { location } = await decideAuthorization({
    requestId: pendingIdFrom(started),
    buyerId: buyer,
    approve: true,
    baseUrl: TEST_BASE_URL,
  });
  const params = oauth.validateAuthResponse(as, client, new URL(location), state);
  const code = params.get("code")!;
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.None(),
    params,
    redirectUri,
    verifier,
    OAUTH_OPTIONS,
  );
  const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
  return { as, client, verifier, redirectUri, tokens, buyerId: buyer, code };
};

/** POSTs a raw form to the token endpoint (for requests oauth4webapi would refuse to build). */
export const postToken = (form: Record<string, string>, headers: Record<string, string> = {}) =>
  callApp("POST", "/ucp/oauth2/token", {
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    rawBody: new URLSearchParams(form).toString(),
  });
