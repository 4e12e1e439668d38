import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { gzipSync } from "node:zlib";

import { createUcpTransport } from "@agent-commerce/agent-kit";

import { mountedServiceFetch } from "./mounted";

// The mounted bridge calls its own service over node:http: it asks for answers uncompressed, keeps every header
// its transport set (the signature, the keys, the agent profile), reuses its connection, and fails as fetch does
// when no answer comes (the transport's retry depends on that).

const serve = async (handler: (req: IncomingMessage, body: string, res: ServerResponse) => void) => {
  let connections = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => handler(req, body, res));
  });
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
};

test("the mounted bridge's calls ask for identity encoding, keep the transport's headers and reuse the connection", async () => {
  const seen: Record<string, unknown>[] = [];
  const answer = JSON.stringify({ ok: true, pad: "x".repeat(4096) });
  const server = await serve((req, body, res) => {
    seen.push({
      method: req.method,
      path: req.url,
      encoding: req.headers["accept-encoding"],
      apiKey: req.headers["x-api-key"],
      agent: req.headers["ucp-agent"],
      length: req.headers["content-length"],
      body,
    });
    res.writeHead(201, { "content-type": "application/json", "request-id": "req_1" });
    res.end(answer);
  });
  try {
    const init = {
      method: "POST",
      headers: new Headers({ "x-api-key": "ak_test", "ucp-agent": 'profile="https://agent.example/p"' }),
      body: '{"name":"café"}',
    };
    for (let i = 0; i < 3; i++) {
      const response = await mountedServiceFetch(`${server.url}/s/shop/mcp?x=1`, init);
      assert.equal(response.status, 201);
      assert.equal(response.ok, true);
      assert.equal(response.headers.get("request-id"), "req_1");
      assert.equal(response.headers.get("content-length"), null);
      assert.deepEqual(await response.json(), JSON.parse(answer));
    }
    assert.deepEqual(seen[0], {
      method: "POST",
      path: "/s/shop/mcp?x=1",
      encoding: "identity",
      apiKey: "ak_test",
      agent: 'profile="https://agent.example/p"',
      // bytes, not characters
      length: "16",
      body: '{"name":"café"}',
    });
    // three calls, one connection
    assert.equal(seen.length, 3);
    assert.equal(server.connections(), 1);
  } finally {
    server.close();
  }
});

test("an answer compressed anyway is read decoded; error statuses and empty answers come back as they are", async () => {
  const server = await serve((req, _body, res) => {
    if (req.url === "/gzip") {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      res.end(gzipSync(JSON.stringify({ compressed: true })));
    } else if (req.url === "/empty") {
      res.writeHead(204);
      res.end();
    } else {
      res.writeHead(503, { "retry-after": "1", "content-type": "application/json" });
      res.end(JSON.stringify({ code: "unavailable" }));
    }
  });
  try {
    const gzip = await mountedServiceFetch(`${server.url}/gzip`, { method: "GET" });
    assert.equal(gzip.headers.get("content-encoding"), null);
    assert.deepEqual(await gzip.json(), { compressed: true });
    const empty = await mountedServiceFetch(`${server.url}/empty`, { method: "DELETE" });
    assert.equal(empty.status, 204);
    assert.equal(await empty.text(), "");
    const down = await mountedServiceFetch(`${server.url}/down`, { method: "GET" });
    assert.equal(down.status, 503);
    assert.equal(down.ok, false);
    assert.equal(down.headers.get("retry-after"), "1");
    assert.deepEqual(await down.json(), { code: "unavailable" });
  } finally {
    server.close();
  }
});

test("no answer rejects: a refused connection, and a call whose signal fires first", async () => {
  const server = await serve(() => {
    // never answers
  });
  const closed = await serve(() => {});
  const refusedUrl = closed.url;
  closed.close();
  try {
    await assert.rejects(mountedServiceFetch(`${refusedUrl}/x`, { method: "GET" }), /ECONNREFUSED/);
    await assert.rejects(
      mountedServiceFetch(`${server.url}/slow`, {
        method: "POST",
        body: "{}",
        signal: AbortSignal.timeout(50),
      }),
      (error: Error) => error.name === "AbortError" || error.name === "TimeoutError",
    );
    await assert.rejects(mountedServiceFetch("ftp://127.0.0.1/x", { method: "GET" }), /http or https/);
  } finally {
    server.close();
  }
});

test("a lost answer, before or during its body: the transport sends the call again with the same idempotency key", async () => {
  for (const loss of ["before the answer", "in the middle of its body"] as const) {
    const keys: unknown[] = [];
    const server = await serve((req, body, res) => {
      const call = JSON.parse(body) as {
        id: string;
        params: { arguments: { meta: Record<string, unknown> } };
      };
      keys.push(call.params.arguments.meta["idempotency-key"]);
      if (keys.length === 1) {
        // the service did the work; its answer never arrives whole
        if (loss === "in the middle of its body") {
          res.writeHead(200, { "content-type": "application/json", "content-length": "400" });
          res.write('{"jsonrpc":"2.0","id":"');
        }
        setImmediate(() => req.socket.destroy());
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          jsonrpc: "2.0",
          id: call.id,
          result: { structuredContent: { ucp: { status: "success" }, id: "ord_1" }, isError: false },
        }),
      );
    });
    try {
      const transport = createUcpTransport({
        baseUrl: server.url,
        fetch: mountedServiceFetch,
        retry: { sleep: async () => {} },
      });
      const answer = await transport.tool(
        "/s/shop/mcp",
        "complete_checkout",
        { id: "chk_1" },
        { mutates: true },
      );
      assert.deepEqual(answer.structuredContent, { ucp: { status: "success" }, id: "ord_1" }, loss);
      assert.equal(keys.length, 2, loss);
      assert.equal(typeof keys[0], "string", loss);
      assert.equal(keys[1], keys[0], `${loss}: the retry carries the first attempt's key`);
    } finally {
      server.close();
    }
  }
});
