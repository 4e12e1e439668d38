import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { Page } from "@playwright/test";

// An agent linking itself to a buyer's account as an MCP client does: the SDK's OAuth flow against /account/mcp
// (its client id a metadata document the spec serves), the buyer approving on the consent page in the browser with
// the sandbox wallet (or as `signIn` says) and skipping the limit step (or answering it as `limit` says). The SDK's
// auth provider keeps the tokens, and refreshes them when the server answers 401.

export type LinkedAgent = {
  provider: OAuthClientProvider;
  /** /account/mcp of the served instance. */
  endpoint: URL;
  /** The current access token. */
  accessToken: () => string;
};

export const linkAgentOverMcp = async (
  page: Page,
  {
    baseUrl,
    clientId,
    clientName,
    redirectUri,
    signIn,
    limit,
  }: Record<"baseUrl" | "clientId" | "clientName" | "redirectUri", string> & {
    /** Signs the buyer in on the consent page; by default with the sandbox wallet (test mode). */
    signIn?: () => Promise<void>;
    /** Answers the limit step; by default skips it. */
    limit?: () => Promise<void>;
  },
): Promise<LinkedAgent> => {
  const box: { tokens?: OAuthTokens; verifier?: string; url?: URL } = {};
  const provider: OAuthClientProvider = {
    get redirectUrl() {
      return redirectUri;
    },
    get clientMetadata() {
      return {
        client_name: clientName,
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      };
    },
    clientInformation: () => ({ client_id: clientId }),
    tokens: () => box.tokens,
    saveTokens: (tokens) => {
      box.tokens = tokens;
    },
    redirectToAuthorization: (url) => {
      box.url = url;
    },
    saveCodeVerifier: (verifier) => {
      box.verifier = verifier;
    },
    codeVerifier: () => box.verifier!,
  };
  const endpoint = new URL("/account/mcp", baseUrl);
  const transport = new StreamableHTTPClientTransport(endpoint, { authProvider: provider });
  await new Client({ name: "agent", version: "1.0.0" }).connect(transport).catch(() => undefined);
  await page.goto(box.url!.href);
  if (signIn) await signIn();
  else await page.getByRole("button", { name: /sandbox wallet/ }).click();
  await page.getByRole("button", { name: "Allow" }).click();
  // the limit step (DECISIONS B20) comes next; unless told otherwise, the story gives the allowance elsewhere
  if (limit) await limit();
  else await page.getByRole("button", { name: "Skip" }).click();
  await page.waitForURL((url) => url.href.startsWith(redirectUri));
  await transport.finishAuth(new URL(page.url()).searchParams.get("code")!);
  return { provider, endpoint, accessToken: () => box.tokens!.access_token };
};
