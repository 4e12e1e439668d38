import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";

import { REPO_ROOT } from "./lib/paths";

// `npm start`'s set-up step on an empty embedded database, as its own process: production seeds nothing and mints
// no key unless asked; development seeds the demo stores and prints the demo key once, when it creates it — the
// next boot names only the file.

const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const setup = (dir: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> =>
  new Promise((resolve) => {
    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      PGLITE_DIR: path.join(dir, "pglite"),
      DEMO_KEY_FILE: path.join(dir, "demo-key.json"),
      ...env,
    };
    delete childEnv.DATABASE_URL;
    if (env.SEED_DEMO === undefined) delete childEnv.SEED_DEMO;
    const child = spawn(
      path.join(REPO_ROOT, "node_modules/.bin/tsx"),
      ["--conditions=react-server", "scripts/setup.ts"],
      { cwd: REPO_ROOT, env: childEnv, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.once("exit", (code) => resolve({ code, output }));
  });

const freshDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "acs-setup-"));
  dirs.push(dir);
  return dir;
};

describe("set-up on an empty database", { concurrency: true }, () => {
  test("production: nothing seeded, no demo key", async () => {
    const dir = freshDir();
    const run = await setup(dir, { NODE_ENV: "production" });
    assert.equal(run.code, 0, run.output);
    assert.match(
      run.output,
      /Empty database: nothing seeded \(production; SEED_DEMO=1 seeds the demo stores\)/,
    );
    assert.doesNotMatch(run.output, /Seeded|demo platform key|acs_[A-Za-z0-9]/);
    assert.equal(existsSync(path.join(dir, "demo-key.json")), false);
  });

  test("development: demo stores seeded, the key printed once when created and never again", async () => {
    const dir = freshDir();
    const first = await setup(dir, { NODE_ENV: "development" });
    assert.equal(first.code, 0, first.output);
    assert.match(first.output, /Seeded 5 stores/);
    const { key } = JSON.parse(readFileSync(path.join(dir, "demo-key.json"), "utf8")) as { key: string };
    assert.equal(first.output.split(key).length - 1, 1, "printed exactly once, at creation");
    const second = await setup(dir, { NODE_ENV: "development" });
    assert.equal(second.code, 0, second.output);
    assert.equal(second.output.includes(key), false, "a later boot does not print the key");
    assert.doesNotMatch(second.output, /Seeded|Created demo platform key/);
  });
});
