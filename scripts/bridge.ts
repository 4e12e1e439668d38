#!/usr/bin/env -S node --import tsx
// `npm run --silent bridge -- --stdio|--http …` (or the built bin, `agent-commerce-bridge --stdio|--http …`, from
// `npm run build:bridge`): the bridge as its own process, a client of any deployment of the
// service (DECISIONS.md B11). Over stdio (an MCP client starts it; stdout is the protocol, so logs go to stderr)
// or over Streamable HTTP on --port. Its identity: --key-file (created 0600 on first use; default in the user's
// config directory) and
// --agent-profile-url, the public URL where that key's profile is published; without one it serves the profile
// itself (HTTP: at /.well-known/ucp on --public-url; stdio: on a loopback port, which only a service on the same
// machine can fetch — a live deployment needs a profile URL it can reach).
// It ends with its client (lib/bridge/process-lifecycle.ts): end of stdin, SIGTERM/SIGINT/SIGHUP or its parent's
// death end it within about a second. `bridge login` / `bridge logout` keep a buyer's bearer for a base URL in the
// user's config directory (lib/bridge/login.ts); a stdio bridge without --bearer uses that login and refreshes it.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";

import { startAgentProfileServer, type Credentials } from "@agent-commerce/agent-kit";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

import {
  bridgeContext,
  handleBridgeMcp,
  standaloneCallerAddress,
  type BridgeOptions,
} from "@/lib/bridge/http";
import {
  bridgeProfile,
  bridgeProtectedResourceMetadata,
  bridgeProtectedResourceMetadataUrl,
  loadOrCreateBridgeKey,
} from "@/lib/bridge/identity";
import { bridgeLogin, bridgeLogout } from "@/lib/bridge/login";
import { loginSession, type LoginSession } from "@/lib/bridge/login-session";
import { bridgeConfigDir, loginFile, readLogin } from "@/lib/bridge/login-store";
import {
  endWithClient,
  SHUTDOWN_GRACE_MS,
  trackInFlight,
  type InFlight,
} from "@/lib/bridge/process-lifecycle";
import { createBridgeServer } from "@/lib/bridge/server";
import { parseCidrList } from "@/lib/config/cidr";

const USAGE = `usage (from a clone; the built bin takes the same options: agent-commerce-bridge --stdio …):
  npm run --silent bridge -- --stdio --base-url <url> [--api-key <key>] [--bearer <token>]
                                      [--agent-profile-url <url>] [--key-file <path>]
  npm run --silent bridge -- --http --port <port> [--host 127.0.0.1] --base-url <url>
                                      [--public-url <url>] [--agent-profile-url <url>] [--key-file <path>]
  npm run --silent bridge -- login [--base-url <url>] [--no-browser]
  npm run --silent bridge -- logout [--base-url <url>]
  --base-url  the service (default $BASE_URL, else http://127.0.0.1:3000)
  --api-key   stdio: the platform key sent as X-API-Key (default $API_KEY); over HTTP each caller sends its own
  --bearer    stdio: a buyer access token for the account tools and crypto purchases (default $BRIDGE_BEARER;
              without one, the login \`bridge login\` stored for --base-url, refreshed as it expires)
  --key-file  the bridge's ES256 mandate key (default bridge-key.json in the config directory below)
  login       signs a buyer in through the service's consent page (a loopback redirect, PKCE) and stores the
              tokens 0600 under the user's config directory (AGENT_COMMERCE_BRIDGE_CONFIG overrides it);
              --no-browser only prints the URL to open
  logout      revokes the stored login for --base-url and deletes it`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    stdio: { type: "boolean" },
    http: { type: "boolean" },
    port: { type: "string" },
    host: { type: "string" },
    "base-url": { type: "string" },
    "public-url": { type: "string" },
    "api-key": { type: "string" },
    bearer: { type: "string" },
    "agent-profile-url": { type: "string" },
    "key-file": { type: "string" },
    "no-browser": { type: "boolean" },
    help: { type: "boolean" },
  },
});

const fail = (message: string): never => {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
};

if (values.help) {
  console.error(USAGE);
  process.exit(0);
}
const baseUrl = (values["base-url"] ?? process.env.BASE_URL ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
const [command, ...extra] = positionals;
if (extra.length > 0 || (command !== undefined && command !== "login" && command !== "logout")) {
  fail(`unknown command: ${positionals.join(" ")}`);
}

if (command === "login") {
  try {
    const login = await bridgeLogin({
      baseUrl,
      file: loginFile(baseUrl),
      openUrl: !values["no-browser"],
      onUrl: (url) => console.error(`bridge: to sign in, open this URL in your browser:\n\n  ${url}\n`),
    });
    console.error(
      `bridge: signed in to ${baseUrl} (${login.scope ?? "purchase:complete"}); the token is in ${loginFile(baseUrl)}`,
    );
    process.exit(0);
  } catch (error) {
    console.error(`bridge: login failed: ${(error as Error).message}`);
    process.exit(1);
  }
}
if (command === "logout") {
  const { hadLogin, revokeWarning } = await bridgeLogout({ baseUrl, file: loginFile(baseUrl) });
  if (revokeWarning) console.error(`bridge: ${revokeWarning}; the local login is deleted anyway`);
  console.error(hadLogin ? `bridge: signed out of ${baseUrl}` : `bridge: no stored login for ${baseUrl}`);
  process.exit(0);
}

if (values.stdio === values.http) fail("choose one transport: --stdio or --http");

// the config directory, not the working directory: an MCP client starts the bridge from anywhere (often `/`)
const key = await loadOrCreateBridgeKey(
  values["key-file"] ? path.resolve(values["key-file"]) : path.join(bridgeConfigDir(), "bridge-key.json"),
);

const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > 1_000_000) req.destroy(new Error("body over 1 MB"));
      else chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });

const send = async (res: ServerResponse, response: Response) => {
  res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
  res.end(Buffer.from(await response.arrayBuffer()));
};

if (values.stdio) {
  // installed first: a client that leaves while the bridge is still starting ends it too
  const closers: (() => Promise<void>)[] = [];
  const live: { inFlight?: InFlight } = {}; // set once connected; the shutdown may come before
  endWithClient({
    watchStdin: true,
    shutdown: async () => {
      live.inFlight?.stopAccepting();
      await live.inFlight?.settled(SHUTDOWN_GRACE_MS);
      await Promise.allSettled(closers.map((close) => close()));
    },
  });
  let agentProfileUrl = values["agent-profile-url"];
  if (!agentProfileUrl) {
    const profile = await startAgentProfileServer({ key });
    closers.push(profile.close);
    agentProfileUrl = profile.profileUrl;
    console.error(
      `bridge: serving its agent profile at ${agentProfileUrl} (pass --agent-profile-url in live mode)`,
    );
  }
  const options: BridgeOptions = { baseUrl, agentProfileUrl, key };
  const apiKey = values["api-key"] ?? process.env.API_KEY;
  const bearer = values.bearer ?? process.env.BRIDGE_BEARER;
  let session: LoginSession | undefined;
  if (!bearer) {
    const file = loginFile(baseUrl);
    const stored = await readLogin(file, baseUrl);
    if (stored) {
      session = loginSession({ file, login: stored });
      await session.ensureFresh();
      console.error(`bridge: buyer-bound calls use the login stored for ${baseUrl} (bridge login)`);
    }
  }
  const context = bridgeContext(options, {
    ...(apiKey ? { apiKey } : {}),
    ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
  });
  const stored = session;
  // the stored login's bearer is read at each call: a silent refresh replaces it between calls
  const credentials: Credentials = stored
    ? {
        ...context.credentials,
        get authorization() {
          return stored.authorization();
        },
      }
    : context.credentials;
  const server = createBridgeServer({ ...context, credentials });
  closers.push(() => server.close());
  const transport = new StdioServerTransport();
  await server.connect(transport);
  live.inFlight = trackInFlight(transport, stored?.ensureFresh);
  console.error(`bridge: stdio, service ${baseUrl}`);
} else {
  const port = Number(values.port ?? fail("--http needs --port"));
  const host = values.host ?? "127.0.0.1";
  const publicUrl = (values["public-url"] ?? `http://${host}:${port}`).replace(/\/+$/, "");
  // the bridge's own proxies, whose X-Forwarded-For it believes (the service believes the bridge's Forwarded only
  // when the bridge's address is in the service's TRUSTED_PROXIES)
  const trustedProxies =
    parseCidrList(process.env.TRUSTED_PROXIES ?? "") ??
    fail("TRUSTED_PROXIES must be a comma-separated list of CIDRs or IP addresses");
  const options: BridgeOptions = {
    baseUrl,
    agentProfileUrl: values["agent-profile-url"] ?? `${publicUrl}/.well-known/ucp`,
    key,
    challengeMetadataUrl: bridgeProtectedResourceMetadataUrl(publicUrl),
  };
  const server = createServer((req, res) => {
    const pathname = new URL(req.url ?? "/", publicUrl).pathname;
    const respond = async () => {
      if (req.method === "GET" && pathname === "/.well-known/ucp") return Response.json(bridgeProfile(key));
      if (req.method === "GET" && pathname === "/.well-known/oauth-protected-resource/mcp") {
        return Response.json(
          bridgeProtectedResourceMetadata({ bridgeUrl: publicUrl, authorizationServer: baseUrl }),
        );
      }
      if (pathname === "/mcp") {
        const body = req.method === "POST" ? await readBody(req) : undefined;
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers)) {
          if (typeof value === "string") headers.set(name, value);
        }
        const request = new Request(`${publicUrl}/mcp`, {
          method: req.method ?? "GET",
          headers,
          ...(body ? { body: new Uint8Array(body) } : {}),
        });
        // the caller as this socket saw it (behind the bridge's TRUSTED_PROXIES), never its own X-Forwarded-For
        return handleBridgeMcp(request, {
          ...options,
          callerAddress: () => standaloneCallerAddress(req.socket.remoteAddress, headers, trustedProxies),
        });
      }
      return Response.json({ error: "not found" }, { status: 404 });
    };
    respond().then(
      (response) => send(res, response),
      (error: unknown) => {
        console.error("bridge: request failed", error);
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end('{"error":"internal error"}');
      },
    );
  });
  endWithClient({
    watchStdin: false,
    shutdown: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
  server.listen(port, host, () => {
    console.error(
      `bridge: ${publicUrl}/mcp (Streamable HTTP), service ${baseUrl}, profile ${options.agentProfileUrl}`,
    );
  });
}
