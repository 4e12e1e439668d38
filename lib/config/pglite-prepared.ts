import {
  parse,
  protocol,
  type ParserOptions,
  type PGlite,
  type QueryOptions,
  type Results,
  type Transaction,
} from "@electric-sql/pglite";

import {
  bindExecuteSync,
  readExecution,
  statementNameBytes,
  type Field,
  type WireValue,
} from "./pglite-wire";
import { statementNamer } from "./statement-names";

// Prepared statements on PGlite. Its `query` speaks the extended protocol as six calls into the WASM backend
// (parse, describe, bind, describe, execute, sync), unnamed, so every statement is parsed and planned again, in
// our own process. Here each SQL text is parsed and described once under a name, and a call is then one message
// (bind, execute, sync) whose answer is read by pglite-wire.ts. What PGlite's `query` guarantees is
// kept: a call outside a transaction waits for an open one and syncs the data dir after it; a call inside one
// runs in it; a database error is PGlite's own DatabaseError (what the Prisma adapter maps, the unique violation
// among them). Named by the namer PostgreSQL's adapter uses (statement-names.ts): texts it leaves unnamed (past
// `limit`, or planned per call) go through PGlite's `query`.
//
// A call's own parsers (Prisma's adapter passes the same constant map on every call) are merged with the
// instance's once per map, not per call: PGlite's result parser spreads both into a new object each time, and the
// instance's map has ~320 entries, ~80 µs a statement here. The instance's map is complete once PGlite has started
// (it changes again only through refreshArrayTypes, which nothing here calls).

const { serialize } = protocol;

type Parsers = PGlite["parsers"];

type Prepared = { types: number[]; fields: Field[]; wireName: Buffer };

const concat = (parts: readonly Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

/**
 * `db` with `query` (and `transaction`'s `tx.query`) running prepared statements, for the first `limit` SQL texts;
 * `limit` 0 returns `db` as it is. Everything else is PGlite's own.
 */
export const withPreparedStatements = (db: PGlite, limit: number): PGlite => {
  if (limit <= 0) return db;
  const nameOf = statementNamer(limit);
  /** Each statement prepared in this session, by name: its parameter types, result columns and wire name. */
  const preparedOf = new Map<string, Prepared>();
  /** The instance's parsers with a call's own over them, by the call's map. */
  const mergedParsers = new WeakMap<ParserOptions, Parsers>();
  const parsersFor = (own: ParserOptions | undefined): Parsers => {
    if (!own) return db.parsers;
    let merged = mergedParsers.get(own);
    if (!merged) mergedParsers.set(own, (merged = { ...db.parsers, ...own }));
    return merged;
  };

  /**
   * Parses and describes `sql` as `name`. The name is closed first (a no-op, unless an earlier try parsed it and
   * then failed), so it is never prepared twice.
   */
  const prepare = async (name: string, sql: string, options?: QueryOptions): Promise<Prepared> => {
    const described = await db.execProtocol(
      concat([
        serialize.close({ type: "S", name }),
        serialize.parse({ name, text: sql, ...(options?.paramTypes ? { types: options.paramTypes } : {}) }),
        serialize.describe({ type: "S", name }),
        serialize.sync(),
      ]),
      { syncToFs: false },
    );
    const columns = described.messages.find((m) => m.name === "rowDescription") as
      { fields: readonly Field[] } | undefined;
    const prepared: Prepared = {
      types: parse.parseDescribeStatementResults(described.messages),
      fields: (columns?.fields ?? []).map(({ name, dataTypeID }) => ({ name, dataTypeID })),
      wireName: statementNameBytes(name),
    };
    preparedOf.set(name, prepared);
    return prepared;
  };

  /** Runs `sql` as the prepared statement `name`; the caller holds PGlite's query lock. */
  const runPrepared = async (
    name: string,
    sql: string,
    params: readonly unknown[],
    options?: QueryOptions,
  ): Promise<Results> => {
    const { types, fields, wireName } = preparedOf.get(name) ?? (await prepare(name, sql, options));
    const values = params.map((value, i): WireValue => {
      if (value === null || value === undefined) return null;
      const type = types[i]!;
      const serializer = options?.serializers?.[type] ?? db.serializers[type];
      return serializer ? (serializer(value) as WireValue) : String(value);
    });
    // PGlite hands its output over in views of its own memory, reused by the next call: each is copied
    const chunks: Buffer[] = [];
    await db.execProtocolRawStream(bindExecuteSync(wireName, values), {
      syncToFs: false,
      onRawData: (chunk) => chunks.push(Buffer.from(chunk)),
    });
    const reply = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
    return readExecution(reply, fields, parsersFor(options?.parsers), options?.rowMode);
  };

  const query = async <T>(
    sql: string,
    params: unknown[] = [],
    options?: QueryOptions,
  ): Promise<Results<T>> => {
    const name = nameOf({ sql });
    if (name === undefined) return db.query<T>(sql, params, options);
    // as PGlite's query: after any open transaction, alone on the backend, then the data dir synced
    return db._runExclusiveTransaction(() =>
      db._runExclusiveQuery(async () => {
        const result = await runPrepared(name, sql, params, options);
        await db.syncToFs();
        return result as Results<T>;
      }),
    );
  };

  const inTransaction = (tx: Transaction): Transaction =>
    new Proxy(tx, {
      get(target, prop, receiver) {
        if (prop !== "query") return Reflect.get(target, prop, receiver) as unknown;
        return async <T>(
          sql: string,
          params: unknown[] = [],
          options?: QueryOptions,
        ): Promise<Results<T>> => {
          if (target.closed) throw new Error("Transaction is closed");
          const name = nameOf({ sql });
          if (name === undefined) return target.query<T>(sql, params, options);
          return db._runExclusiveQuery(
            async () => (await runPrepared(name, sql, params, options)) as Results<T>,
          );
        };
      },
    });

  const transaction = <T>(callback: (tx: Transaction) => Promise<T>): Promise<T> =>
    db.transaction((tx) => callback(inTransaction(tx)));

  return new Proxy(db, {
    get(target, prop) {
      if (prop === "query") return query;
      if (prop === "transaction") return transaction;
      // PGlite's methods use private fields: they run on the instance itself, never on the proxy
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
};
