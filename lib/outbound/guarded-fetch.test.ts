import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";

import { guardedFetch, isPublicAddress, OutboundError } from "./guarded-fetch";

// A loopback server stands in for remote hosts; `allowPrivate: true` lets the happy paths reach it.
let base = "";
const server = createServer((req, res) => {
  if (req.url === "/ok") res.writeHead(200, { "content-type": "application/json" }).end('{"a":1}');
  else if (req.url === "/redirect") res.writeHead(301, { location: "/ok" }).end();
  else if (req.url?.startsWith("/hops/")) {
    // /hops/N redirects N more times, then lands on /ok
    const left = Number(req.url.slice("/hops/".length));
    res.writeHead(302, { location: left <= 1 ? "/ok" : `/hops/${left - 1}` }).end();
  } else if (req.url === "/to-file") res.writeHead(302, { location: "file:///etc/passwd" }).end();
  else if (req.url === "/big") res.writeHead(200).end("x".repeat(10_000));
  else if (req.url === "/slow") return;
  else res.writeHead(404).end();
});

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
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
    "224.0.0.1",
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

test("private addresses are refused: literal IPs and names that resolve to them", async () => {
  assert.equal(await reasonOf(guardedFetch("https://127.0.0.1/x", strict)), "blocked_address");
  assert.equal(await reasonOf(guardedFetch("https://[::1]/x", strict)), "blocked_address");
  assert.equal(
    await reasonOf(guardedFetch("https://169.254.169.254/latest/meta-data", strict)),
    "blocked_address",
  );
  // `localhost` goes through DNS: the check inside the connection's lookup refuses it
  assert.equal(await reasonOf(guardedFetch("https://localhost/x", strict)), "blocked_address");
});

test("redirects are not followed; bodies over the cap and silent hosts are cut off", async () => {
  assert.equal(await reasonOf(guardedFetch(`${base}/redirect`, open)), "redirect");
  assert.equal(await reasonOf(guardedFetch(`${base}/big`, open)), "too_large");
  const started = Date.now();
  assert.equal(await reasonOf(guardedFetch(`${base}/slow`, { ...open, timeoutMs: 200 })), "timeout");
  assert.ok(Date.now() - started < 2000);
});

test("an unresolvable host is a dns failure", async () => {
  assert.equal(await reasonOf(guardedFetch("https://no-such-host.invalid/x", strict)), "dns");
});

test("maxRedirects: follows up to the limit, refuses one more, and re-checks every hop", async () => {
  const followed = await guardedFetch(`${base}/hops/3`, { ...open, maxRedirects: 3 });
  assert.equal(followed.status, 200);
  assert.equal(followed.url, `${base}/ok`);
  assert.equal(await reasonOf(guardedFetch(`${base}/hops/4`, { ...open, maxRedirects: 3 })), "redirect");
  // the hop target is checked like a fresh request: a file: URL is refused for its scheme
  assert.equal(await reasonOf(guardedFetch(`${base}/to-file`, { ...open, maxRedirects: 3 })), "scheme");
});
