import { generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import type { JWK } from "jose";

// What a shopping agent publishes so a store can trust it: a UCP platform profile at /.well-known/ucp declaring
// the capabilities it uses (businesses answer with the intersection, so one left out is left out of every
// response), the AP2 mandate capability and the public half of a freshly generated ES256 key in `signing_keys`
// (card completion needs both), and an order webhook receiver (the order capability's `config.webhook_url`) that
// answers 2xx and keeps what it received. Fine for local development and tests; a deployed agent serves the same
// document over https from its own domain.

export const UCP_VERSION = "2026-04-08";

export type AgentKey = {
  kid: string;
  /** The private ES256 JWK: signs mandates (and requests); never leaves the agent. */
  privateJwk: JWK;
  /** The public JWK (`kid`, `alg: ES256`, `use: sig`) published in signing_keys. */
  publicJwk: JWK;
};

/** A fresh ES256 (P-256) key pair under `kid`. */
export const generateAgentKey = (kid = `agent-${Date.now().toString(36)}`): AgentKey => {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return {
    kid,
    privateJwk: { ...(privateKey.export({ format: "jwk" }) as JWK), kid },
    publicJwk: { ...(publicKey.export({ format: "jwk" }) as JWK), kid, alg: "ES256", use: "sig" },
  };
};

/** The capabilities a shopping agent that buys with a card declares (each at UCP_VERSION). */
export const SHOPPING_CAPABILITIES = [
  "dev.ucp.shopping.catalog.search",
  "dev.ucp.shopping.catalog.lookup",
  "dev.ucp.shopping.cart",
  "dev.ucp.shopping.checkout",
  "dev.ucp.shopping.fulfillment",
  "dev.ucp.shopping.discount",
  "dev.ucp.shopping.buyer_consent",
  "dev.ucp.shopping.ap2_mandate",
] as const;

/** An agent (platform) profile: capabilities, the order webhook, the public signing keys. */
export const agentProfile = ({
  webhookUrl,
  signingKeys,
  capabilities = SHOPPING_CAPABILITIES,
}: {
  webhookUrl?: string;
  signingKeys: JWK[];
  capabilities?: readonly string[];
}) => ({
  ucp: {
    version: UCP_VERSION,
    capabilities: {
      ...Object.fromEntries(capabilities.map((name) => [name, [{ version: UCP_VERSION }]])),
      "dev.ucp.shopping.order": [
        { version: UCP_VERSION, ...(webhookUrl ? { config: { webhook_url: webhookUrl } } : {}) },
      ],
    },
  },
  signing_keys: signingKeys,
});

export type ReceivedWebhook = {
  method: string;
  /** The URL the store posted to, as published (what its signature covers). */
  url: string;
  path: string;
  headers: Record<string, string>;
  /** The raw body as received (verify signatures over these bytes, not over re-serialized JSON). */
  body: string;
  receivedAt: Date;
};

export type AgentProfileServer = {
  /** The profile URL to send in `UCP-Agent: profile="…"`. */
  profileUrl: string;
  /** Where the stores post order webhooks. */
  webhookUrl: string;
  key: AgentKey;
  /** Every webhook delivery received so far, oldest first. */
  webhooks: ReceivedWebhook[];
  /** The first delivery (received already or within `timeoutMs`) that `match` accepts; null after the timeout. */
  waitForWebhook: (
    match: (webhook: ReceivedWebhook) => boolean,
    timeoutMs?: number,
  ) => Promise<ReceivedWebhook | null>;
  close: () => Promise<void>;
};

const readBody = (req: IncomingMessage, limit: number): Promise<string | null> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on("end", () => resolve(size <= limit ? Buffer.concat(chunks).toString("utf8") : null));
    req.on("error", reject);
  });

/**
 * Serves the agent profile at `/.well-known/ucp` and receives order webhooks at `/webhooks/orders` (200 for each
 * delivery; 413 over 1 MB). Listens on `host:port` (default 127.0.0.1, any free port); `publicBaseUrl` names it as
 * the store reaches it when that differs (a tunnel, a container). Generates a key unless one is given.
 */
export const startAgentProfileServer = async ({
  host = "127.0.0.1",
  port = 0,
  publicBaseUrl,
  key = generateAgentKey(),
  capabilities,
  onWebhook,
}: {
  host?: string;
  port?: number;
  publicBaseUrl?: string;
  key?: AgentKey;
  capabilities?: readonly string[];
  onWebhook?: (webhook: ReceivedWebhook) => void;
} = {}): Promise<AgentProfileServer> => {
  const webhooks: ReceivedWebhook[] = [];
  const waiters = new Set<(webhook: ReceivedWebhook) => void>();
  let base = "";
  let profileJson = "";
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://agent").pathname;
    if (req.method === "GET" && path === "/.well-known/ucp") {
      res.writeHead(200, { "content-type": "application/json", "cache-control": "public, max-age=60" });
      res.end(profileJson);
      return;
    }
    if (req.method === "POST" && path === "/webhooks/orders") {
      readBody(req, 1_000_000).then(
        (body) => {
          if (body === null) {
            res.writeHead(413).end();
            return;
          }
          const headers = Object.fromEntries(
            Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]),
          );
          const webhook = {
            method: "POST",
            url: `${base}${req.url ?? path}`,
            path,
            headers,
            body,
            receivedAt: new Date(),
          };
          webhooks.push(webhook);
          onWebhook?.(webhook);
          for (const waiter of waiters) waiter(webhook);
          res.writeHead(200, { "content-type": "application/json" }).end('{"received":true}');
        },
        () => res.writeHead(400).end(),
      );
      return;
    }
    res.writeHead(404, { "content-type": "application/json" }).end('{"error":"not found"}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  base = (publicBaseUrl ?? `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`).replace(
    /\/+$/,
    "",
  );
  const webhookUrl = `${base}/webhooks/orders`;
  profileJson = JSON.stringify(
    agentProfile({ webhookUrl, signingKeys: [key.publicJwk], ...(capabilities ? { capabilities } : {}) }),
  );
  return {
    profileUrl: `${base}/.well-known/ucp`,
    webhookUrl,
    key,
    webhooks,
    waitForWebhook: (match, timeoutMs = 10_000) => {
      const already = webhooks.find(match);
      if (already) return Promise.resolve(already);
      return new Promise((resolve) => {
        const waiter = (webhook: ReceivedWebhook) => {
          if (!match(webhook)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(webhook);
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          resolve(null);
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
