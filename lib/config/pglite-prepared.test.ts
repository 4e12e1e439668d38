import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";

import { messages, PGlite } from "@electric-sql/pglite";

import { withPreparedStatements } from "./pglite-prepared";
import { PLAN_PER_CALL } from "./statement-names";

let raw: PGlite;
let db: PGlite;
/** A second session whose every text is prepared (`db` prepares five, to test its limit). */
let wideRaw: PGlite;
let wide: PGlite;

const SCHEMA = `
  CREATE TABLE t (id text PRIMARY KEY, n int NOT NULL DEFAULT 0, doc jsonb, bin bytea, at timestamptz);
  INSERT INTO t (id, n, doc, bin, at) VALUES ('a', 1, '{"k": [1, 2]}', '\\x0102', '2026-11-26T06:00:00Z');
`;

before(async () => {
  raw = await PGlite.create();
  await raw.exec(SCHEMA);
  db = withPreparedStatements(raw, 5);
  wideRaw = await PGlite.create();
  await wideRaw.exec(SCHEMA);
  wide = withPreparedStatements(wideRaw, 1000);
});
after(() => Promise.all([raw.close(), wideRaw.close()]));

/** The statements a session holds prepared by name (PGlite is one session). */
const preparedNames = async (session: PGlite = raw) =>
  (
    await session.query<{ name: string; statement: string }>(
      "SELECT name, statement FROM pg_prepared_statements",
    )
  ).rows;

/** Asserts that `wide` ran `sql` as a prepared statement. */
const assertPrepared = async (sql: string) =>
  assert.equal(
    (await preparedNames(wideRaw)).filter((p) => p.statement === sql).length,
    1,
    `prepared: ${sql}`,
  );

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

test("the same answers as PGlite's own for text beyond ASCII, empty results, writes and named rows", async () => {
  const cases: [string, unknown[], ("array" | "object")?][] = [
    ["SELECT $1::text AS word, length($1::text) AS chars", ["Grüße, 東京 €5 😀"], "array"],
    ["SELECT id, n FROM t WHERE id = $1", ["nobody"]],
    ["SELECT n AS x, id AS x FROM t WHERE id = $1", ["a"]],
    ["SELECT n AS x, id AS x FROM t WHERE id = $1", ["a"], "array"],
    ["UPDATE t SET n = n WHERE id = ANY($1)", [["a", "zz"]]],
    ["INSERT INTO t (id) VALUES ($1) ON CONFLICT (id) DO NOTHING", ["a"]],
    ["SELECT NULL::int AS none, ''::text AS empty, $1::text IS NULL AS was_null", [null]],
  ];
  for (const [sql, params, rowMode] of cases) {
    const options = rowMode ? { rowMode } : undefined;
    assert.deepEqual(await wide.query(sql, params, options), await wideRaw.query(sql, params, options), sql);
    await assertPrepared(sql);
  }
});

test("an answer larger than one of PGlite's output chunks is read whole", async () => {
  const sql = "SELECT g AS i, repeat(md5(g::text), 40) AS filler FROM generate_series(1, $1::int) AS g";
  const mine = await wide.query<{ i: number; filler: string }>(sql, [600]);
  assert.deepEqual(mine, await wideRaw.query(sql, [600]));
  assert.equal(mine.rows.length, 600);
  assert.equal(mine.rows[599]!.i, 600);
  await assertPrepared(sql);
});

test("a serializer's bytes are sent in binary format, as PGlite's own bind sends them", async () => {
  const BYTEA = 17;
  const asBytes = { [BYTEA]: (value: unknown) => value as string };
  const sql = "SELECT $1::bytea AS b, octet_length($1::bytea) AS len, $2::text AS t";
  const params = [new Uint8Array([0, 1, 254, 255]), "ä"];
  const mine = await wide.query(sql, params, { serializers: asBytes });
  assert.deepEqual(mine, await wideRaw.query(sql, params, { serializers: asBytes }));
  assert.deepEqual(mine.rows, [{ b: new Uint8Array([0, 1, 254, 255]), len: 4, t: "ä" }]);
  await assertPrepared(sql);
});

test("an error carries the fields PGlite's own error carries", async () => {
  const sql = "INSERT INTO t (id, n) VALUES ($1, $2)";
  const fail = async (client: PGlite) =>
    client.query(sql, ["a", 1]).then(
      () => assert.fail("the duplicate key was accepted"),
      (e: unknown) => e as messages.DatabaseError,
    );
  const mine = await fail(wide);
  const theirs = await fail(wideRaw);
  await assertPrepared(sql);
  assert.ok(mine instanceof messages.DatabaseError);
  const fields = ["message", "length", "name", "severity", "code", "detail", "schema", "table", "constraint"];
  for (const field of [...fields, "hint", "position", "where", "column", "file", "line", "routine"])
    assert.deepEqual(mine[field as keyof typeof mine], theirs[field as keyof typeof theirs], field);
  for (const field of fields) assert.ok(mine[field as keyof typeof mine] !== undefined, field);
});

test("a prepared statement whose columns changed is refused, never read with its old columns", async () => {
  await wideRaw.exec("CREATE TABLE shape (id int PRIMARY KEY); INSERT INTO shape VALUES (1);");
  const sql = "SELECT * FROM shape WHERE id = $1";
  assert.deepEqual((await wide.query(sql, [1])).rows, [{ id: 1 }]);
  await assertPrepared(sql);
  await wideRaw.exec("ALTER TABLE shape ADD COLUMN label text DEFAULT 'x'");
  await assert.rejects(wide.query(sql, [1]), (e: unknown) => {
    assert.ok(e instanceof messages.DatabaseError);
    assert.equal(e.code, "0A000");
    assert.match(e.message, /cached plan must not change result type/);
    return true;
  });
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
