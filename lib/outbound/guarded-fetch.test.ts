import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import { after, before, test } from "node:test";

import {
  guardedFetch,
  isAllowedTarget,
  isPublicAddress,
  OutboundError,
  poolFor,
  type Resolve,
} from "./guarded-fetch";

// A loopback server stands in for remote hosts; `allowPrivate: true` lets the happy paths reach it. It counts
// the connections it accepts: every refusal below must leave that count where it was.
let base = "";
let port = 0;
let connections = 0;
let requests = 0;
/** Requests per connection: /hangup-reused hangs up on a connection's second request and later ones. */
const served = new WeakMap<object, number>();
const server = createServer((req, res) => {
  requests++;
  served.set(req.socket, (served.get(req.socket) ?? 0) + 1);
  if (req.url === "/hangup-reused") {
    if (served.get(req.socket)! > 1) req.socket.destroy();
    else res.writeHead(200).end("fresh");
    return;
  }
  if (req.url === "/ok") res.writeHead(200, { "content-type": "application/json" }).end('{"a":1}');
  else if (req.url === "/redirect") res.writeHead(301, { location: "/ok" }).end();
  else if (req.url?.startsWith("/hops/")) {
    // /hops/N redirects N more times, then lands on /ok
    const left = Number(req.url.slice("/hops/".length));
    res.writeHead(302, { location: left <= 1 ? "/ok" : `/hops/${left - 1}` }).end();
  } else if (req.url === "/to-file") res.writeHead(302, { location: "file:///etc/passwd" }).end();
  else if (req.url === "/big") res.writeHead(200).end("x".repeat(10_000));
  else if (req.url === "/slow") return;
  else if (req.url === "/to-loopback") res.writeHead(302, { location: `http://127.0.0.1:${port}/ok` }).end();
  else if (req.url === "/hangup") req.socket.destroy();
  else if (req.url === "/bad-location") res.writeHead(302, { location: "http://[::1" }).end();
  else res.writeHead(404).end();
});

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
server.on("connection", () => connections++);
after(() => {
  server.closeAllConnections();
  server.close();
});

const reasonOf = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e: unknown) => (e instanceof OutboundError ? e.reason : `unexpected ${String(e)}`),
  );
const open = { allowPrivate: true, maxBytes: 1024, timeoutMs: 1000 };
const strict = { ...open, allowPrivate: false };

test("isPublicAddress: only global unicast", () => {
  for (const a of ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111"]) assert.equal(isPublicAddress(a), true, a);
  for (const a of [
    "127.0.0.1",
    "10.1.2.3",
    "172.16.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "::1",
    "fc00::1",
    "fe80::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::127.0.0.1", // IPv4-compatible
    "::",
    "64:ff9b::7f00:1", // NAT64 of 127.0.0.1
    "2002:7f00:1::1", // 6to4 of 127.0.0.1
    "224.0.0.1",
    "ff02::1",
    "255.255.255.255",
    "not-an-ip",
  ]) {
    assert.equal(isPublicAddress(a), false, a);
  }
});

test("fetches a body when allowed", async () => {
  const res = await guardedFetch(`${base}/ok`, open);
  assert.equal(res.status, 200);
  assert.equal(res.body, '{"a":1}');
});

test("http is refused unless private targets are allowed (test mode)", async () => {
  assert.equal(await reasonOf(guardedFetch(`${base}/ok`, strict)), "scheme");
  assert.equal(await reasonOf(guardedFetch("ftp://example.com/x", open)), "scheme");
});

test("this host's own addresses are refused even when public", () => {
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? [])
      assert.equal(isAllowedTarget(entry.address, false), false, entry.address);
  }
  assert.equal(isAllowedTarget("8.8.8.8", false), true);
  assert.equal(isAllowedTarget("127.0.0.1", true), true);
});

// Every spelling of loopback the URL parser accepts, on http (allowed scheme-wise only with allowPrivate) and on
// https: none may open a connection to the counting server.
const LOOPBACK_SPELLINGS = [
  "127.0.0.1",
  "2130706433", // decimal
  "0177.0.0.1", // octal
  "0x7f.1", // hex, short
  "0x7f000001",
  "127.1", // short
  "[::1]",
  "[::ffff:127.0.0.1]",
  "[::ffff:7f00:1]",
  "[::127.0.0.1]",
  "[0:0:0:0:0:ffff:127.0.0.1]",
  "0.0.0.0",
  "0",
  "[::]",
  "localhost",
];

test("every spelling of loopback is refused as private_address, with no connection made", async () => {
  const before = connections;
  for (const host of LOOPBACK_SPELLINGS) {
    for (const scheme of ["https", "http"]) {
      const url = `${scheme}://${host}:${port}/ok`;
      const reason = await reasonOf(guardedFetch(url, { ...strict }));
      // plain http is refused for its scheme before the address is even looked at: both are refusals
      assert.ok(
        reason === "private_address" || (scheme === "http" && reason === "scheme"),
        `${url}: ${reason}`,
      );
    }
    const reason = await reasonOf(guardedFetch(`https://${host}:${port}/ok`, strict));
    assert.equal(reason, "private_address", host);
  }
  assert.equal(connections, before, "a refused spelling reached the server");
});

test("private, link-local, CGNAT and metadata addresses are refused", async () => {
  for (const host of [
    "10.0.0.1",
    "172.16.5.4",
    "192.168.0.1",
    "169.254.169.254",
    "100.64.0.1",
    "[fd00::1]",
    "[fe80::1]",
    "224.0.0.1",
  ]) {
    assert.equal(await reasonOf(guardedFetch(`https://${host}/x`, strict)), "private_address", host);
  }
});

test("a name that resolves to loopback (custom resolver, also among public answers) is refused; no connection", async () => {
  const before = connections;
  const resolve: Resolve = async (name) =>
    name === "rebind.example"
      ? [{ address: "127.0.0.1", family: 4 }]
      : [
          { address: "93.184.215.14", family: 4 },
          { address: "::1", family: 6 },
        ];
  for (const name of ["rebind.example", "mixed.example"]) {
    const reason = await reasonOf(guardedFetch(`https://${name}:${port}/ok`, { ...strict, resolve }));
    assert.equal(reason, "private_address", name);
  }
  // the resolver is asked once per connection and the socket goes to what it answered: a name the resolver maps
  // to the loopback server is reached only when private targets are allowed
  const toServer: Resolve = async () => [{ address: "127.0.0.1", family: 4 }];
  const res = await guardedFetch(`http://agent.example:${port}/ok`, { ...open, resolve: toServer });
  assert.equal(res.status, 200);
  assert.equal(connections, before + 1);
});

test("a redirect to loopback is refused: not followed by default, and a followed hop is checked afresh", async () => {
  const before = requests;
  assert.equal(await reasonOf(guardedFetch(`${base}/to-loopback`, open)), "redirect");
  assert.equal(requests, before + 1, "only the redirecting URL was asked");
  // hops are checked like fresh requests (the maxRedirects test below shows a file: hop refused); a loopback hop
  // under the public-only policy is the literal check of fetchOnce, exercised by the spellings above
});

test("redirects are not followed; bodies over the cap and silent hosts are cut off", async () => {
  assert.equal(await reasonOf(guardedFetch(`${base}/redirect`, open)), "redirect");
  assert.equal(await reasonOf(guardedFetch(`${base}/big`, open)), "too_large");
  const started = Date.now();
  assert.equal(await reasonOf(guardedFetch(`${base}/slow`, { ...open, timeoutMs: 200 })), "timeout");
  assert.ok(Date.now() - started < 2000);
});

test("failures carry a class and our own sentence, never the socket's text", async () => {
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => assert.fail("expected a failure"),
      (e: unknown) => e as OutboundError,
    );
  const unresolvable = await failure(guardedFetch("https://no-such-host.invalid/x", strict));
  assert.equal(unresolvable.reason, "refused");
  const hangup = await failure(guardedFetch(`${base}/hangup`, open));
  assert.equal(hangup.reason, "refused");
  const closed = await failure(guardedFetch("http://127.0.0.1:9/x", open));
  assert.equal(closed.reason, "refused");
  // an open port that hangs up and a closed port read the same
  assert.equal(hangup.message.replace(String(port), "N"), closed.message.replace(":9", ":N"));
  for (const e of [unresolvable, hangup, closed]) {
    assert.doesNotMatch(e.message, /ECONN|ENOTFOUND|EAI_|hang up|getaddrinfo|socket/i, e.message);
  }
});

test("maxRedirects: follows up to the limit, refuses one more, and re-checks every hop", async () => {
  const followed = await guardedFetch(`${base}/hops/3`, { ...open, maxRedirects: 3 });
  assert.equal(followed.status, 200);
  assert.equal(followed.url, `${base}/ok`);
  assert.equal(await reasonOf(guardedFetch(`${base}/hops/4`, { ...open, maxRedirects: 3 })), "redirect");
  // the hop target is checked like a fresh request: a file: URL is refused for its scheme
  assert.equal(await reasonOf(guardedFetch(`${base}/to-file`, { ...open, maxRedirects: 3 })), "scheme");
  // a Location that is not a URL is a refused redirect, not a crash
  assert.equal(
    await reasonOf(guardedFetch(`${base}/bad-location`, { ...open, maxRedirects: 3 })),
    "redirect",
  );
});

test("connections are kept alive within a policy and a resolver, never handed to another", async () => {
  const toServer: Resolve = async () => [{ address: "127.0.0.1", family: 4 }];
  const url = `http://pooled.example:${port}/ok`;
  const before = connections;
  for (let i = 0; i < 3; i++) {
    assert.equal((await guardedFetch(url, { ...open, resolve: toServer })).status, 200);
  }
  assert.equal(connections, before + 1, "three requests, one connection");
  // the same name under the public-only policy: the loopback socket of the other pool is not reused; a new
  // connection is checked, and refused before it exists
  assert.equal(
    await reasonOf(guardedFetch(url, { ...strict, resolve: toServer })),
    "scheme",
    "http is refused",
  );
  assert.equal(
    await reasonOf(guardedFetch(`https://pooled.example:${port}/ok`, { ...strict, resolve: toServer })),
    "private_address",
  );
  // another resolver (here one that knows no such name) gets its own pool: the name is resolved again
  const unknown: Resolve = async () => {
    throw new Error("ENOTFOUND");
  };
  assert.equal(await reasonOf(guardedFetch(url, { ...open, resolve: unknown })), "refused");
  assert.equal(connections, before + 1, "no connection was made for the refusals");
});

test("a kept-alive socket the server closed as it was reused: sent again once on a new connection", async () => {
  const toServer: Resolve = async () => [{ address: "127.0.0.1", family: 4 }];
  const url = `http://reused.example:${port}/hangup-reused`;
  const before = { connections, requests };
  assert.equal((await guardedFetch(url, { ...open, resolve: toServer })).body, "fresh");
  // the second request goes out on the kept socket, which the server drops unanswered; the retry is answered
  assert.equal((await guardedFetch(url, { ...open, resolve: toServer })).body, "fresh");
  assert.deepEqual(
    { connections: connections - before.connections, requests: requests - before.requests },
    {
      connections: 2,
      requests: 3,
    },
  );
});

test("each policy has pools of its own, whose sockets are opened through that policy's check", async () => {
  const toLoopback: Resolve = async () => [{ address: "127.0.0.1", family: 4 }];
  const open = poolFor(toLoopback, true);
  const strict = poolFor(toLoopback, false);
  assert.equal(poolFor(toLoopback, true), open, "one pool per policy and resolver");
  assert.notEqual(open.http, strict.http);
  assert.notEqual(open.https, strict.https);
  const lookUp = (pools: typeof open) =>
    new Promise<string>((resolve) =>
      pools.lookup("agent.example", {}, (error, address) =>
        resolve(error ? ((error as unknown as OutboundError).reason ?? "error") : String(address)),
      ),
    );
  assert.equal(await lookUp(open), "127.0.0.1");
  assert.equal(await lookUp(strict), "private_address");
  for (const agent of [open.http, open.https, strict.http, strict.https]) {
    assert.equal(
      (agent as unknown as { options: { lookup: unknown } }).options.lookup,
      agent === open.http || agent === open.https ? open.lookup : strict.lookup,
    );
  }
});
