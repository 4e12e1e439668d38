import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";

import { findSandbox, findService, NoServiceError } from "../../examples/shared/local-service";
import { findFreePort } from "./free-port";
import { REPO_ROOT } from "./paths";
import { readServerFile, sameFilesPrefix, serverFilePath, type ServerFile } from "./server-file";

// How the examples find the server `npm start` runs and its sandboxes without fixed ports, and what they say when
// what they find no longer answers (a killed server's file, a sandbox URL from an earlier start).

const dir = mkdtempSync(path.join(tmpdir(), "acs-server-file-"));
const servers: Server[] = [];
after(() => {
  servers.forEach((s) => s.close());
  rmSync(dir, { recursive: true, force: true });
});

const listening = async (): Promise<string> => {
  const server = createServer((_req, res) => res.end("ok"));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};
const deadUrl = async () => `http://127.0.0.1:${await findFreePort()}`;

/** A data dir of its own with the server.json `content` beside it (none when null): the env naming it. */
const dataDir = (name: string, content: Partial<ServerFile> | null): Record<string, string> => {
  const env = { PGLITE_DIR: path.join(dir, name, "pglite") };
  if (content) {
    mkdirSync(path.join(dir, name), { recursive: true });
    const file = { pid: 4242, started_at: "2026-01-01T00:00:00.000Z", sandboxes: {}, ...content };
    writeFileSync(serverFilePath(env), JSON.stringify(file));
  }
  return env;
};

const rejection = async (promise: Promise<unknown>): Promise<string> => {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof NoServiceError, String(error));
    return error.message;
  }
  assert.fail("expected a NoServiceError");
};

test("server.json sits beside the data dir, as the demo key does; .data/ for PostgreSQL and in-memory PGlite", () => {
  assert.equal(serverFilePath({}), path.join(REPO_ROOT, ".data/server.json"));
  assert.equal(serverFilePath({ PGLITE_DIR: "/srv/acs/pglite" }), "/srv/acs/server.json");
  assert.equal(serverFilePath({ PGLITE_DIR: "tmp/x/pglite" }), path.join(REPO_ROOT, "tmp/x/server.json"));
  assert.equal(serverFilePath({ PGLITE_DIR: "memory://" }), path.join(REPO_ROOT, ".data/server.json"));
  assert.equal(
    serverFilePath({ PGLITE_DIR: "/srv/acs/pglite", DATABASE_URL: "postgres://h/db" }),
    serverFilePath({}),
  );
  // what another shell sets to find the files: nothing for the defaults
  assert.equal(sameFilesPrefix({}), "");
  assert.equal(sameFilesPrefix({ PGLITE_DIR: ".data/pglite" }), "");
  assert.equal(
    sameFilesPrefix({ PGLITE_DIR: "/tmp/my data/pglite", DEMO_KEY_FILE: "/tmp/k.json" }),
    "PGLITE_DIR='/tmp/my data/pglite' DEMO_KEY_FILE=/tmp/k.json ",
  );
});

test("written whole by the server, removed when it exits", async () => {
  const env = dataDir("exits", null);
  const file = serverFilePath(env);
  const script = `
    import { writeServerFile } from "./scripts/lib/server-file.ts";
    writeServerFile(${JSON.stringify(file)}, { base_url: "http://127.0.0.1:1", sandboxes: { SUI_SANDBOX_URL: "http://127.0.0.1:2" } });
    console.log("written");
    setTimeout(() => process.exit(0), 300);`;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
  const written = readServerFile(file);
  assert.equal(written?.base_url, "http://127.0.0.1:1");
  assert.equal(written?.pid, child.pid);
  assert.deepEqual(written?.sandboxes, { SUI_SANDBOX_URL: "http://127.0.0.1:2" });
  await new Promise((resolve) => child.once("exit", resolve));
  assert.equal(existsSync(file), false);
});

test("the examples find the recorded server and its sandbox on whatever ports they got", async () => {
  const base = await listening();
  const sui = await listening();
  const env = dataDir("live", { base_url: `${base}/`, sandboxes: { SUI_SANDBOX_URL: sui } });
  const service = await findService(undefined, env);
  assert.equal(service.baseUrl, base);
  assert.equal(await findSandbox(service, "SUI_SANDBOX_URL", "Sui sandbox", env), sui);
  // BASE_URL naming that same server still uses its sandboxes
  const named = await findService(base, env);
  assert.equal(await findSandbox(named, "SUI_SANDBOX_URL", "Sui sandbox", env), sui);
});

test("a server that was killed (its file left behind): a message naming the URL and what to do", async () => {
  const dead = await deadUrl();
  const env = dataDir("killed", { base_url: dead, sandboxes: { SUI_SANDBOX_URL: await deadUrl() } });
  const message = await rejection(findService(undefined, env));
  assert.match(message, new RegExp(`^No server answers at ${dead} \\(recorded by npm start \\(pid 4242, `));
  assert.match(message, /it has stopped; start it with npm start$/);
});

test("a BASE_URL nothing answers at, and no server at all", async () => {
  const dead = await deadUrl();
  assert.match(
    await rejection(findService(dead, dataDir("given", null))),
    new RegExp(`^No server answers at ${dead} \\(BASE_URL or the argument\\); start it with npm start`),
  );
  if (
    await fetch("http://127.0.0.1:3000/healthz").then(
      () => false,
      () => true,
    )
  ) {
    assert.match(
      await rejection(findService(undefined, dataDir("none", null))),
      /^No running server found: .*server\.json does not exist .* nothing answers at http:\/\/127\.0\.0\.1:3000; start it with npm start/,
    );
  }
});

test("an old SUI_SANDBOX_URL (the sandbox of an earlier start): refused before any purchase, saying what to do", async () => {
  const base = await listening();
  const sui = await listening();
  const old = await deadUrl();
  const env = dataDir("restarted", { base_url: base, sandboxes: { SUI_SANDBOX_URL: sui } });
  const service = await findService(undefined, env);
  const message = await rejection(
    findSandbox(service, "SUI_SANDBOX_URL", "Sui sandbox", { ...env, SUI_SANDBOX_URL: old }),
  );
  assert.match(
    message,
    new RegExp(`^No Sui sandbox answers at ${old} \\(SUI_SANDBOX_URL\\): npm start gives it a new port`),
  );
  assert.match(message, /unset SUI_SANDBOX_URL to use the one the running server recorded in /);
  // and a recorded sandbox that is gone while the server answers (it was started apart)
  const gone = dataDir("sandbox-gone", { base_url: base, sandboxes: { SUI_SANDBOX_URL: old } });
  assert.match(
    await rejection(findSandbox(await findService(undefined, gone), "SUI_SANDBOX_URL", "Sui sandbox", gone)),
    new RegExp(`^No Sui sandbox answers at ${old} \\(recorded by npm start`),
  );
});
