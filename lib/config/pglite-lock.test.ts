import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, test } from "node:test";

import { assertPgliteFree, holdPgliteLock, lockFileFor } from "./pglite-lock";

const root = mkdtempSync(path.join(tmpdir(), "acs-lock-"));
after(() => rmSync(root, { recursive: true, force: true }));

/** A process that stays alive until killed, and one that has already exited (its pid is free). */
const liveProcess = () =>
  spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
const deadPid = async (): Promise<number> => {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid!;
};

test("a live holder: other openers are refused in one sentence naming the dir and the pid", async () => {
  const dir = path.join(root, "held");
  const holder = liveProcess();
  try {
    writeFileSync(lockFileFor(dir), JSON.stringify({ pid: holder.pid, since: new Date().toISOString() }));
    assert.throws(
      () => assertPgliteFree(dir),
      (error: Error) => {
        assert.match(
          error.message,
          new RegExp(`in use by the server \\(pid ${holder.pid}\\): stop the server`),
        );
        assert.ok(error.message.includes(dir));
        return true;
      },
    );
    assert.throws(() => holdPgliteLock(dir), /in use by the server/);
  } finally {
    holder.kill();
  }
});

test("a stale lock (its process is gone) is ignored by openers and taken over by a server", async () => {
  const dir = path.join(root, "stale");
  writeFileSync(lockFileFor(dir), JSON.stringify({ pid: await deadPid(), since: "earlier" }));
  assert.doesNotThrow(() => assertPgliteFree(dir));
  holdPgliteLock(dir);
  const record = JSON.parse(readFileSync(lockFileFor(dir), "utf8")) as { pid: number };
  assert.equal(record.pid, process.pid);
  // the holder itself may open its own dir
  assert.doesNotThrow(() => assertPgliteFree(dir));
});

test("a half-written lock file does not block anyone", () => {
  const dir = path.join(root, "garbage");
  writeFileSync(lockFileFor(dir), "{");
  assert.doesNotThrow(() => assertPgliteFree(dir));
});
