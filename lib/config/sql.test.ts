import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { PGlite } from "@electric-sql/pglite";
import type { SqlDriverAdapter } from "@prisma/driver-adapter-utils";
import { PrismaPGlite } from "pglite-prisma-adapter";

import { queryWith, rowsOf, sql } from "./sql";

let pglite: PGlite;
let adapter: SqlDriverAdapter;

before(async () => {
  pglite = await PGlite.create();
  // timestamp(3) without a zone, as Prisma's DateTime columns are
  await pglite.exec(`
    CREATE TYPE state AS ENUM ('open', 'done');
    CREATE TABLE t (
      id text PRIMARY KEY, n int, big bigint, doc jsonb, at timestamp(3), tags text[], ok boolean, st state,
      price numeric
    );
  `);
  adapter = await new PrismaPGlite(pglite).connect();
});
after(() => pglite.close());

test("sql: each interpolated value a numbered parameter with its type; objects as JSON text, undefined as null", () => {
  const at = new Date("2026-11-26T06:00:00.123Z");
  const statement = sql`INSERT INTO t (id, n, doc, at, tags, ok) VALUES (${"a"}, ${3}, ${{ k: [1] }}, ${at}, ${["x", "y"]}, ${undefined})`;
  assert.equal(statement.sql, "INSERT INTO t (id, n, doc, at, tags, ok) VALUES ($1, $2, $3, $4, $5, $6)");
  assert.deepEqual(statement.args, ["a", 3, '{"k":[1]}', at, ["x", "y"], null]);
  assert.deepEqual(
    statement.argTypes.map((t) => `${t.scalarType}/${t.arity}`),
    ["string/scalar", "int/scalar", "json/scalar", "datetime/scalar", "string/list", "unknown/scalar"],
  );
  assert.equal(sql`SELECT 1`.sql, "SELECT 1");
  assert.deepEqual(
    sql`SELECT ${1.5}, ${10n}, ${true}`.argTypes.map((t) => t.scalarType),
    ["float", "bigint", "boolean"],
  );
});

test("sql: one call site gives one text, with each call's own values", () => {
  const byId = (id: string, n: number) => sql`SELECT * FROM t WHERE id = ${id} AND n > ${n}`;
  const [a, b] = [byId("a", 1), byId("b", 2)];
  assert.equal(a.sql, "SELECT * FROM t WHERE id = $1 AND n > $2");
  assert.equal(b.sql, a.sql);
  assert.deepEqual(
    [a.args, b.args],
    [
      ["a", 1],
      ["b", 2],
    ],
  );
  assert.equal(sql`SELECT ${1} AS other`.sql, "SELECT $1 AS other");
});

test("a row written and read through the adapter comes back as Prisma's $queryRaw gives it", async () => {
  const at = new Date("2026-11-26T06:00:00.123Z");
  const written = await adapter.executeRaw(
    sql`INSERT INTO t (id, n, big, doc, at, tags, ok, st)
        VALUES (${"a"}, ${7}, ${9007199254740993n}, ${{ k: [1, 2], s: "é" }}, ${at}, ${["x", "y"]}, ${true}, ${"done"}::state)`,
  );
  assert.equal(written, 1);
  const rows = await queryWith<Record<string, unknown>>(
    adapter,
    sql`SELECT id, n, big, doc, at, tags, ok, st, NULL::text AS nothing FROM t WHERE id = ANY(${["a", "b"]}::text[])`,
  );
  assert.deepEqual(rows, [
    {
      id: "a",
      n: 7,
      big: 9007199254740993n,
      doc: { k: [1, 2], s: "é" },
      at,
      tags: ["x", "y"],
      ok: true,
      st: "done",
      nothing: null,
    },
  ]);
  // stored as the UTC instant, as Prisma writes it
  const [stored] = (await pglite.query<{ text: string }>("SELECT at::text AS text FROM t WHERE id = 'a'"))
    .rows;
  assert.equal(stored?.text, "2026-11-26 06:00:00.123");
  assert.equal(await adapter.executeRaw(sql`UPDATE t SET n = ${8} WHERE id = ${"nobody"}`), 0);
});

test("a column of a type it does not decode is refused, not answered as raw text", async () => {
  await adapter.executeRaw(sql`INSERT INTO t (id, price) VALUES (${"p"}, ${"1.50"}::numeric)`);
  await assert.rejects(
    queryWith(adapter, sql`SELECT price FROM t WHERE id = ${"p"}`),
    /Column "price": type \d+ \(ColumnTypeEnum\) is not decoded/,
  );
  assert.deepEqual(rowsOf({ columnNames: [], columnTypes: [], rows: [] }), []);
});
