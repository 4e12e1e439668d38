import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

import { BRIDGE_LOGIN_SCOPE, BRIDGE_LOOPBACK_CALLBACK_PATH, bridgeClientId } from "./client-metadata";
import { deleteLogin, readLogin, writeLogin, type StoredLogin } from "./login-store";

// `bridge login` / `bridge logout`: the stand-alone bridge gets a buyer's bearer the way desktop tools do (RFC 8252,
// OAuth for native apps; as `gh auth login` and the MCP SDK's own client flow): it discovers the service's
// authorization server (RFC 8414), listens on 127.0.0.1 on a free port (§7.3: the server ignores the port of a
// loopback redirect URI), prints the authorization URL (and opens it when the machine has a browser opener), and
// the buyer signs in and allows on the service's consent page. The code comes back to the loopback listener with
// the `state` we sent and the issuer (RFC 9207), and is exchanged with the PKCE verifier (S256) as a public client
// whose client id is the bridge's metadata document on the service (client-metadata.ts). The tokens go to the
// user's config directory (login-store.ts); the refresh token keeps the login alive (login-session.ts).

type ServerMetadata = {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  revocation_endpoint?: string;
};

export type TokenResponse = {
  access_token: string;
  token_type: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
};

const base64url = (bytes: Buffer): string => bytes.toString("base64url");

/** RFC 8414 §3: the authorization server's metadata at {base_url}/.well-known/oauth-authorization-server. */
export const discoverAuthorizationServer = async (baseUrl: string): Promise<ServerMetadata> => {
  const response = await fetch(`${baseUrl}/.well-known/oauth-authorization-server`, {
    headers: { accept: "application/json" },
  });
  if (!response.ok) {
    throw new Error(`${baseUrl} has no OAuth authorization server metadata (HTTP ${response.status})`);
  }
  const metadata = (await response.json()) as Partial<ServerMetadata>;
  // RFC 8414 §3.3: the issuer must be the URL the metadata was asked of
  if (metadata.issuer !== baseUrl || !metadata.authorization_endpoint || !metadata.token_endpoint) {
    throw new Error(`the authorization server metadata of ${baseUrl} is not for ${baseUrl}`);
  }
  return metadata as ServerMetadata;
};

/** The token endpoint's refusal; `oauthError` is its RFC 6749 §5.2 code when it sent one. */
export class TokenEndpointError extends Error {
  constructor(
    message: string,
    readonly oauthError: string | undefined,
  ) {
    super(message);
  }
}

/** A token endpoint request (RFC 6749 §4.1.3, §6) as a public client; the server's OAuth error as an Error. */
export const tokenRequest = async (
  tokenEndpoint: string,
  form: Record<string, string>,
): Promise<TokenResponse> => {
  const response = await fetch(tokenEndpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams(form),
  });
  const body = (await response.json().catch(() => ({}))) as Partial<TokenResponse> & {
    error?: string;
    error_description?: string;
  };
  if (!response.ok || !body.access_token) {
    throw new TokenEndpointError(
      `the token endpoint refused: ${body.error ?? `HTTP ${response.status}`}${body.error_description ? ` (${body.error_description})` : ""}`,
      body.error,
    );
  }
  return body as TokenResponse;
};

/** The stored form of a token response. */
export const toStoredLogin = (
  tokens: TokenResponse,
  context: Pick<StoredLogin, "base_url" | "client_id" | "token_endpoint" | "revocation_endpoint">,
  now: Date = new Date(),
): StoredLogin => ({
  ...context,
  access_token: tokens.access_token,
  ...(tokens.refresh_token ? { refresh_token: tokens.refresh_token } : {}),
  expires_at: new Date(now.getTime() + (tokens.expires_in ?? 600) * 1000).toISOString(),
  ...(tokens.scope ? { scope: tokens.scope } : {}),
});

/** Opens `url` in the user's browser when the platform has an opener; never required (the URL is printed too). */
const openBrowser = (url: string): void => {
  const [command, args] =
    process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["rundll32", ["url.dll,FileProtocolHandler", url]]
        : ["xdg-open", [url]];
  try {
    const child = spawn(command, args, { stdio: "ignore", detached: true });
    child.on("error", () => undefined);
    child.unref();
  } catch {
    // no opener: the printed URL is enough
  }
};

const page = (title: string, text: string) =>
  `<!doctype html><html lang="en"><meta charset="utf-8"><title>${title}</title>` +
  `<body style="font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto"><h1>${title}</h1><p>${text}</p></body></html>`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Waits on 127.0.0.1 for the authorization response; resolves with the code once `state` and `iss` match. */
const listenForCode = async ({
  state,
  issuer,
  timeoutMs,
}: {
  state: string;
  issuer: string;
  timeoutMs: number;
}): Promise<{ redirectUri: string; code: Promise<string>; close: () => void }> => {
  let settle!: { resolve: (code: string) => void; reject: (error: Error) => void };
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method !== "GET" || url.pathname !== BRIDGE_LOOPBACK_CALLBACK_PATH) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
      return;
    }
    // an answer for another attempt (or a forged one) is ignored: this attempt keeps waiting
    if (url.searchParams.get("state") !== state) {
      res
        .writeHead(400, { "content-type": "text/html; charset=utf-8" })
        .end(page("Bridge login", "This answer is not for the login in progress."));
      return;
    }
    const iss = url.searchParams.get("iss");
    if (iss !== null && iss !== issuer) {
      res
        .writeHead(400, { "content-type": "text/html; charset=utf-8" })
        .end(page("Bridge login failed", "The answer came from another authorization server."));
      settle.reject(new Error(`the authorization response came from ${iss}, not ${issuer} (RFC 9207)`));
      return;
    }
    const error = url.searchParams.get("error");
    const received = url.searchParams.get("code");
    if (error || !received) {
      const description = url.searchParams.get("error_description") ?? error ?? "no code";
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(page("Bridge login not completed", escapeHtml(description)));
      settle.reject(new Error(`the login was not completed: ${error ?? "no code"} (${description})`));
      return;
    }
    res
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(page("The bridge is signed in", "You can close this tab and go back to your MCP client."));
    settle.resolve(received);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const timer = setTimeout(
    () => settle.reject(new Error(`no answer from the browser within ${Math.round(timeoutMs / 1000)} s`)),
    timeoutMs,
  );
  const { port } = server.address() as AddressInfo;
  return {
    redirectUri: `http://127.0.0.1:${port}${BRIDGE_LOOPBACK_CALLBACK_PATH}`,
    code,
    close: () => {
      clearTimeout(timer);
      server.closeAllConnections();
      server.close();
    },
  };
};

/**
 * The whole login for the service at `baseUrl`; writes `file` and returns what it stored.
 * `onUrl` gets the authorization URL (print it); the browser opens it too unless `openUrl` is false.
 */
export const bridgeLogin = async ({
  baseUrl,
  file,
  onUrl,
  openUrl = true,
  timeoutMs = 600_000,
}: {
  baseUrl: string;
  file: string;
  onUrl: (url: string) => void;
  openUrl?: boolean;
  timeoutMs?: number;
}): Promise<StoredLogin> => {
  const server = await discoverAuthorizationServer(baseUrl);
  const clientId = bridgeClientId(baseUrl);
  const verifier = base64url(randomBytes(32));
  const state = base64url(randomBytes(16));
  const listener = await listenForCode({ state, issuer: server.issuer, timeoutMs });
  try {
    const url = new URL(server.authorization_endpoint);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: listener.redirectUri,
      scope: BRIDGE_LOGIN_SCOPE,
      state,
      code_challenge: base64url(createHash("sha256").update(verifier).digest()),
      code_challenge_method: "S256",
    }).toString();
    onUrl(url.href);
    if (openUrl) openBrowser(url.href);
    const code = await listener.code;
    const tokens = await tokenRequest(server.token_endpoint, {
      grant_type: "authorization_code",
      code,
      redirect_uri: listener.redirectUri,
      client_id: clientId,
      code_verifier: verifier,
    });
    const login = toStoredLogin(tokens, {
      base_url: baseUrl,
      client_id: clientId,
      token_endpoint: server.token_endpoint,
      ...(server.revocation_endpoint ? { revocation_endpoint: server.revocation_endpoint } : {}),
    });
    await writeLogin(file, login);
    return login;
  } finally {
    listener.close();
  }
};

/**
 * Revokes the stored login (RFC 7009; the refresh token, which revokes its whole family) and deletes the file.
 * Returns false when there was no login. The file goes even when the service cannot be reached (said on stderr by
 * the caller through the returned warning), so a logout always logs out this machine.
 */
export const bridgeLogout = async ({
  baseUrl,
  file,
}: {
  baseUrl: string;
  file: string;
}): Promise<{ hadLogin: boolean; revokeWarning?: string }> => {
  const login = await readLogin(file, baseUrl);
  if (!login) return { hadLogin: false };
  let revokeWarning: string | undefined;
  if (login.revocation_endpoint) {
    try {
      const response = await fetch(login.revocation_endpoint, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          token: login.refresh_token ?? login.access_token,
          token_type_hint: login.refresh_token ? "refresh_token" : "access_token",
          client_id: login.client_id,
        }),
      });
      if (!response.ok) revokeWarning = `the service answered HTTP ${response.status} to the revocation`;
    } catch (error) {
      revokeWarning = `the service could not be reached to revoke (${(error as Error).message})`;
    }
  } else revokeWarning = "the service has no revocation endpoint";
  await deleteLogin(file);
  return { hadLogin: true, ...(revokeWarning ? { revokeWarning } : {}) };
};
