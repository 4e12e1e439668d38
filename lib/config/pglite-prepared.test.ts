import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";

import { messages, PGlite } from "@electric-sql/pglite";

import { withPreparedStatements } from "./pglite-prepared";
import { PLAN_PER_CALL } from "./statement-names";

let raw: PGlite;
let db: PGlite;

before(async () => {
  raw = await PGlite.create();
  await raw.exec(`
    CREATE TABLE t (id text PRIMARY KEY, n int NOT NULL DEFAULT 0, doc jsonb, bin bytea, at timestamptz);
    INSERT INTO t (id, n, doc, bin, at) VALUES ('a', 1, '{"k": [1, 2]}', '\\x0102', '2026-11-26T06:00:00Z');
  `);
  db = withPreparedStatements(raw, 5);
});
after(() => raw.close());

/** The statements this session holds prepared by name (PGlite is one session). */
const preparedNames = async () =>
  (await raw.query<{ name: string; statement: string }>("SELECT name, statement FROM pg_prepared_statements"))
    .rows;

test("answers what PGlite's own query answers: rows in array mode, typed values, fields, affected rows", async () => {
  const read = "SELECT id, n, doc, bin, at, NULL::text AS nothing FROM t WHERE id = $1";
  const mine = await db.query(read, ["a"], { rowMode: "array" });
  const theirs = await raw.query(read, ["a"], { rowMode: "array" });
  assert.deepEqual(mine, theirs);
  assert.deepEqual(mine.rows[0], [
    "a",
    1,
    { k: [1, 2] },
    new Uint8Array([1, 2]),
    new Date("2026-11-26T06:00:00Z"),
    null,
  ]);
  const write = "UPDATE t SET n = n + $1, doc = $2 WHERE id = ANY($3)";
  const updated = await db.query(write, [2, { k: null }, ["a", "zz"]]);
  assert.equal(updated.affectedRows, 1);
  assert.deepEqual(
    (await db.query<{ n: number; doc: unknown }>("SELECT n, doc FROM t WHERE id = 'a'")).rows,
    [{ n: 3, doc: { k: null } }],
  );
});

test("a call's own parsers apply over the instance's, each call with its own", async () => {
  const read = "SELECT n, at, doc FROM t WHERE id = $1";
  const TIMESTAMPTZ = 1184;
  const asText = { [TIMESTAMPTZ]: (value: string) => `text:${value}` };
  const asLength = { [TIMESTAMPTZ]: (value: string) => value.length };
  for (let round = 0; round < 2; round++) {
    const [mine] = (await db.query(read, ["a"], { rowMode: "array", parsers: asText })).rows;
    const [theirs] = (await raw.query(read, ["a"], { rowMode: "array", parsers: asText })).rows;
    assert.deepEqual(mine, theirs);
    assert.match(String((mine as unknown[])[1]), /^text:2026-11-26 06:00:00/);
    assert.deepEqual((mine as unknown[])[2], { k: null }, "the instance's parsers for the other types");
    const [other] = (await db.query(read, ["a"], { rowMode: "array", parsers: asLength })).rows;
    assert.equal(typeof (other as unknown[])[1], "number");
    const [plain] = (await db.query(read, ["a"], { rowMode: "array" })).rows;
    assert.ok((plain as unknown[])[1] instanceof Date);
  }
});

test("a repeated text is prepared once, under one name, and not again", async () => {
  const text = "SELECT n FROM t WHERE id = $1 AND n >= $2";
  for (let i = 0; i < 3; i++) assert.equal((await db.query(text, ["a", 0])).rows.length, 1);
  const mine = (await preparedNames()).filter((p) => p.statement === text);
  assert.equal(mine.length, 1);
  assert.match(mine[0]!.name, /^acs_[0-9a-z]+$/);
});

test("a statement that plans per call answers, unprepared", async () => {
  const text = `${PLAN_PER_CALL}\nSELECT id FROM t WHERE n >= $1`;
  assert.deepEqual((await db.query(text, [0])).rows, [{ id: "a" }]);
  assert.equal((await preparedNames()).filter((p) => p.statement === text).length, 0);
});

test("past the limit a new text still answers, unprepared", async () => {
  for (let i = 0; i < 4; i++) await db.query(`SELECT ${i} AS filler_${i}`);
  const text = "SELECT count(*)::int AS c FROM t WHERE n > $1";
  assert.deepEqual((await db.query(text, [0])).rows, [{ c: 1 }]);
  assert.equal((await preparedNames()).filter((p) => p.statement === text).length, 0);
});

test("database errors are PGlite's DatabaseError with their code, and the next statement runs", async () => {
  const insert = "INSERT INTO t (id) VALUES ($1)";
  await assert.rejects(db.query(insert, ["a"]), (e: unknown) => {
    assert.ok(e instanceof messages.DatabaseError);
    assert.equal(e.code, "23505");
    return true;
  });
  await assert.rejects(db.query("SELEC 1"), (e: unknown) => e instanceof messages.DatabaseError);
  await db.query(insert, ["b"]);
  assert.deepEqual((await db.query("SELECT id FROM t ORDER BY id")).rows, [{ id: "a" }, { id: "b" }]);
  await db.query("DELETE FROM t WHERE id = $1", ["b"]);
});

test("in a transaction: the statement runs in it, an error aborts it, a rollback undoes it", async () => {
  await db.transaction(async (tx) => {
    await tx.query("UPDATE t SET n = n + 100 WHERE id = $1", ["a"]);
    await assert.rejects(tx.query("INSERT INTO t (id) VALUES ($1)", ["a"]), (e: unknown) => {
      assert.equal((e as { code?: string }).code, "23505");
      return true;
    });
    await assert.rejects(tx.query("SELECT n FROM t WHERE id = $1", ["a"]), (e: unknown) => {
      assert.equal((e as { code?: string }).code, "25P02", "the transaction is aborted");
      return true;
    });
    await tx.rollback();
  });
  assert.deepEqual((await db.query("SELECT n FROM t WHERE id = $1", ["a"])).rows, [{ n: 3 }]);
});

test("a statement outside a transaction waits for the open one, as PGlite's query does", async () => {
  let inside = false;
  const seen: string[] = [];
  const tx = db.transaction(async (t) => {
    inside = true;
    await t.query("INSERT INTO t (id) VALUES ($1)", ["held"]);
    await sleep(30);
    seen.push("commit");
  });
  while (!inside) await sleep(1);
  const outside = db
    .query<{ c: number }>("SELECT count(*)::int AS c FROM t WHERE id = $1", ["held"])
    .then((r) => {
      seen.push("outside");
      return r.rows[0]!.c;
    });
  await tx;
  assert.equal(await outside, 1, "it ran after the commit, never inside the other caller's transaction");
  assert.deepEqual(seen, ["commit", "outside"]);
  await db.query("DELETE FROM t WHERE id = $1", ["held"]);
});

test("limit 0 leaves PGlite as it is", () => {
  assert.equal(withPreparedStatements(raw, 0), raw);
});
