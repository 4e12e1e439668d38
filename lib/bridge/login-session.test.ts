import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";

import { loginSession } from "./login-session";
import { loginFile, writeLogin, type StoredLogin } from "./login-store";

// The stored login of `bridge login` in use: refreshed before it expires, under the file's lock, so bridges sharing
// one login never present the same (single-use, rotating) refresh token twice. The token endpoint is a local
// server that behaves as ours does: each refresh token works once, a reused one is invalid_grant.

const tokenServer = async () => {
  const valid = new Set(["rt-0"]);
  let issued = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const form = new URLSearchParams(body);
      const presented = form.get("refresh_token") ?? "";
      if (form.get("grant_type") !== "refresh_token" || !valid.delete(presented)) {
        res.writeHead(400, { "content-type": "application/json" }).end('{"error":"invalid_grant"}');
        return;
      }
      issued += 1;
      valid.add(`rt-${issued}`);
      // slow enough that two bridges refreshing at once overlap
      setTimeout(() => {
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({
            access_token: `at-${issued}`,
            refresh_token: `rt-${issued}`,
            expires_in: 600,
            token_type: "Bearer",
          }),
        );
      }, 100);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`,
    issued: () => issued,
    close: () => server.close(),
  };
};

const expiredLogin = (tokenEndpoint: string): StoredLogin => ({
  base_url: "http://127.0.0.1:3000",
  client_id: "http://127.0.0.1:3000/bridge/client-metadata.json",
  token_endpoint: tokenEndpoint,
  access_token: "at-0",
  refresh_token: "rt-0",
  expires_at: new Date(Date.now() - 1000).toISOString(),
});

test("two bridges sharing an expired login refresh once, under the lock, and both use the new token", async () => {
  const server = await tokenServer();
  try {
    const file = loginFile("http://127.0.0.1:3000", mkdtempSync(path.join(tmpdir(), "bridge-login-")));
    const login = expiredLogin(server.url);
    await writeLogin(file, login);
    const logs: string[] = [];
    const a = loginSession({ file, login, log: (l) => logs.push(l) });
    const b = loginSession({ file, login, log: (l) => logs.push(l) });
    assert.equal(a.authorization(), "Bearer at-0");
    await Promise.all([a.ensureFresh(), b.ensureFresh()]);
    assert.equal(server.issued(), 1, logs.join("\n"));
    assert.equal(a.authorization(), "Bearer at-1");
    assert.equal(b.authorization(), "Bearer at-1");
    const stored = JSON.parse(readFileSync(file, "utf8")) as StoredLogin;
    assert.equal(stored.refresh_token, "rt-1");
    assert.ok(Date.parse(stored.expires_at) > Date.now());
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(path.dirname(file)).mode & 0o777, 0o700);
    // fresh: no further refresh
    await a.ensureFresh();
    assert.equal(server.issued(), 1);
  } finally {
    server.close();
  }
});

test("a refused refresh (revoked login) drops the bearer and says to log in again; an unreachable service keeps it", async () => {
  const server = await tokenServer();
  try {
    const file = loginFile("http://127.0.0.1:3000", mkdtempSync(path.join(tmpdir(), "bridge-login-")));
    const revoked = { ...expiredLogin(server.url), refresh_token: "rt-revoked" };
    await writeLogin(file, revoked);
    const logs: string[] = [];
    const session = loginSession({ file, login: revoked, log: (l) => logs.push(l) });
    await session.ensureFresh();
    assert.equal(session.authorization(), undefined);
    assert.match(logs.join("\n"), /invalid_grant.*bridge login/);

    const down = { ...expiredLogin("http://127.0.0.1:9/token") };
    await writeLogin(file, down);
    const kept = loginSession({ file, login: down, log: (l) => logs.push(l) });
    await kept.ensureFresh();
    assert.equal(kept.authorization(), "Bearer at-0");
  } finally {
    server.close();
  }
});
