import { createHash, createPublicKey, type JsonWebKey } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { createVerifier, httpbis } from "http-message-signatures";
import { parseDictionary } from "structured-headers";

// Test double: a platform's or merchant's webhook receiver on 127.0.0.1 that verifies every delivery the way a
// receiver outside this codebase would — RFC 9421 through the http-message-signatures library and the store's
// published JWK, and RFC 9530 Content-Digest recomputed from the raw bytes with node:crypto (none of our
// lib/httpsig code) — and records what it saw. `mode` scripts its answer.

export type ReceiverMode = "ok" | "down" | "redirect" | "huge" | "slow";

export type Received = {
  path: string;
  webhookId: string;
  /** The Idempotency-Key header (equal to the Webhook-Id). */
  idempotencyKey: string;
  timestamp: string;
  ucpAgent: string;
  /** The UCP 2026-01-11/2026-01-23 `Request-Signature` header (a detached JWS), when sent. */
  requestSignature?: string;
  body: string;
  verified: boolean;
  digestOk: boolean;
  covered: string[];
  answered: number;
};

export type WebhookReceiver = {
  url: (path?: string) => string;
  received: Received[];
  setMode: (mode: ReceiverMode) => void;
  /** The store key deliveries must verify against. */
  trust: (jwk: JsonWebKey) => void;
  close: () => Promise<void>;
};

const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });

const digestMatches = (header: string | undefined, body: Buffer): boolean => {
  if (!header) return false;
  const member = parseDictionary(header).get("sha-256");
  if (!member || !(member[0] instanceof ArrayBuffer)) return false;
  return Buffer.from(member[0]).equals(createHash("sha256").update(body).digest());
};

export const startWebhookReceiver = async (): Promise<WebhookReceiver> => {
  let mode: ReceiverMode = "ok";
  let trusted: JsonWebKey | null = null;
  const received: Received[] = [];
  let base = "";
  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]),
    );
    let verified = false;
    let covered: string[] = [];
    try {
      const input = parseDictionary(headers["signature-input"] ?? "");
      const first = [...input.values()][0];
      covered = Array.isArray(first?.[0]) ? first[0].map(([name]) => String(name)) : [];
      if (trusted) {
        const key = trusted;
        verified =
          (await httpbis.verifyMessage(
            {
              keyLookup: async (params) =>
                params.keyid === key.kid
                  ? {
                      id: String(key.kid),
                      algs: ["ecdsa-p256-sha256"],
                      verify: createVerifier(createPublicKey({ key, format: "jwk" }), "ecdsa-p256-sha256"),
                    }
                  : null,
              tolerance: 60,
            },
            { method: req.method ?? "POST", url: `${base}${req.url ?? "/"}`, headers },
          )) === true;
      }
    } catch {
      verified = false;
    }
    const answered = mode === "ok" || mode === "huge" ? 200 : mode === "redirect" ? 302 : 503;
    received.push({
      path: req.url ?? "/",
      webhookId: headers["webhook-id"] ?? "",
      idempotencyKey: headers["idempotency-key"] ?? "",
      timestamp: headers["webhook-timestamp"] ?? "",
      ucpAgent: headers["ucp-agent"] ?? "",
      ...(headers["request-signature"] ? { requestSignature: headers["request-signature"] } : {}),
      body: body.toString("utf8"),
      verified,
      digestOk: digestMatches(headers["content-digest"], body),
      covered,
      answered,
    });
    if (mode === "slow") return; // never answers: the sender's timeout must end it
    if (mode === "redirect") {
      res.writeHead(302, { location: `${base}/elsewhere` }).end();
      return;
    }
    if (mode === "huge") {
      res.writeHead(200, { "content-type": "text/plain" }).end("y".repeat(200_000));
      return;
    }
    res
      .writeHead(answered, { "content-type": "application/json" })
      .end(answered === 200 ? '{"ucp":{"version":"2026-04-08"}}' : '{"error":"down for maintenance"}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  server.unref();
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path = "/hooks") => `${base}${path}`,
    received,
    setMode: (m) => {
      mode = m;
    },
    trust: (jwk) => {
      trusted = jwk;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/**
 * Test double: a platform's UCP profile whose order capability declares `webhookUrl` (UCP: where the business
 * posts order webhooks). Returns its URL and a close function.
 */
export const servePlatformProfile = async (
  webhookUrl: string,
  { signingKeys }: { signingKeys?: Record<string, unknown>[] } = {},
): Promise<{ url: string; close: () => void }> => {
  const profile = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        ucp: {
          version: "2026-04-08",
          capabilities: {
            // a shopping platform: checkout with its extensions (UCP answers with the intersection) and orders
            ...Object.fromEntries(
              [
                "dev.ucp.shopping.cart",
                "dev.ucp.shopping.checkout",
                "dev.ucp.shopping.fulfillment",
                "dev.ucp.shopping.discount",
                "dev.ucp.shopping.buyer_consent",
              ].map((name) => [name, [{ version: "2026-04-08" }]]),
            ),
            "dev.ucp.shopping.order": [{ version: "2026-04-08", config: { webhook_url: webhookUrl } }],
            // a platform that completes card checkouts negotiates the AP2 mandates the stores require
            ...(signingKeys ? { "dev.ucp.shopping.ap2_mandate": [{ version: "2026-04-08" }] } : {}),
          },
        },
        // the platform's AP2 mandate keys (card completion), when it completes checkouts
        ...(signingKeys ? { signing_keys: signingKeys } : {}),
      }),
    );
  });
  await new Promise<void>((resolve) => profile.listen(0, "127.0.0.1", resolve));
  profile.unref();
  return {
    url: `http://127.0.0.1:${(profile.address() as AddressInfo).port}/.well-known/ucp`,
    close: () => profile.close(),
  };
};
