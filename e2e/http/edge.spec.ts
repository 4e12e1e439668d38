import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import path from "node:path";

import { expect, test } from "@playwright/test";

// The edge of the built service on a real socket: what Next or Node answer before any route (a path that does
// not percent-decode, a trailing-slash 308, oversized headers) still carries the Request-Id and the UCP envelope;
// a chunked body over the limit gets 413 with Connection: close and the socket really closes (a pooled client
// must not send its next request into a connection that will never be read again); and the admin CLI refuses to
// open the embedded database the server holds.

const PORT = Number(process.env.E2E_PORT);
const AGENT = `http://127.0.0.1:${PORT}/demo/agent/.well-known/ucp`;
type ErrorBody = { code?: string; content?: string; messages: { code: string }[] };

const demoKey = (): string =>
  (
    JSON.parse(
      readFileSync(path.join(path.dirname(process.env.E2E_PGLITE_DIR!), "demo-platform-key.json"), "utf8"),
    ) as { key: string }
  ).key;

test("a path id that does not percent-decode (/orders/%FF) → 400 invalid_request in the envelope with Request-Id", async ({
  request,
}) => {
  const res = await request.get("/s/summit-trail-outfitters/orders/%FF", {
    headers: { "request-id": "edge-ff", "ucp-agent": `profile="${AGENT}"`, "x-api-key": demoKey() },
  });
  expect(res.status()).toBe(400);
  expect(res.headers()["content-type"]).toContain("application/json");
  expect(res.headers()["request-id"]).toBe("edge-ff");
  const body = (await res.json()) as ErrorBody;
  expect(body.code).toBe("invalid_request");
  expect(body.messages[0]?.code).toBe("invalid_request");
});

test("Next's own answers echo the Request-Id: the trailing-slash 308", async ({ request }) => {
  const res = await request.get("/ucp/oauth2/jwks/", {
    headers: { "request-id": "edge-308" },
    maxRedirects: 0,
  });
  expect(res.status()).toBe(308);
  expect(res.headers()["request-id"]).toBe("edge-308");
});

/** Writes raw bytes on one socket and collects what comes back until the server closes it (or `waitMs`). */
const rawExchange = (
  write: (socket: ReturnType<typeof connect>) => void,
  waitMs: number,
): Promise<{ text: string; closedAfterMs: number | null }> =>
  new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(PORT, "127.0.0.1");
    let text = "";
    let closedAfterMs: number | null = null;
    socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
    socket.on("error", () => undefined); // a reset while we still write is the server closing: fine
    socket.on("close", () => {
      closedAfterMs = Date.now() - started;
      clearTimeout(timer);
      resolve({ text, closedAfterMs });
    });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closedAfterMs });
    }, waitMs);
    socket.on("connect", () => write(socket));
  });

test("oversized headers → 431 with the Request-Id echoed", async () => {
  const { text } = await rawExchange((socket) => {
    socket.write(
      `GET /.well-known/ucp HTTP/1.1\r\nHost: x\r\nRequest-Id: edge-431\r\nX-Pad: ${"a".repeat(20_000)}\r\n\r\n`,
    );
  }, 5_000);
  expect(text).toMatch(/^HTTP\/1\.1 431 /);
  expect(text).toMatch(/\r\nRequest-Id: edge-431\r\n/i);
  expect(text).toContain('"code":"headers_too_large"');
});

test("a chunked body over 1 MiB → 413 with Connection: close, and the socket is closed, not left hanging", async ({
  request,
}) => {
  const before = await request.get("/s/summit-trail-outfitters/order-events", {
    headers: { "request-id": randomUUID(), "ucp-agent": `profile="${AGENT}"`, "x-api-key": demoKey() },
  });
  expect(before.status()).toBe(200);
  const chunk = "x".repeat(64 * 1024);
  const { text, closedAfterMs } = await rawExchange((socket) => {
    socket.write(
      "POST /s/summit-trail-outfitters/carts HTTP/1.1\r\nHost: x\r\nRequest-Id: edge-413\r\n" +
        `UCP-Agent: profile="${AGENT}"\r\nIdempotency-Key: ${randomUUID()}\r\nX-API-Key: ${demoKey()}\r\n` +
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n",
    );
    let sent = 0;
    const pump = () => {
      while (sent < 2 * 1024 * 1024 && !socket.destroyed) {
        sent += chunk.length;
        if (!socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`))
          return void socket.once("drain", pump);
      }
      if (socket.destroyed) return;
      // the end of the body, then a second request on the same (keep-alive) connection
      socket.write("0\r\n\r\nGET /.well-known/ucp HTTP/1.1\r\nHost: x\r\nRequest-Id: edge-after\r\n\r\n");
    };
    pump();
  }, 5_000);
  expect(text).toMatch(/^HTTP\/1\.1 413 /);
  expect(text.toLowerCase()).toContain("\r\nconnection: close\r\n");
  expect(text.toLowerCase()).toContain("\r\nrequest-id: edge-413\r\n");
  // closed by the server promptly (the old behaviour: kept open, the next request hung ~6 s, then a reset)
  expect(closedAfterMs).not.toBeNull();
  expect(closedAfterMs!).toBeLessThan(3_000);
  // nothing was created by the refused call, and the service keeps answering on new connections
  const after = await request.get("/s/summit-trail-outfitters/order-events", {
    headers: { "request-id": randomUUID(), "ucp-agent": `profile="${AGENT}"`, "x-api-key": demoKey() },
  });
  expect(after.status()).toBe(200);
});

test("a second opener (migrations) refuses in one sentence, before opening anything, while the server holds the embedded database", async () => {
  // (the admin CLI goes through the server's admin socket instead: e2e/http/admin-beside-server.spec.ts)
  const root = process.cwd();
  // the embedded database the server holds (never a DATABASE_URL from the shell)
  const env: NodeJS.ProcessEnv = { ...process.env, PGLITE_DIR: process.env.E2E_PGLITE_DIR! };
  delete env.DATABASE_URL;
  const { code, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
    (resolve) => {
      const child = spawn(path.join(root, "node_modules/.bin/tsx"), ["scripts/db-migrate.ts"], {
        cwd: root,
        env,
      });
      let out = "";
      let err = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      child.stderr.on("data", (d: Buffer) => (err += d.toString()));
      child.on("exit", (exitCode) => resolve({ code: exitCode, stdout: out, stderr: err }));
    },
  );
  expect(code).toBe(1);
  expect(stderr).toMatch(
    /^Migrating the database failed: The embedded database .* is in use by the server \(pid \d+\): stop the server first/m,
  );
});

// The store REST routes are answered by their handler straight from the HTTP server (scripts/lib/direct-routes.ts).
// Seen from outside: none of the RSC headers Next adds to what it routes, gzip from 1 KiB when asked, a small
// answer sent as it is with its length; everything else still through Next.
test("a shopping call skips Next's request handling: gzip from 1 KiB when asked, small answers plain", async ({
  request,
}) => {
  const big = await request.post("/catalog/search", {
    headers: { "request-id": "edge-direct-1", "accept-encoding": "gzip" },
    data: { query: "jacket", pagination: { limit: 10 } },
  });
  expect(big.status()).toBe(200);
  expect(big.headers()["request-id"]).toBe("edge-direct-1");
  expect(big.headers()["content-encoding"]).toBe("gzip");
  expect(big.headers()["vary"]).toBe("Accept-Encoding");
  expect(((await big.json()) as { products: unknown[] }).products.length).toBeGreaterThan(0);

  const small = await request.get("/s/summit-trail-outfitters/carts/cart_missing", {
    headers: { "request-id": "edge-direct-2", "ucp-agent": `profile="${AGENT}"`, "x-api-key": demoKey() },
  });
  // an unknown cart is a business outcome: 200 with a not_found message, well under 1 KiB
  expect(small.status()).toBe(200);
  expect(((await small.json()) as ErrorBody).messages[0]?.code).toBe("not_found");
  expect(small.headers()["content-encoding"]).toBeUndefined();
  expect(Number(small.headers()["content-length"])).toBe((await small.body()).length);
  expect(small.headers()["vary"]).toBe("Accept-Encoding");

  // a route Next still answers (OAuth discovery) carries its RSC Vary: the difference is the direct path
  const viaNext = await request.get("/.well-known/oauth-authorization-server");
  expect(viaNext.status()).toBe(200);
  expect(viaNext.headers()["vary"]).toContain("rsc");
});
