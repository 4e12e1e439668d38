import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { expect, test } from "@playwright/test";

import { descendantsOf } from "../../scripts/bench/flow-driver";
import { buildBridge } from "../../scripts/build-bridge";

// The stand-alone bridge ends with its client (README "The bridge"): as an MCP client runs it — the README's
// mcpServers command under the official SDK's StdioClientTransport, whose close() ends stdin and waits 2 s before
// SIGTERM — no process of its tree is left; the built bin ends within a second on end of input (/dev/null), on
// SIGTERM and SIGINT (a call still waiting on the service is abandoned, the exit is clean), and when its parent
// dies while something else still holds its stdin. None of these needs the service: the bridge points at a port
// nothing answers on, or at a server that never answers.

const ROOT = path.resolve(import.meta.dirname, "../..");
const NO_SERVICE = "http://127.0.0.1:9";

let bin = "";
let workDir = "";

test.beforeAll(async () => {
  workDir = mkdtempSync(path.join(tmpdir(), "bridge-lifecycle-"));
  // beside the repository's node_modules (the bin keeps npm packages external), one file per worker
  bin = await buildBridge(path.join(ROOT, "dist", "bridge", `lifecycle-${process.pid}.mjs`));
});

test.afterAll(() => {
  rmSync(bin, { force: true });
  rmSync(workDir, { recursive: true, force: true });
});

const keyFile = () => path.join(mkdtempSync(path.join(workDir, "k-")), "key.json");
const isAlive = (pid: number) => existsSync(`/proc/${pid}`) && !isZombie(pid);
const isZombie = (pid: number) => {
  try {
    return /\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};
/** The pids of `pids` still running `ms` from now (polled: the first moment none is left ends the wait). */
const aliveAfter = async (pids: number[], ms: number): Promise<number[]> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const alive = pids.filter(isAlive);
    if (alive.length === 0 || Date.now() > deadline) return alive;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
};

/** Resolves with the child's exit, or null after `ms`. */
const exitWithin = (child: ChildProcess, ms: number) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null } | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
      return;
    }
    const timer = setTimeout(() => resolve(null), ms);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });

/** Resolves when the bridge says it is serving (its stderr), so a test times what happens after start-up. */
const ready = (child: ChildProcess) =>
  new Promise<void>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`the bridge did not start in 60 s: ${seen}`)), 60_000);
    child.stderr!.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes("bridge: stdio, service")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => reject(new Error(`the bridge exited early (${code}): ${seen}`)));
  });

const startBin = (stdin: "pipe" | number, baseUrl = NO_SERVICE) =>
  spawn(process.execPath, [bin, "--stdio", "--base-url", baseUrl, "--key-file", keyFile()], {
    cwd: workDir,
    stdio: [stdin, "pipe", "pipe"],
  });

test("README mcpServers command (npm run bridge) under the SDK's StdioClientTransport — close() leaves no process", async () => {
  test.setTimeout(120_000);
  const transport = new StdioClientTransport({
    command: "npm",
    args: [
      "run",
      "--silent",
      "--prefix",
      ROOT,
      "bridge",
      "--",
      "--stdio",
      "--base-url",
      NO_SERVICE,
      "--key-file",
      keyFile(),
    ],
    cwd: workDir,
    stderr: "ignore",
    env: {
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`,
      HOME: process.env.HOME ?? "",
    },
  });
  const client = new Client({ name: "bridge-lifecycle", version: "1.0.0" });
  await client.connect(transport);
  expect((await client.listTools()).tools.map((t) => t.name)).toContain("quote_purchase");
  const root = transport.pid!;
  const tree = [root, ...descendantsOf(root)];
  expect(tree.length, "npm and the bridge under it").toBeGreaterThan(1);
  const started = Date.now();
  await client.close();
  // the SDK sends SIGTERM only after 2 s without an exit: ending on end of input is what makes close() quick
  expect(Date.now() - started).toBeLessThan(1_500);
  expect(await aliveAfter(tree, 1_000)).toEqual([]);
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`npm run bridge — ${signal} to npm: the bridge is gone within a second, npm after it`, async () => {
    test.setTimeout(120_000);
    const npm = spawn(
      "npm",
      ["run", "--silent", "bridge", "--", "--stdio", "--base-url", NO_SERVICE, "--key-file", keyFile()],
      { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] },
    );
    await ready(npm);
    const bridge = descendantsOf(npm.pid!);
    expect(bridge.length).toBeGreaterThan(0);
    npm.kill(signal);
    const bridgeLeft = await aliveAfter(bridge, 1_000);
    // npm's own exit (its log and timing files) is not the bridge's: it only has to follow
    const left = await aliveAfter([npm.pid!, ...bridge], 5_000);
    for (const pid of left) process.kill(pid, "SIGKILL");
    expect(bridgeLeft).toEqual([]);
    expect(left).toEqual([]);
  });
}

test("built bin — stdin from /dev/null: exits 0 within a second of starting to serve", async () => {
  const child = startBin(openSync("/dev/null", "r"));
  await ready(child);
  const exit = await exitWithin(child, 1_000);
  if (!exit) child.kill("SIGKILL");
  expect(exit).toEqual({ code: 0, signal: null });
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`built bin — ${signal} with a tool call waiting on the service: exits 0 within a second`, async () => {
    // a service that takes the request and never answers
    let seen = 0;
    const hanging: Server = createServer(() => {
      seen += 1;
    });
    await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
    try {
      const child = startBin("pipe", `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`);
      await ready(child);
      const send = (message: object) => child.stdin!.write(`${JSON.stringify(message)}\n`);
      send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      });
      send({ jsonrpc: "2.0", method: "notifications/initialized" });
      send({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "lookup_products", arguments: { ids: ["x"] } },
      });
      await expect.poll(() => seen, { timeout: 10_000 }).toBeGreaterThan(0);
      child.kill(signal);
      const exit = await exitWithin(child, 1_000);
      if (!exit) child.kill("SIGKILL");
      expect(exit).toEqual({ code: 0, signal: null });
    } finally {
      hanging.closeAllConnections();
      hanging.close();
    }
  });
}

test("built bin — its parent dies while another process still holds its stdin: it exits within a second", async () => {
  // parent → bridge, the bridge's stdin inherited from the parent's, whose other end this test keeps open
  const parent = spawn(
    process.execPath,
    [
      "-e",
      `const { spawn } = require("node:child_process");
       const child = spawn(process.execPath, process.argv.slice(1), { stdio: ["inherit", "ignore", "pipe"] });
       child.stderr.on("data", (d) => { if (String(d).includes("stdio, service")) console.log("bridge-pid=" + child.pid); });
       setInterval(() => {}, 1000);`,
      bin,
      "--stdio",
      "--base-url",
      NO_SERVICE,
      "--key-file",
      keyFile(),
    ],
    { cwd: workDir, stdio: ["pipe", "pipe", "ignore"] },
  );
  const bridgePid = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the bridge did not start in 60 s")), 60_000);
    let seen = "";
    parent.stdout!.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /bridge-pid=(\d+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
  });
  expect(isAlive(bridgePid)).toBe(true);
  parent.kill("SIGKILL");
  const left = await aliveAfter([bridgePid], 1_000);
  if (left.length) process.kill(bridgePid, "SIGKILL");
  parent.stdin!.end();
  expect(left).toEqual([]);
});
