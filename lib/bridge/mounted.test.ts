import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { gzipSync } from "node:zlib";

import { identityEncodingFetch } from "./mounted";

// The mounted bridge calls its own service: it asks for answers uncompressed, and keeps every other header its
// transport set (the signature, the keys, the agent profile).

test("the mounted bridge's calls ask for identity encoding and keep the transport's headers", async () => {
  const seen: { encoding?: string; apiKey?: string; agent?: string }[] = [];
  const body = JSON.stringify({ ok: true, pad: "x".repeat(4096) });
  const server = createServer((req, res) => {
    seen.push({
      encoding: req.headers["accept-encoding"],
      apiKey: req.headers["x-api-key"] as string,
      agent: req.headers["ucp-agent"] as string,
    });
    // as the service's writer: gzip when the client takes it
    if (/gzip/.test(req.headers["accept-encoding"] ?? "")) {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(gzipSync(body));
    } else {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/s/shop/mcp`;
    const init = {
      method: "POST",
      headers: new Headers({ "x-api-key": "ak_test", "ucp-agent": 'profile="https://agent.example/p"' }),
      body: "{}",
    };
    const mounted = await identityEncodingFetch(url, init);
    assert.equal(mounted.headers.get("content-encoding"), null);
    assert.equal(((await mounted.json()) as { ok: boolean }).ok, true);
    // fetch's own default, for comparison: the service would have compressed this answer
    await (await fetch(url, init)).arrayBuffer();
    assert.deepEqual(seen[0], {
      encoding: "identity",
      apiKey: "ak_test",
      agent: 'profile="https://agent.example/p"',
    });
    assert.match(seen[1]!.encoding ?? "", /gzip/);
  } finally {
    server.close();
  }
});
