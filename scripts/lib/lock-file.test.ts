import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { REPO_ROOT } from "./paths";

// `npm ci` installs exactly package-lock.json and refuses a lock that disagrees with package.json, or that lacks an
// entry for an optional platform package some dependency names. Both failures would only show on a fresh clone in
// CI; this test shows them at once, with the names to fix.

type Manifest = {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  engines?: Record<string, string>;
};
type LockEntry = Manifest & { version?: string; optional?: boolean; link?: boolean };
type Lock = { lockfileVersion: number; packages: Record<string, LockEntry> };

const readJson = <T>(file: string): T => JSON.parse(readFileSync(path.join(REPO_ROOT, file), "utf8")) as T;

const pkg = readJson<Manifest>("package.json");
const lock = readJson<Lock>("package-lock.json");

/** Where npm would look for `name` from the package installed at `from` (nested node_modules first). */
const resolveEntry = (from: string, name: string): string | undefined => {
  let dir = from;
  for (;;) {
    const candidate = `${dir ? `${dir}/` : ""}node_modules/${name}`;
    if (lock.packages[candidate]) return candidate;
    if (!dir) return undefined;
    const cut = dir.lastIndexOf("/node_modules/");
    dir = cut === -1 ? "" : dir.slice(0, cut);
  }
};

test("package-lock.json root entry matches package.json (dependencies, devDependencies, engines)", () => {
  assert.equal(lock.lockfileVersion, 3);
  const root = lock.packages[""];
  assert.ok(root, "the lock has no root package entry");
  for (const field of ["dependencies", "devDependencies", "optionalDependencies", "engines"] as const) {
    assert.deepEqual(
      root[field] ?? {},
      pkg[field] ?? {},
      `${field} differ: run npm install and commit the lock`,
    );
  }
});

test("every dependency the lock's packages name has its own entry, optional platform packages included", () => {
  const missing: string[] = [];
  for (const [location, entry] of Object.entries(lock.packages)) {
    if (entry.link) continue;
    const names = { ...entry.dependencies, ...entry.optionalDependencies };
    if (location === "") Object.assign(names, entry.devDependencies);
    for (const name of Object.keys(names)) {
      if (!resolveEntry(location, name)) missing.push(`${name} (needed by ${location || "package.json"})`);
    }
  }
  assert.deepEqual(missing, [], "npm ci would refuse the lock: these entries are missing");
});
