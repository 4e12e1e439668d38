#!/usr/bin/env -S node --import tsx
// `npm run --silent bridge -- --stdio|--http …` (or the built bin, `agent-commerce-bridge --stdio|--http …`, from
// `npm run build:bridge`): the bridge as its own process, a client of any deployment of the
// service (DECISIONS.md B11). Over stdio (an MCP client starts it; stdout is the protocol, so logs go to stderr)
// or over Streamable HTTP on --port. Its identity: --key-file (created 0600 on first use) and
// --agent-profile-url, the public URL where that key's profile is published; without one it serves the profile
// itself (HTTP: at /.well-known/ucp on --public-url; stdio: on a loopback port, which only a service on the same
// machine can fetch — a live deployment needs a profile URL it can reach).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";

import { startAgentProfileServer } from "@agent-commerce/agent-kit";
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
import { createBridgeServer } from "@/lib/bridge/server";
import { parseCidrList } from "@/lib/config/cidr";

const USAGE = `usage (from a clone; the built bin takes the same options: agent-commerce-bridge --stdio …):
  npm run --silent bridge -- --stdio --base-url <url> [--api-key <key>] [--bearer <token>]
                                      [--agent-profile-url <url>] [--key-file <path>]
  npm run --silent bridge -- --http --port <port> [--host 127.0.0.1] --base-url <url>
                                      [--public-url <url>] [--agent-profile-url <url>] [--key-file <path>]
  --base-url  the service (default $BASE_URL, else http://127.0.0.1:3000)
  --api-key   stdio: the platform key sent as X-API-Key (default $API_KEY); over HTTP each caller sends its own
  --bearer    stdio: a buyer access token for the account tools and crypto purchases (default $BRIDGE_BEARER)
  --key-file  the bridge's ES256 mandate key (default .data/bridge-standalone-key.json)`;

const { values } = parseArgs({
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
if (values.stdio === values.http) fail("choose one transport: --stdio or --http");

const baseUrl = (values["base-url"] ?? process.env.BASE_URL ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
const key = await loadOrCreateBridgeKey(
  path.resolve(values["key-file"] ?? ".data/bridge-standalone-key.json"),
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
  let agentProfileUrl = values["agent-profile-url"];
  if (!agentProfileUrl) {
    const profile = await startAgentProfileServer({ key });
    agentProfileUrl = profile.profileUrl;
    console.error(
      `bridge: serving its agent profile at ${agentProfileUrl} (pass --agent-profile-url in live mode)`,
    );
  }
  const options: BridgeOptions = { baseUrl, agentProfileUrl, key };
  const apiKey = values["api-key"] ?? process.env.API_KEY;
  const bearer = values.bearer ?? process.env.BRIDGE_BEARER;
  const server = createBridgeServer(
    bridgeContext(options, {
      ...(apiKey ? { apiKey } : {}),
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    }),
  );
  await server.connect(new StdioServerTransport());
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
  server.listen(port, host, () => {
    console.error(
      `bridge: ${publicUrl}/mcp (Streamable HTTP), service ${baseUrl}, profile ${options.agentProfileUrl}`,
    );
  });
}
