import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { Writable } from "node:stream";
import { afterEach, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";

import { generateApiKey } from "@/lib/credentials/api-key-format";

import { accessLogger, batchedDestination, logError, logger, redactSecrets, setLogDestination } from "./log";

/** Captures the logger's lines (parsed) until the test ends. */
const capture = (): Record<string, unknown>[] => {
  const lines: Record<string, unknown>[] = [];
  setLogDestination(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    }),
  );
  return lines;
};
afterEach(() => {
  delete process.env.LOG_LEVEL;
  setLogDestination(null);
});

// What an unexpected error's message may quote never reaches the log as is: each secret format we issue or hold.
const secrets = () => {
  const apiKey = generateApiKey().key;
  const opaque = (prefix: string) => `${prefix}_${randomBytes(32).toString("base64url")}`;
  return {
    apiKey,
    clientSecret: `ocs_${generateApiKey().key.slice(-43)}`,
    refreshToken: opaque("ort"),
    code: opaque("oac"),
    jwt: `eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJidXllcl8xIn0.${randomBytes(64).toString("base64url")}`,
    stripeKey: `sk_live_${randomBytes(16).toString("hex")}`,
    webhookSecret: `whsec_${randomBytes(24).toString("base64")}`,
    clientSecretPi: `pi_3Abc123_secret_${randomBytes(12).toString("hex")}`,
  };
};

test("redactSecrets removes every secret format and keeps the API key's public prefix", () => {
  const all = secrets();
  const text = Object.entries(all)
    .map(([name, value]) => `${name}=${value}`)
    .join(" ");
  const redacted = redactSecrets(`${text} Authorization: Bearer abcdefghijklmnop`);
  for (const [name, value] of Object.entries(all)) assert.equal(redacted.includes(value), false, name);
  assert.equal(redacted.includes("abcdefghijklmnop"), false);
  assert.ok(redacted.includes(`acs_${all.apiKey.split("_")[1]}_[redacted]`), redacted);
  assert.equal(redactSecrets("order ord_123 for checkout chk_456"), "order ord_123 for checkout chk_456");
});

test("logError writes one JSON error line with neither the message's nor the stack's secrets", () => {
  const { apiKey, jwt } = secrets();
  const lines = capture();
  logError(
    new Error("query failed", { cause: new Error(`no row for key ${apiKey} and token ${jwt}`) }),
    "r-1",
  );
  assert.equal(lines.length, 1);
  const text = JSON.stringify(lines[0]);
  assert.equal(text.includes(apiKey), false);
  assert.equal(text.includes(jwt), false);
  assert.equal(lines[0]!.request_id, "r-1");
  assert.equal(lines[0]!.level, "error");
  assert.match(String(lines[0]!.msg), /^no row for key acs_\w{12}_\[redacted\]/);
  assert.match(String(lines[0]!.time), /^\d{4}-\d\d-\d\dT/);
});

test("credential fields are censored whatever their value, at the top level and inside headers", () => {
  process.env.LOG_LEVEL = "info";
  const all = secrets();
  const lines = capture();
  logger().info(
    {
      authorization: "Bearer opaque-value-1",
      "x-api-key": "opaque-value-2",
      headers: { cookie: "session=opaque-value-3", "x-api-key": "opaque-value-4" },
      req: { headers: { authorization: "opaque-value-5" } },
      body: { refresh_token: "opaque-value-6", client_secret: "opaque-value-7" },
      route: "/s/[store_slug]/orders/[id]",
    },
    `message quoting ${all.stripeKey} and ${all.refreshToken}`,
  );
  const text = JSON.stringify(lines);
  assert.equal(lines.length, 1);
  assert.doesNotMatch(text, /opaque-value/);
  assert.equal(text.includes(all.stripeKey), false);
  assert.equal(text.includes(all.refreshToken), false);
  assert.equal(lines[0]!.route, "/s/[store_slug]/orders/[id]", "other fields are kept");
  assert.equal((lines[0]!.headers as Record<string, string>).cookie, "[redacted]");
});

test("LOG_LEVEL sets the level: debug lines appear only when asked for", () => {
  process.env.LOG_LEVEL = "info";
  let lines = capture();
  logger().debug("hidden");
  logger().info("shown");
  assert.deepEqual(
    lines.map((l) => l.msg),
    ["shown"],
  );
  process.env.LOG_LEVEL = "debug";
  lines = capture();
  logger().debug("now shown");
  assert.deepEqual(
    lines.map((l) => [l.level, l.msg]),
    [["debug", "now shown"]],
  );
});

test("the access lines' logger writes where the logger writes, at its level, with every message text redacted", () => {
  process.env.LOG_LEVEL = "info";
  const first = capture();
  const { apiKey } = secrets();
  accessLogger().debug({ route: "/healthz" }, "request");
  accessLogger().info({ route: "/s/[store_slug]/carts", status: 201 }, `request ${apiKey}`);
  assert.deepEqual(
    first.map((l) => [l.level, l.route, l.status]),
    [["info", "/s/[store_slug]/carts", 201]],
  );
  assert.ok(!String(first[0]!.msg).includes(apiKey), String(first[0]!.msg));
  // a new destination (and level) reaches it too
  process.env.LOG_LEVEL = "debug";
  const second = capture();
  accessLogger().debug({ route: "/healthz" }, "request");
  assert.deepEqual(
    second.map((l) => [l.level, l.route]),
    [["debug", "/healthz"]],
  );
  assert.equal(first.length, 1);
});

test("stdout lines are written in batches: one write for the lines of a moment, sooner past the size, on flush", async () => {
  const writes: string[] = [];
  const lines = batchedDestination({ write: (text: string) => writes.push(text) }, { ms: 30, bytes: 100 });
  lines.write("a\n");
  lines.write("b\n");
  lines.write("c\n");
  assert.deepEqual(writes, [], "nothing written at once");
  await sleep(60);
  assert.deepEqual(writes, ["a\nb\nc\n"], "the moment's lines in one write");
  lines.write(`${"x".repeat(60)}\n`);
  lines.write(`${"y".repeat(60)}\n`);
  assert.equal(writes.length, 2, "written as soon as the size is reached");
  assert.equal(writes[1], `${"x".repeat(60)}\n${"y".repeat(60)}\n`);
  lines.write("d\n");
  let flushed = false;
  lines.flush(() => (flushed = true));
  assert.deepEqual(writes.slice(2), ["d\n"]);
  assert.ok(flushed, "the flush's callback is called");
  await sleep(60);
  assert.equal(writes.length, 3, "nothing written twice, no empty write");
});

test("a process that exits at once still writes the lines it logged", () => {
  const tsx = path.join(process.cwd(), "node_modules/.bin/tsx");
  const script = `
    import { logger } from "./lib/core/log";
    for (let i = 0; i < 3; i++) logger().info({ i }, "line");
    process.exit(3);
  `;
  const child = spawnSync(tsx, ["--eval", script], {
    cwd: process.cwd(),
    env: { ...process.env, LOG_LEVEL: "info", LOG_PRETTY: "0", NODE_ENV: "production" },
    encoding: "utf8",
  });
  assert.equal(child.status, 3, child.stderr);
  const logged = child.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { i: number; msg: string });
  assert.deepEqual(
    logged.map((l) => [l.msg, l.i]),
    [
      ["line", 0],
      ["line", 1],
      ["line", 2],
    ],
  );
});
