import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, IncomingMessage, ServerResponse } from "node:http";
import { connect, Socket, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import { gunzipSync, gzipSync } from "node:zlib";

import { knownBytes } from "@/lib/core/known-body";

import {
  directRoutes,
  entriesOf,
  gzipOptionsFor,
  matchEntry,
  smallBodyOf,
  webRequestOf,
} from "./direct-routes";

// Which requests the HTTP server answers by calling a shopping route's handler itself, and the Request it hands
// that handler: everything else, and anything Next would first decode, redirect or normalise, stays with Next.

const MANIFEST: Record<string, string> = {
  "/s/[store_slug]/carts/[id]/route": "/s/[store_slug]/carts/[id]",
  // listed after the dynamic one on purpose: the static segment must still win
  "/s/[store_slug]/carts/mine/route": "/s/[store_slug]/carts/mine",
  "/s/[store_slug]/carts/route": "/s/[store_slug]/carts",
  "/s/[store_slug]/checkout-sessions/[id]/complete/route": "/s/[store_slug]/checkout-sessions/[id]/complete",
  "/catalog/search/route": "/catalog/search",
  "/s/[store_slug]/[...path]/route": "/s/[store_slug]/[...path]",
  "/s/[store_slug]/mcp/route": "/s/[store_slug]/mcp",
  "/mcp/route": "/mcp",
  "/bridge/mcp/route": "/bridge/mcp",
  "/s/[store_slug]/cart/[token]/page": "/s/[store_slug]/cart/[token]",
  "/ucp/oauth2/token/route": "/ucp/oauth2/token",
  "/s/[store_slug]/stripe/webhook/route": "/s/[store_slug]/stripe/webhook",
  "/merchant/v1/stores/[store_slug]/[...path]/route": "/merchant/v1/stores/[store_slug]/[...path]",
};

const pageOf = (pathname: string): string | null =>
  matchEntry(entriesOf(MANIFEST), pathname)?.entry.page ?? null;

test("only the store REST routes, the store's, the global and the bridge's MCP and the Stripe webhook are taken: no catch-all, page, bridge metadata or OAuth route", () => {
  assert.deepEqual(
    entriesOf(MANIFEST)
      .map((e) => e.page)
      .sort(),
    [
      "/bridge/mcp/route",
      "/catalog/search/route",
      "/mcp/route",
      "/s/[store_slug]/carts/[id]/route",
      "/s/[store_slug]/carts/mine/route",
      "/s/[store_slug]/carts/route",
      "/s/[store_slug]/checkout-sessions/[id]/complete/route",
      "/s/[store_slug]/mcp/route",
      "/s/[store_slug]/stripe/webhook/route",
    ],
  );
  assert.equal(pageOf("/s/shop/mcp"), "/s/[store_slug]/mcp/route");
  assert.equal(pageOf("/mcp"), "/mcp/route");
  assert.equal(pageOf("/bridge/mcp"), "/bridge/mcp/route");
  assert.equal(pageOf("/bridge/mcp/extra"), null);
  assert.equal(pageOf("/s/shop/bridge/mcp"), null);
  assert.equal(pageOf("/s/shop/mcp/extra"), null);
  assert.equal(pageOf("/s/shop/cart/tok_1"), null);
  assert.equal(pageOf("/s/shop/anything/else"), null);
  assert.equal(pageOf("/ucp/oauth2/token"), null);
  assert.equal(pageOf("/merchant/v1/stores/shop/orders"), null);
  assert.equal(pageOf("/s/shop/stripe/webhook"), "/s/[store_slug]/stripe/webhook/route");
});

test("a path's params, and a static segment before a dynamic one whatever the manifest's order", () => {
  const match = matchEntry(entriesOf(MANIFEST), "/s/summit-trail/checkout-sessions/chk_A1-b_2/complete");
  assert.equal(match?.entry.page, "/s/[store_slug]/checkout-sessions/[id]/complete/route");
  assert.deepEqual(match?.params, { store_slug: "summit-trail", id: "chk_A1-b_2" });
  assert.equal(pageOf("/s/shop/carts/mine"), "/s/[store_slug]/carts/mine/route");
  assert.equal(pageOf("/s/shop/carts/cart_1"), "/s/[store_slug]/carts/[id]/route");
  assert.equal(pageOf("/catalog/search"), "/catalog/search/route");
});

test("what Next would decode, redirect or normalise first is left to Next", () => {
  for (const pathname of [
    "/s/shop/carts/", // trailing slash: Next's 308
    "/s//carts", // empty segment
    "/s/shop/carts/%41bc", // percent-encoding: Next decodes it (or answers 400)
    "/s/shop/carts/..", // dot segments: URL parsing removes them
    "/s/shop/carts/.",
    "/s/shop/carts/a b",
    "/S/shop/carts", // another path
  ]) {
    assert.equal(pageOf(pathname), null, pathname);
  }
});

const requestOf = (headers: Record<string, string>, url = "/s/shop/carts?x=1"): IncomingMessage => {
  const socket = new Socket();
  Object.defineProperty(socket, "remoteAddress", { value: "10.1.2.3" });
  const req = new IncomingMessage(socket);
  req.method = "GET";
  req.url = url;
  req.headers = headers;
  return req;
};

test("the Request carries the URL Next builds (this server's host and port, not the Host header)", () => {
  const request = webRequestOf(requestOf({ host: "evil.example" }), { host: "127.0.0.1", port: 3000 });
  assert.equal(request.url, "http://127.0.0.1:3000/s/shop/carts?x=1");
  const v6 = webRequestOf(requestOf({}), { host: "::1", port: 8080 });
  assert.equal(v6.url, "http://[::1]:8080/s/shop/carts?x=1");
  const behindTls = webRequestOf(requestOf({ "x-forwarded-proto": "https" }), { host: "0.0.0.0", port: 80 });
  assert.equal(behindTls.url, "https://0.0.0.0:80/s/shop/carts?x=1");
});

test("the X-Forwarded-* headers Next adds when absent, and the client's own when sent", () => {
  const added = webRequestOf(requestOf({ host: "shop.example:3000", "request-id": "r1" }), {
    host: "127.0.0.1",
    port: 3000,
  }).headers;
  assert.equal(added.get("x-forwarded-host"), "shop.example:3000");
  assert.equal(added.get("x-forwarded-port"), "3000");
  assert.equal(added.get("x-forwarded-proto"), "http");
  assert.equal(added.get("x-forwarded-for"), "10.1.2.3");
  assert.equal(added.get("request-id"), "r1");
  const kept = webRequestOf(requestOf({ "x-forwarded-for": "203.0.113.9", "x-forwarded-proto": "https" }), {
    host: "127.0.0.1",
    port: 3000,
  }).headers;
  assert.equal(kept.get("x-forwarded-for"), "203.0.113.9");
  assert.equal(kept.get("x-forwarded-proto"), "https");
});

test("a small body whose length is declared is read whole before the handler; a big, chunked or absent one is not", async () => {
  const seen: string[] = [];
  let arrived: () => void = () => undefined;
  const server = createServer((req, res) => {
    const small = smallBodyOf(req);
    void (small ?? Promise.resolve(null)).then((body) => {
      seen.push(body === null ? "streamed" : body === "gone" ? "gone" : `read ${body.toString()}`);
      arrived();
      if (body !== "gone") res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    await fetch(base, { method: "POST", body: '{"line_items":[]}' });
    await fetch(base);
    const chunked = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("{}"));
        controller.close();
      },
    });
    await fetch(base, { method: "POST", body: chunked, duplex: "half" } as RequestInit);
    await fetch(base, { method: "PUT", body: "x".repeat(64 * 1024 + 1) });
    // a client that leaves halfway through its body
    const gone = new Promise<void>((resolve) => (arrived = resolve));
    const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
    socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"half":');
    setTimeout(() => socket.destroy(), 50);
    await gone;
    assert.deepEqual(seen, ['read {"line_items":[]}', "streamed", "streamed", "streamed", "gone"]);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test("a body read whole reaches the handler's Request as its known bytes", async () => {
  const req = requestOf({ "content-type": "application/json" });
  req.method = "POST";
  const request = webRequestOf(req, { host: "127.0.0.1", port: 3000 }, Buffer.from('{"a":1}'));
  assert.equal(new TextDecoder().decode(knownBytes(request)), '{"a":1}');
  assert.equal(await request.text(), '{"a":1}');
  assert.equal(knownBytes(webRequestOf(requestOf({}), { host: "127.0.0.1", port: 3000 })), undefined);
});

test("a build it cannot read (no manifest, or a route module of another shape) leaves every request to Next", async () => {
  const root = mkdtempSync(path.join(tmpdir(), "direct-routes-"));
  try {
    const req = requestOf({});
    const res = new ServerResponse(req);
    assert.equal(directRoutes(root, { host: "127.0.0.1", port: 3000 })(req, res), false);
    mkdirSync(path.join(root, ".next"));
    writeFileSync(path.join(root, ".next/app-path-routes-manifest.json"), JSON.stringify(MANIFEST));
    const answered = directRoutes(root, { host: "127.0.0.1", port: 3000 })(req, res);
    assert.notEqual(answered, false, "a route of the manifest is matched");
    assert.equal(await answered, false, "its compiled module is missing: Next answers");
    assert.equal(res.headersSent, false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("an answer's gzip has a window sized to the answer and gives zlib's default output byte for byte", () => {
  // text hard to compress whose first 100 bytes come again at its end: a window shorter than the answer (less the
  // 262 bytes deflate keeps ahead) misses them
  let seed = 7;
  const noise = (length: number) =>
    Buffer.from(
      Array.from({ length }, () => {
        seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
        return String.fromCharCode(33 + (seed % 90));
      }).join(""),
    );
  for (const length of [1024, 1800, 4000, 16_000, 32_000, 32_507, 40_000, 200_000]) {
    const start = noise(100);
    const body = Buffer.concat([start, noise(length - 200), start]);
    const options = gzipOptionsFor(body.length);
    const sized = gzipSync(body, options);
    assert.deepEqual(gunzipSync(sized), body);
    assert.deepEqual(sized, gzipSync(body, { level: options.level }), `${length} bytes`);
    if (length <= 16_000)
      assert.ok(options.windowBits! < 15, `${length} bytes: window ${options.windowBits}`);
  }
});
