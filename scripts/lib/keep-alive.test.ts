import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { test } from "node:test";

import { closeIdleConnectionsAfterReads } from "./keep-alive";

// A request sent on a keep-alive connection well within the server's keep-alive time must be answered even when
// the server's process stalls until that time has passed (the stall here: this process blocks its own event loop,
// after the client has written its request). Short keep-alive times keep the test quick.

const KEEP_ALIVE_MS = 300;

const serve = async (fixed: boolean) => {
  const server = createServer({ keepAliveTimeout: KEEP_ALIVE_MS, keepAliveTimeoutBuffer: 0 }, (_req, res) => {
    res.writeHead(200, { "content-type": "text/plain", "content-length": "2" });
    res.end("ok");
  });
  if (fixed) closeIdleConnectionsAfterReads(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return server;
};

const blockFor = (ms: number) => {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // a synchronous step of the server's process (the test's stall)
  }
};

/**
 * One answered request, then after `pauseMs` a second one on the same connection, then (if `stallMs`) this
 * process stalls past the keep-alive time: what the client got (the statuses, and how the connection ended).
 */
const exchange = (port: number, pauseMs: number, stallMs: number) =>
  new Promise<{ statuses: string[]; ended: string | null }>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    let ended: string | null = null;
    const statuses = () => [...text.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => m[1]!);
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ statuses: statuses(), ended });
    };
    const timer = setTimeout(finish, stallMs + KEEP_ALIVE_MS * 4);
    socket.on("error", (error: NodeJS.ErrnoException) => (ended = error.code ?? error.message));
    socket.on("close", () => {
      ended ??= "closed";
      finish();
    });
    const request = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      if (statuses().length === 1 && !text.includes("sent-second")) {
        text += "sent-second";
        // written after this turn's reads (setImmediate), then the process stalls at once: when it runs again,
        // the request is in the socket, unread, and the keep-alive time has passed
        setTimeout(
          () =>
            setImmediate(() => {
              socket.write(request);
              if (stallMs > 0) blockFor(stallMs);
            }),
          pauseMs,
        );
      }
      if (statuses().length === 2) finish();
    });
    socket.on("connect", () => socket.write(request));
  });

test("a request that arrived while the server stalled past its keep-alive time is answered", async () => {
  const server = await serve(true);
  try {
    const { port } = server.address() as AddressInfo;
    const got = await exchange(port, KEEP_ALIVE_MS / 3, KEEP_ALIVE_MS * 2);
    assert.deepEqual(got.statuses, ["200", "200"], `the second request answered (ended: ${got.ended})`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test("without it, the stalled server resets the connection with the request unread (what this guards against)", async () => {
  const server = await serve(false);
  try {
    const { port } = server.address() as AddressInfo;
    const got = await exchange(port, KEEP_ALIVE_MS / 3, KEEP_ALIVE_MS * 2);
    assert.deepEqual(got.statuses, ["200"]);
    assert.equal(got.ended, "ECONNRESET");
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test("an idle connection is still closed after the keep-alive time", async () => {
  const server = await serve(true);
  try {
    const { port } = server.address() as AddressInfo;
    const socket = connect(port, "127.0.0.1");
    await once(socket, "connect");
    socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    await once(socket, "data");
    const started = Date.now();
    socket.resume();
    await once(socket, "close");
    const after = Date.now() - started;
    assert.ok(after >= KEEP_ALIVE_MS - 50 && after < KEEP_ALIVE_MS + 1_000, `closed after ${after} ms`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
