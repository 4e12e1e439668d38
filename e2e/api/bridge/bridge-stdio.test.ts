import assert from "node:assert/strict";
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

import { BRIDGE_TOOLS } from "@/lib/bridge/server";

// The stand-alone bridge over stdio, as an MCP client configuration starts it (README): the official SDK client
// spawns `scripts/bridge.ts --stdio`, completes the handshake on the child's stdout (nothing else may be written
// there) and lists every tool with its annotations and output schema. The key file is created on first use.

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
