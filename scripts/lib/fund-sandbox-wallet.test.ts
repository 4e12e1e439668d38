import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { test } from "node:test";

import { fundTestWallet, TEST_WALLET_FUNDS } from "./fund-sandbox-wallet";

// `npm start` funds the demo's test wallet on the Sui sandbox while it sets up and builds, when its own event loop
// may not run for seconds: a keep-alive connection it reuses may be one the sandbox has closed in the meantime.
// These fake sandboxes answer /__admin/fund as the real one does, but close a connection the moment a second
// request arrives on it (what a request sent on a connection closed as idle meets), or drop the first connection
// unanswered: the funding must still complete, each coin type funded.

type Fake = { server: Server; url: string; funded: string[]; connections: number };

const fakeSandbox = async (
  misbehave: (socket: Socket, index: { connection: number; request: number }) => boolean,
): Promise<Fake> => {
  const fake: Fake = { server: createServer(), url: "", funded: [], connections: 0 };
  const requestsOn = new WeakMap<Socket, number>();
  fake.server.on("connection", (socket: Socket) => {
    fake.connections += 1;
    requestsOn.set(socket, 0);
  });
  fake.server.on("request", (req, res) => {
    const socket = req.socket;
    const request = (requestsOn.get(socket) ?? 0) + 1;
    requestsOn.set(socket, request);
    if (misbehave(socket, { connection: fake.connections, request })) {
      socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const { coinType } = JSON.parse(Buffer.concat(chunks).toString()) as { coinType: string };
      fake.funded.push(coinType);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ coins: [] }));
    });
  });
  fake.server.listen(0, "127.0.0.1");
  await once(fake.server, "listening");
  fake.url = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`;
  return fake;
};

const stop = async (fake: Fake): Promise<void> => {
  fake.server.closeAllConnections();
  fake.server.close();
  await once(fake.server, "close");
};

const EVERY_COIN = TEST_WALLET_FUNDS.map((f) => f.coinType);

test("a request meeting a connection the sandbox has closed: each funding goes on a connection of its own", async () => {
  const fake = await fakeSandbox((_socket, { request }) => request > 1);
  try {
    assert.match(await fundTestWallet(fake.url, "0xabc"), /funded the test wallet 0xabc/);
    assert.deepEqual(fake.funded, EVERY_COIN);
  } finally {
    await stop(fake);
  }
});

test("a connection dropped before its answer: the funding is sent again and completes", async () => {
  const fake = await fakeSandbox((_socket, { connection }) => connection === 1);
  try {
    assert.match(await fundTestWallet(fake.url, "0xabc"), /funded the test wallet/);
    assert.deepEqual(fake.funded, EVERY_COIN);
  } finally {
    await stop(fake);
  }
});

test("a sandbox that never answers: the failure is reported, after a bounded number of tries", async () => {
  const fake = await fakeSandbox(() => true);
  try {
    await assert.rejects(fundTestWallet(fake.url, "0xabc"), /fetch failed/);
    assert.equal(fake.funded.length, 0);
    assert.equal(fake.connections, 3);
  } finally {
    await stop(fake);
  }
});

test("a refusal is reported with the sandbox's answer", async () => {
  const server = createServer((_req, res) => {
    res.writeHead(400, { "content-type": "application/json" });
    res.end('{"error":"balances[0] must be a string of digits"}');
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await assert.rejects(fundTestWallet(url, "0xabc"), /refused to fund 0xabc \(400\): .*must be a string/);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
