import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { PrismaPg } from "@prisma/adapter-pg";
import type { SqlDriverAdapter } from "@prisma/driver-adapter-utils";
import pg from "pg";

import { isUniqueViolation } from "@/lib/config/db";
import { PreparedClient } from "@/lib/config/pg-prepared";
import { statementNamer } from "@/lib/config/statement-names";

import { startPostgres, type PostgresServer } from "../../../scripts/pg-harness";

// pg-prepared.ts against a real PostgreSQL (the run's own when it has one, else a harness started here): the
// adapter's named calls answer what pg's own Query answers, the columns are described once per connection, what
// the server refuses or a value that cannot be sent is an error and the connection goes on, and Prisma's adapter on
// a pool of these clients answers as on pg's own.

let server: PostgresServer | undefined;
let url: string;
let mine: PreparedClient;
let theirs: pg.Client;
/** Row descriptions received by `mine`'s connection. */
let described = 0;

/** The parsers Prisma's adapter passes: its own for some types over pg's (here: timestamps kept as text). */
const adapterTypes = () => ({
  getTypeParser: (oid: number, format: "text") =>
    oid === 1184 ? (text: string) => `ts:${text}` : pg.types.getTypeParser(oid, format),
});
/** A call as Prisma's adapter makes it. */
const call = (name: string, text: string, values: unknown[] = []) => ({
  name,
  text,
  values,
  rowMode: "array" as const,
  types: adapterTypes(),
});
type Answer = {
  command: string | null;
  rowCount: number | null;
  rows: unknown[][];
  fields: { name: string; dataTypeID: number }[];
};
const run = async (client: pg.Client, config: ReturnType<typeof call>): Promise<Answer> => {
  const result = (await client.query(config as never)) as unknown as Answer;
  return {
    command: result.command,
    rowCount: result.rowCount,
    rows: result.rows,
    fields: result.fields.map(({ name, dataTypeID }) => ({ name, dataTypeID })),
  };
};

const SCHEMA = `
  DROP TABLE IF EXISTS prep_t;
  CREATE TABLE prep_t (id text PRIMARY KEY, n int NOT NULL DEFAULT 0, big bigint, doc jsonb, at timestamptz,
                       tags text[], ok boolean);
  INSERT INTO prep_t VALUES ('a', 1, 9007199254740993, '{"k": [1, 2]}', '2026-11-26T06:00:00Z', '{x,"y z"}', true),
                            ('b', 2, NULL, NULL, NULL, '{}', false);
`;

before(async () => {
  if (process.env.DATABASE_URL) url = process.env.DATABASE_URL;
  else {
    server = await startPostgres();
    url = server.url;
  }
  theirs = new pg.Client({ connectionString: url });
  await theirs.connect();
  await theirs.query(SCHEMA);
  mine = new PreparedClient({ connectionString: url });
  await mine.connect();
  (mine as unknown as { connection: { on: (e: string, f: () => void) => void } }).connection.on(
    "rowDescription",
    () => (described += 1),
  );
});
after(async () => {
  await theirs?.query("DROP TABLE IF EXISTS prep_t");
  await Promise.all([mine?.end(), theirs?.end()]);
  await server?.stop();
});

test("answers what pg's own query answers: typed rows in array mode, fields, command and row count", async () => {
  const cases: [string, unknown[]][] = [
    ["SELECT id, n, big, doc, at, tags, ok, NULL::text AS nothing FROM prep_t ORDER BY id", []],
    ["SELECT id, n FROM prep_t WHERE id = $1", ["nobody"]],
    ["SELECT $1::text AS word, length($1::text) AS chars", ["Grüße, 東京 €5 😀"]],
    ["SELECT n AS x, id AS x FROM prep_t WHERE id = ANY($1)", [["a", "b"]]],
    ["UPDATE prep_t SET n = n WHERE id = ANY($1)", [["a", "b", "zz"]]],
    ["INSERT INTO prep_t (id) VALUES ($1) ON CONFLICT (id) DO NOTHING", ["a"]],
    [
      "INSERT INTO prep_t (id, at) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET at = EXCLUDED.at RETURNING id, at",
      ["c", "2026-11-29T10:00:00.5Z"],
    ],
    ["DELETE FROM prep_t WHERE id = $1", ["nobody"]],
  ];
  for (const [i, [text, values]] of cases.entries()) {
    const name = `prep_case_${i}`;
    const expected = await run(theirs, call(name, text, values));
    for (let round = 0; round < 2; round++) {
      // the second round runs without the description: the kept one must read the same
      assert.deepEqual(await run(mine, call(name, text, values)), expected, `${text} (call ${round + 1})`);
    }
  }
  const [row] = (await run(mine, call("prep_case_0", cases[0]![0]))).rows;
  assert.deepEqual(row, [
    "a",
    1,
    "9007199254740993",
    { k: [1, 2] },
    "ts:2026-11-26 06:00:00+00",
    ["x", "y z"],
    true,
    null,
  ]);
  const inserted = await run(mine, call("prep_case_5", cases[5]![0], ["d"]));
  assert.deepEqual([inserted.command, inserted.rowCount], ["INSERT", 1]);
  const deleted = await run(mine, call("prep_case_7", cases[7]![0], ["d"]));
  assert.deepEqual([deleted.command, deleted.rowCount], ["DELETE", 1]);
  await theirs.query("DELETE FROM prep_t WHERE id = 'c'");
});

test("a statement's columns are described on its first call on a connection only", async () => {
  const text = "SELECT id, n FROM prep_t WHERE id = $1";
  const before = described;
  const first = await run(mine, call("prep_once", text, ["a"]));
  assert.equal(described, before + 1, "described on the first call");
  const second = await run(mine, call("prep_once", text, ["b"]));
  const third = await run(mine, call("prep_once", text, ["a"]));
  assert.equal(described, before + 1, "not described again");
  assert.deepEqual(first.rows, [["a", 1]]);
  assert.deepEqual(second.rows, [["b", 2]]);
  assert.deepEqual(third, first);
  // a write without columns is known as such after its first call
  const write = "UPDATE prep_t SET n = n WHERE id = $1";
  const once = described;
  await run(mine, call("prep_write", write, ["a"]));
  const again = await run(mine, call("prep_write", write, ["b"]));
  assert.equal(described, once, "a write is never described with columns");
  assert.deepEqual([again.command, again.rowCount, again.rows, again.fields], ["UPDATE", 1, [], []]);
});

test("what the server refuses is an error, the connection goes on, and the statement is described again when parsed again", async () => {
  await assert.rejects(run(mine, call("prep_bad", "SELECT nope FROM prep_t WHERE id = $1", ["a"])), {
    code: "42703",
  });
  const duplicate = call("prep_dup", "INSERT INTO prep_t (id) VALUES ($1)", ["a"]);
  await assert.rejects(run(mine, duplicate), { code: "23505" });
  await assert.rejects(run(mine, duplicate), { code: "23505" });
  assert.deepEqual((await run(mine, call("prep_after", "SELECT count(*)::int AS n FROM prep_t", []))).rows, [
    [2],
  ]);

  // the columns of a prepared statement changed under it: refused by the server, never read with the old ones
  await theirs.query("CREATE TABLE prep_shape (id text, a int)");
  await theirs.query("INSERT INTO prep_shape VALUES ('x', 1)");
  const star = call("prep_star", "SELECT * FROM prep_shape WHERE id = $1", ["x"]);
  assert.deepEqual((await run(mine, star)).rows, [["x", 1]]);
  await theirs.query("ALTER TABLE prep_shape ADD COLUMN b text DEFAULT 'new'");
  await assert.rejects(run(mine, star), /cached plan must not change result type/);
  await theirs.query("DROP TABLE prep_shape");
});

test("a value that cannot be sent fails its call only; a parser that throws fails its call only", async () => {
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  await assert.rejects(run(mine, call("prep_value", "SELECT $1::jsonb AS doc", [circular])), /circular/i);
  assert.deepEqual((await run(mine, call("prep_value", "SELECT $1::jsonb AS doc", [{ a: 1 }]))).rows, [
    [{ a: 1 }],
  ]);
  const throwing = {
    ...call("prep_parser", "SELECT id FROM prep_t ORDER BY id", []),
    types: {
      getTypeParser: () => () => {
        throw new Error("unreadable");
      },
    },
  };
  await assert.rejects(mine.query(throwing as never), /unreadable/);
  assert.deepEqual((await run(mine, call("prep_after_parser", "SELECT 1::int AS one", []))).rows, [[1]]);
});

/** What the server says `mine`'s session is doing: "idle", "idle in transaction", … */
const sessionState = async (): Promise<string> =>
  (
    await theirs.query<{ state: string }>("SELECT state FROM pg_stat_activity WHERE pid = $1", [
      (mine as unknown as { processID: number }).processID,
    ])
  ).rows[0]!.state;

test("a BEGIN the connection has run before is sent with the transaction's first statement", async () => {
  const begin = () => run(mine, call("prep_begin", "BEGIN"));
  const rollback = () => run(mine, call("prep_rollback", "ROLLBACK"));
  const commit = () => run(mine, call("prep_commit", "COMMIT"));
  const insert = (id: string) =>
    run(mine, call("prep_tx_insert", "INSERT INTO prep_t (id) VALUES ($1)", [id]));
  const count = async (id: string) =>
    (await theirs.query("SELECT 1 FROM prep_t WHERE id = $1", [id])).rowCount;

  // the first BEGIN of the connection is sent as it comes (and so prepared here)
  await begin();
  assert.equal(await sessionState(), "idle in transaction");
  await rollback();

  // then: answered at once, nothing sent until the first statement, which runs in the transaction
  assert.deepEqual(await begin(), { command: "BEGIN", rowCount: null, rows: [], fields: [] });
  assert.equal(await sessionState(), "idle", "the BEGIN waits for the first statement");
  assert.deepEqual((await insert("tx-1")).rowCount, 1, "the statement's own answer, not the BEGIN's");
  assert.equal(await sessionState(), "idle in transaction");
  await rollback();
  assert.equal(await count("tx-1"), 0, "rolled back: it ran in the transaction");
  await begin();
  await insert("tx-2");
  await commit();
  assert.equal(await count("tx-2"), 1, "committed");

  // a statement that fails behind the BEGIN: its own error, and the transaction is aborted as after any failure
  await begin();
  await assert.rejects(insert("tx-2"), { code: "23505" });
  await assert.rejects(insert("tx-3"), { code: "25P02" });
  await rollback();
  assert.equal(await sessionState(), "idle");

  // an empty transaction, and a query of pg's own behind the BEGIN (it runs in the transaction too)
  await begin();
  await commit();
  assert.equal(await sessionState(), "idle");
  await begin();
  await mine.query("INSERT INTO prep_t (id) VALUES ('tx-own')");
  assert.equal(await sessionState(), "idle in transaction");
  await rollback();
  assert.equal(await count("tx-own"), 0);
  await theirs.query("DELETE FROM prep_t WHERE id LIKE 'tx-%'");
});

test("other queries are pg's own: text, callbacks, unnamed and object rows", async () => {
  assert.deepEqual((await mine.query("SELECT 1::int AS one")).rows, [{ one: 1 }]);
  const viaCallback = await new Promise<unknown>((resolve, reject) =>
    mine.query("SELECT $1::text AS t", ["cb"], (error: Error | null, result: pg.QueryResult) =>
      error ? reject(error) : resolve(result.rows),
    ),
  );
  assert.deepEqual(viaCallback, [{ t: "cb" }]);
  const unnamed = await mine.query({ text: "SELECT $1::int AS n", values: [7], rowMode: "array" });
  assert.deepEqual(unnamed.rows, [[7]]);
});

test("Prisma's adapter on a pool of these clients answers as on pg's own, a unique violation known as one", async () => {
  const open = async (withPrepared: boolean): Promise<SqlDriverAdapter> =>
    new PrismaPg(
      { connectionString: url, max: 2, ...(withPrepared ? { Client: PreparedClient } : {}) },
      { statementNameGenerator: statementNamer(100) as never },
    ).connect();
  const [a, b] = await Promise.all([open(true), open(false)]);
  try {
    const read = {
      sql: "SELECT id, n, big, doc, at, tags, ok FROM prep_t WHERE id = ANY($1) ORDER BY id",
      args: [["a", "b"]],
      argTypes: [{ scalarType: "string", arity: "list" }],
    } as never;
    for (let i = 0; i < 3; i++) assert.deepEqual(await a.queryRaw(read), await b.queryRaw(read));
    const write = {
      sql: "UPDATE prep_t SET n = n + $1 WHERE id = $2",
      args: [1, "a"],
      argTypes: [
        { scalarType: "int", arity: "scalar" },
        { scalarType: "string", arity: "scalar" },
      ],
    } as never;
    const nOfA = async () =>
      (await theirs.query<{ n: number }>("SELECT n FROM prep_t WHERE id = 'a'")).rows[0]!.n;
    const n = await nOfA();
    // twice: the second transaction on the connection has its BEGIN sent with its first statement
    for (const outcome of ["ROLLBACK", "COMMIT"] as const) {
      const tx = await a.startTransaction();
      assert.equal(await tx.executeRaw(write), 1);
      assert.equal(await tx.executeRaw({ sql: outcome, args: [], argTypes: [] }), 0);
      await tx.commit();
    }
    assert.equal(await nOfA(), n + 1, "the rolled back write is not there, the committed one is");
    const dup = {
      sql: "INSERT INTO prep_t (id) VALUES ($1)",
      args: ["a"],
      argTypes: [{ scalarType: "string", arity: "scalar" }],
    } as never;
    const refused = await a.executeRaw(dup).catch((error: unknown) => error);
    assert.ok(isUniqueViolation(refused), String(refused));
    assert.deepEqual(await a.queryRaw(read), await b.queryRaw(read), "the pool goes on after the violation");
  } finally {
    await Promise.all([a.dispose(), b.dispose()]);
  }
});
