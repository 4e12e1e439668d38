import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect, test } from "@playwright/test";

import { findFreePort } from "../../scripts/lib/free-port";
import { REPO_ROOT } from "../../scripts/lib/paths";
import { quickstartCommands } from "../../scripts/lib/readme-snippets";
import type { ServerFile } from "../../scripts/lib/server-file";

// The README's quick start, run as written on a fresh data dir and a port other than 3000: its server command
// (`npm start`; `npm ci` is left out, CI has just run it on this clone) and then its agent commands —
// examples/agent-rest and examples/agent-mcp, each a whole card purchase on the agent kit with a profile that has a
// generated key and a webhook receiver — with the demo key `npm run -s demo-key` prints, finding the server through
// the server.json `npm start` writes (no BASE_URL). Each agent must exit 0 and print its order id within 60 s, the
// order must be readable with the key the first start printed, and its webhook must have reached the agent's
// receiver. Then the README's crypto purchase (examples/agent-crypto): the OAuth link with the admin CLI's
// test-mode consent, the sandbox wallet that `npm start` funded paying over REST and over MCP, each printing its
// order, the Sui sandbox found the same way. Last, what a stale URL gets: an old SUI_SANDBOX_URL, then a server
// that was killed, each a message saying what to do before any purchase starts.

const STORE = "summit-trail-outfitters";
const AGENT_TIMEOUT_MS = 60_000;
const readme = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");

test.describe.configure({ mode: "serial" });

type Run = { child: ChildProcess; exited: Promise<number | string>; output: () => string };

/** `command` through sh, in its own process group (npm's children included in a signal to the group). */
const run = (command: string, env: Record<string, string | undefined>): Run => {
  const merged: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete merged[name];
    else merged[name] = value;
  }
  const child = spawn("sh", ["-c", command], {
    cwd: REPO_ROOT,
    env: merged,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | string>((resolve) =>
    child.once("exit", (code, signal) => resolve(signal ?? code ?? -1)),
  );
  return { child, exited, output: () => output };
};

const killGroup = (r: Run, signal: NodeJS.Signals) => {
  try {
    process.kill(-r.child.pid!, signal);
  } catch {
    // already gone
  }
};

let tempDir = "";
let server: Run | undefined;
let baseUrl = "";
let apiKey = "";
let pgliteDir = "";
/** What another shell of the clone sets to find this server's files (as the Ready summary says). */
let filesEnv: Record<string, string> = {};
/** Everything unset that would name the server for the examples: they must find it themselves. */
const UNNAMED = {
  BASE_URL: undefined,
  API_KEY: undefined,
  SUI_SANDBOX_URL: undefined,
  DATABASE_URL: undefined,
};

test.beforeAll(async () => {
  test.setTimeout(300_000); // a clone without a build builds first (≈ 1 min here), then migrates and seeds
  tempDir = mkdtempSync(path.join(tmpdir(), "acs-quickstart-"));
  const port = await findFreePort();
  expect(port).not.toBe(3000); // the examples' old default: they must find this server, not assume it
  baseUrl = `http://127.0.0.1:${port}`;
  pgliteDir = path.join(tempDir, "pglite");
  const commands = quickstartCommands(readme, "server")
    .flatMap((line) => line.split("&&").map((c) => c.trim()))
    .filter((c) => c !== "npm ci");
  server = run(commands.join(" && "), {
    // as a developer's shell runs it, on its own port and a fresh data dir
    PORT: String(port),
    PGLITE_DIR: pgliteDir,
    DEMO_KEY_FILE: path.join(tempDir, "demo-platform-key.json"),
    NEXT_TELEMETRY_DISABLED: "1",
    DATABASE_URL: undefined,
    BASE_URL: undefined,
    HOST: undefined,
    NODE_ENV: undefined,
    OUTBOUND_ALLOW_PRIVATE: undefined,
    STRIPE_SANDBOX_URL: undefined,
    SUI_SANDBOX_URL: undefined,
    OAUTH_TEST_MODE: undefined,
  });
  const started = Date.now();
  // the summary under "Ready on" ends with the examples' line
  while (!/Ready on[\s\S]*npx tsx examples\/agent-rest\/main\.ts/.test(server.output())) {
    const exited = await Promise.race([server.exited, new Promise((r) => setTimeout(() => r(null), 250))]);
    if (exited !== null) throw new Error(`npm start exited (${exited}):\n${server.output().slice(-3000)}`);
    if (Date.now() - started > 280_000)
      throw new Error(`npm start not ready:\n${server.output().slice(-3000)}`);
  }
  // the first run prints the demo platform key once (README Quick start)
  const printed = /Created demo platform key \S+: (acs_[A-Za-z0-9_-]+)/.exec(server.output());
  expect(printed, server.output().slice(-2000)).not.toBeNull();
  apiKey = printed![1]!;
  filesEnv = { PGLITE_DIR: pgliteDir, DEMO_KEY_FILE: path.join(tempDir, "demo-platform-key.json") };
});

test("the Ready summary names the admin and developer pages, the demo key's file and the command printing it", () => {
  const summary = server!.output().slice(server!.output().lastIndexOf("Ready on"));
  expect(summary).toContain(`${baseUrl}/admin`);
  expect(summary).toContain(`${baseUrl}/developers`);
  // the data dir is not the default one: the commands say what another shell sets to find its files
  const prefix = `PGLITE_DIR=${filesEnv.PGLITE_DIR} DEMO_KEY_FILE=${filesEnv.DEMO_KEY_FILE} `;
  expect(summary).toContain(
    `in ${filesEnv.DEMO_KEY_FILE} (X-API-Key); print it with: ${prefix}npm run -s demo-key`,
  );
  expect(summary).toContain(`${path.join(tempDir, "server.json")}`);
  // the key itself only where set-up created it, never in the summary
  expect(summary).not.toContain(apiKey);
  const record = JSON.parse(readFileSync(path.join(tempDir, "server.json"), "utf8")) as ServerFile;
  expect(record.base_url).toBe(baseUrl);
  expect(Object.keys(record.sandboxes).sort()).toEqual(["STRIPE_SANDBOX_URL", "SUI_SANDBOX_URL"]);
});

test.afterAll(async () => {
  if (server) {
    killGroup(server, "SIGTERM");
    const how = await Promise.race([
      server.exited,
      new Promise((r) => setTimeout(() => r("timeout"), 20_000)),
    ]);
    if (how === "timeout") killGroup(server, "SIGKILL");
  }
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
});

const agentCommands = quickstartCommands(readme, "agents");

for (const [index, example] of ["agent-rest", "agent-mcp"].entries()) {
  test(`README quick start: ${agentCommands[index]} buys with a card and gets the order's webhook`, async () => {
    const command = agentCommands[index]!;
    expect(command).toContain(`examples/${example}/main.ts`);
    const started = Date.now();
    // as written: the key from `npm run -s demo-key`, the server from its server.json
    const agent = run(command, { ...UNNAMED, ...filesEnv });
    const timer = setTimeout(() => killGroup(agent, "SIGKILL"), AGENT_TIMEOUT_MS);
    const exited = await agent.exited;
    clearTimeout(timer);
    const output = agent.output();
    console.log(`${example}: exit ${exited} in ${Date.now() - started} ms\n${output.trim()}`);
    expect(exited, output).toBe(0);
    const orderId = /^order (ord_\S+)/m.exec(output)?.[1];
    expect(orderId, output).toBeDefined();
    expect(output).toContain(`webhook received for ${orderId}, signed by the store`);
    // the printed order exists for this key, in this store
    const order = await fetch(`${baseUrl}/s/${STORE}/orders/${orderId}`, {
      headers: {
        "request-id": crypto.randomUUID(),
        "ucp-agent": `profile="${baseUrl}/demo/agent/.well-known/ucp"`,
        "x-api-key": apiKey,
      },
    });
    expect(order.status).toBe(200);
    expect(((await order.json()) as { id: string }).id).toBe(orderId);
  });
}

test("README crypto purchase: the agent links to the sandbox buyer and pays over REST and MCP with the funded test wallet", async () => {
  test.setTimeout(120_000);
  // npm start started the Sui sandbox, funded the test wallet on it and printed both
  const suiUrl = /Sui sandbox \([^)]*\): (http:\/\/\S+)/.exec(server!.output())?.[1];
  expect(suiUrl, server!.output().slice(-2000)).toBeDefined();
  expect(server!.output()).toMatch(/Sui sandbox \([^)]*\): funded the test wallet 0x[0-9a-f]{64}/);
  const [command] = quickstartCommands(readme, "crypto");
  expect(command).toBe("npx tsx examples/agent-crypto/main.ts");
  const started = Date.now();
  // as written: the server and its Sui sandbox from the server.json; the admin CLI the script runs for the consent
  // reaches this server through its data dir's socket
  const agent = run(command!, { ...UNNAMED, ...filesEnv });
  const timer = setTimeout(() => killGroup(agent, "SIGKILL"), 100_000);
  const exited = await agent.exited;
  clearTimeout(timer);
  const output = agent.output();
  console.log(`agent-crypto: exit ${exited} in ${Date.now() - started} ms\n${output.trim()}`);
  expect(exited, output).toBe(0);
  const orders = [
    ...output.matchAll(/^order (ord_\S+) \((REST|MCP), checkout (chk_\S+), transaction (\S+)\)$/gm),
  ];
  expect(
    orders.map((m) => m[2]),
    output,
  ).toEqual(["REST", "MCP"]);
  // two different orders, and the store's payout address received the coins on the sandbox chain
  expect(new Set(orders.map((m) => m[1])).size).toBe(2);
  const profile = (await (await fetch(`${baseUrl}/s/${STORE}/.well-known/ucp`)).json()) as {
    ucp: { payment_handlers: Record<string, { config?: { recipient?: string } }[]> };
  };
  const recipient = profile.ucp.payment_handlers["sh.svc.crypto"]?.[0]?.config?.recipient;
  expect(recipient).toMatch(/^0x[0-9a-f]{64}$/);
  const balances = (await (await fetch(`${suiUrl}/__admin/balances?address=${recipient}`)).json()) as {
    balances: { coinType: string; total: string }[];
  };
  expect(balances.balances.some((b) => BigInt(b.total) > 0n)).toBe(true);
});

test("an old SUI_SANDBOX_URL, then a server that was killed: a message saying what to do, not `fetch failed`", async () => {
  test.setTimeout(60_000);
  const [command] = quickstartCommands(readme, "crypto");
  // a port nothing listens on any more: the sandbox of an earlier start
  const oldSandbox = `http://127.0.0.1:${await findFreePort()}`;
  const stale = run(command!, { ...UNNAMED, ...filesEnv, SUI_SANDBOX_URL: oldSandbox });
  expect(await stale.exited, stale.output()).toBe(1);
  expect(stale.output()).toContain(`No Sui sandbox answers at ${oldSandbox} (SUI_SANDBOX_URL)`);
  expect(stale.output()).toContain("unset SUI_SANDBOX_URL");
  expect(stale.output()).not.toContain("fetch failed");

  // killed, its server.json stays behind (a clean stop removes it) and its sandboxes are gone with it
  killGroup(server!, "SIGKILL");
  await server!.exited;
  server = undefined;
  expect(existsSync(path.join(tempDir, "server.json"))).toBe(true);
  const [rest] = quickstartCommands(readme, "agents");
  const agent = run(rest!, { ...UNNAMED, ...filesEnv });
  expect(await agent.exited, agent.output()).toBe(1);
  expect(agent.output()).toContain(`No server answers at ${baseUrl}`);
  expect(agent.output()).toContain("start it with npm start");
  expect(agent.output()).not.toContain("fetch failed");
});
