import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { BRIDGE_TOOLS } from "@/lib/bridge/server";

import { buildBridge } from "../../../scripts/build-bridge";
import { findFreePort } from "../../../scripts/lib/free-port";

// The stand-alone bridge as its own process, as an MCP client configuration starts it (README): over stdio the
// official SDK client spawns `scripts/bridge.ts --stdio`, completes the handshake on the child's stdout (nothing
// else may be written there) and lists every tool with its annotations and output schema; over --http it serves
// Streamable HTTP, its own agent profile and its RFC 9728 metadata. The key file is created on first use. The
// built bin (scripts/build-bridge.ts) runs the same way with plain node.

const ROOT = path.resolve(import.meta.dirname, "../../..");

test("npm run bridge -- --stdio: the SDK client lists every tool with annotations and output schemas", async () => {
  const keyFile = path.join(mkdtempSync(path.join(tmpdir(), "bridge-stdio-")), "key.json");
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      "--import",
      "tsx",
      "scripts/bridge.ts",
      "--stdio",
      "--base-url",
      "http://127.0.0.1:9",
      "--key-file",
      keyFile,
    ],
    cwd: ROOT,
    stderr: "ignore",
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
  });
  const client = new Client({ name: "bridge-stdio-e2e", version: "1.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      BRIDGE_TOOLS.map((t) => t.name),
    );
    for (const tool of tools) {
      assert.equal(tool.outputSchema?.type, "object", tool.name);
      assert.equal(tool.annotations?.openWorldHint, true, tool.name);
    }
    assert.equal(tools.find((t) => t.name === "confirm_purchase")?.annotations?.destructiveHint, true);
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
    // the service is down: a clear tool error after bounded retries, not a crash or a stack trace
    const down = await client.callTool({ name: "lookup_products", arguments: { ids: ["x"] } });
    assert.equal(down.isError, true);
    const error = JSON.parse((down.content as { text: string }[])[0]!.text) as { error: { code: string } };
    assert.equal(error.error.code, "service_unavailable");
  } finally {
    await client.close();
  }
});

test("the publishable bin (npm run build:bridge): plain node runs the built file over stdio; the SDK client lists every tool", async () => {
  const bin = await buildBridge();
  assert.equal(readFileSync(bin, "utf8").split("\n")[0], "#!/usr/bin/env node");
  assert.equal(statSync(bin).mode & 0o111, 0o111, "executable");
  const keyFile = path.join(mkdtempSync(path.join(tmpdir(), "bridge-bin-")), "key.json");
  // started as an MCP client configuration starts a bin: the file itself, found node on PATH, no tsx loader
  const transport = new StdioClientTransport({
    command: bin,
    args: ["--stdio", "--base-url", "http://127.0.0.1:9", "--key-file", keyFile],
    cwd: tmpdir(),
    stderr: "ignore",
    env: {
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`,
      HOME: process.env.HOME ?? "",
    },
  });
  const client = new Client({ name: "bridge-bin-e2e", version: "1.0.0" });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      BRIDGE_TOOLS.map((t) => t.name),
    );
    assert.ok(tools.every((t) => t.outputSchema?.type === "object"));
    assert.equal(statSync(keyFile).mode & 0o777, 0o600);
  } finally {
    await client.close();
  }
});

test("npm run bridge -- --http: Streamable HTTP tools/list, its own profile with the key file's key, RFC 9728", async () => {
  const keyFile = path.join(mkdtempSync(path.join(tmpdir(), "bridge-http-")), "key.json");
  const port = await findFreePort();
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "scripts/bridge.ts",
      "--http",
      "--port",
      String(port),
      "--base-url",
      "http://127.0.0.1:9",
      "--key-file",
      keyFile,
    ],
    { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"], env: process.env },
  );
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the bridge did not start in 30 s")), 30_000);
      child.stderr.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("Streamable HTTP")) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once("exit", (code) => reject(new Error(`the bridge exited (${code})`)));
    });
    const base = `http://127.0.0.1:${port}`;
    const profile = (await (await fetch(`${base}/.well-known/ucp`)).json()) as {
      signing_keys: { kid: string }[];
    };
    const stored = JSON.parse(readFileSync(keyFile, "utf8")) as { kid: string };
    assert.deepEqual(
      profile.signing_keys.map((k) => k.kid),
      [stored.kid],
    );
    const metadata = (await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json()) as {
      resource: string;
      authorization_servers: string[];
    };
    assert.deepEqual(
      [metadata.resource, metadata.authorization_servers],
      [`${base}/mcp`, ["http://127.0.0.1:9"]],
    );
    const client = new Client({ name: "bridge-http-e2e", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        BRIDGE_TOOLS.map((t) => t.name),
      );
    } finally {
      await client.close();
    }
  } finally {
    child.kill();
  }
});
