import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";

import { admitRawRequest } from "@/lib/http/raw-request";
import { CLIENT_ADDRESS_HEADER, clientAddressStamp } from "@/lib/rate-limit/client-address";

import { callApp } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The client address over a real socket: a loopback HTTP server does what scripts/serve.ts does before Next
// (admitRawRequest stamps the socket's peer address, deleting the client's own value of that header) and hands
// the request to the route handlers. A client that is not a trusted proxy cannot pick its budget by sending
// X-Forwarded-For, Forwarded or our internal header; a trusted proxy's X-Forwarded-For is believed.

const ANONYMOUS = 3;
let server: Server;
let origin: string;

before(async () => {
  process.env.RATE_LIMIT_ANONYMOUS = String(ANONYMOUS);
  process.env.TRUSTED_PROXIES = "10.0.0.0/8";
  await prepareTestDatabase();
  server = createServer((req, res) => {
    if (!admitRawRequest(req, res)) return;
    const headers = Object.fromEntries(
      Object.entries(req.headers).flatMap(([name, value]) =>
        typeof value === "string" ? [[name, value]] : [],
      ),
    );
    callApp(req.method ?? "GET", req.url ?? "/", { headers })
      .then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
        res.end(Buffer.from(await response.arrayBuffer()));
      })
      .catch((error: unknown) => {
        res.writeHead(500).end(String(error));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await closeTestDatabase();
});

test("spoofed X-Forwarded-For, Forwarded and our own header from an untrusted client: all counted as its socket address", async () => {
  const statuses: number[] = [];
  for (let i = 0; i < ANONYMOUS + 1; i++) {
    const response = await fetch(`${origin}/.well-known/ucp`, {
      headers: {
        "x-forwarded-for": `203.0.113.${i}`,
        forwarded: `for=198.51.100.${i}`,
        [CLIENT_ADDRESS_HEADER]: `192.0.2.${i}`,
      },
    });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  assert.deepEqual(statuses, [200, 200, 200, 429]);
});

test("a trusted proxy's X-Forwarded-For is believed: each client behind it has its own budget", async () => {
  const viaProxy = (client: string) =>
    callApp("GET", "/.well-known/ucp", {
      headers: {
        [CLIENT_ADDRESS_HEADER]: clientAddressStamp("10.20.30.40"),
        "x-forwarded-for": `6.6.6.6, ${client}`,
      },
    });
  for (let i = 0; i < ANONYMOUS; i++) assert.equal((await viaProxy("203.0.113.77")).status, 200);
  const refused = await viaProxy("203.0.113.77");
  assert.equal(refused.status, 429);
  // the spoofed left-most hop changed nothing: the budget was the real client's, not 6.6.6.6's or the proxy's
  assert.equal((await viaProxy("203.0.113.78")).status, 200);
  const proxyItself = await callApp("GET", "/.well-known/ucp", {
    headers: { [CLIENT_ADDRESS_HEADER]: clientAddressStamp("10.20.30.40") },
  });
  assert.equal(proxyItself.status, 200);
});
