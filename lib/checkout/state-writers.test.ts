import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";

// lib/checkout/state.ts is the only writer of a checkout's status (STYLE.md §7). The ESLint rule catches Prisma
// writes (checkoutSession create/update/upsert with `status`); this test catches what a lint rule cannot see:
// raw SQL. It scans every source file outside the generated client and the migrations for SQL that writes the
// checkout_sessions table (UPDATE, INSERT INTO, MERGE INTO). Reads (SELECT … cs.status) are fine.

const ROOT = path.resolve(import.meta.dirname, "../..");
const SCANNED = ["lib", "app", "scripts", "components", "prisma/seed.ts", "instrumentation.ts"];
const SKIPPED = new Set(["lib/generated", "node_modules", ".next", "lib/checkout/state.ts"]);

const WRITES_CHECKOUT_SQL = /\b(update|insert\s+into|merge\s+into)\s+("?public"?\.)?"?checkout_sessions"?\b/i;

const sourceFiles = (rel: string): string[] => {
  const abs = path.join(ROOT, rel);
  if (SKIPPED.has(rel)) return [];
  let stat;
  try {
    stat = statSync(abs);
  } catch {
    return [];
  }
  if (stat.isFile()) return /\.(ts|tsx|mts|cts|js|mjs)$/.test(rel) ? [rel] : [];
  return readdirSync(abs).flatMap((name) => sourceFiles(path.posix.join(rel, name)));
};

test("the detector sees raw SQL writes of checkout_sessions, not reads", () => {
  assert.ok(WRITES_CHECKOUT_SQL.test(`UPDATE checkout_sessions SET status = 'completed'`));
  assert.ok(WRITES_CHECKOUT_SQL.test(`update "checkout_sessions" set "status" = $1`));
  assert.ok(WRITES_CHECKOUT_SQL.test(`INSERT INTO public.checkout_sessions (id, status) VALUES ($1, $2)`));
  assert.ok(!WRITES_CHECKOUT_SQL.test(`SELECT cs.status FROM checkout_sessions cs`));
  assert.ok(!WRITES_CHECKOUT_SQL.test(`JOIN checkout_sessions cs ON cs.id = cp.checkout_id`));
});

test("no source file outside lib/checkout/state.ts writes checkout_sessions with raw SQL", () => {
  const files = SCANNED.flatMap(sourceFiles).filter((f) => !f.endsWith("state-writers.test.ts"));
  assert.ok(files.length > 100, `scanned ${files.length} files`);
  const offenders = files.filter((f) => WRITES_CHECKOUT_SQL.test(readFileSync(path.join(ROOT, f), "utf8")));
  assert.deepEqual(offenders, [], "write checkout status through lib/checkout/state.ts");
});
