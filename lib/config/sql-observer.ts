import type { SqlDriverAdapter, SqlDriverAdapterFactory, Transaction } from "@prisma/driver-adapter-utils";

// Every SQL statement the app's Prisma client sends, observed at the driver adapter: its text and how long the
// database took. Listeners run in the async context of the call that issued it, so the Server-Timing scope
// (lib/ops/server-timing.ts) adds it to the request's `db` stage, and the statement budget tests
// (e2e/api/ops/request-cost.test.ts) count the statements of one call. Transaction control is reported as the
// statements sent for it (BEGIN, COMMIT, ROLLBACK), once, whether the driver or Prisma sends them.

export type SqlStatementListener = (statement: { sql: string; ms: number }) => void;

const LISTENERS = Symbol.for("agent-commerce-service.sql-listeners");
const listeners = ((globalThis as { [LISTENERS]?: Set<SqlStatementListener> })[LISTENERS] ??= new Set());

/** Calls `listener` after each statement; returns the function that removes it. */
export const onSqlStatement = (listener: SqlStatementListener): (() => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

const report = (sql: string, started: number): void => {
  if (listeners.size === 0) return;
  const statement = { sql, ms: performance.now() - started };
  for (const listener of listeners) listener(statement);
};

const timed = async <T>(sql: string, run: () => Promise<T>): Promise<T> => {
  const started = performance.now();
  try {
    return await run();
  } finally {
    report(sql, started);
  }
};

const observeTransaction = (tx: Transaction): Transaction =>
  new Proxy(tx, {
    get(target, prop, receiver) {
      if (prop === "queryRaw" || prop === "executeRaw") {
        return (query: { sql: string }) =>
          timed(query.sql, () => (target[prop] as (q: unknown) => Promise<unknown>).call(target, query));
      }
      // with a phantom query the driver ends the transaction itself; otherwise Prisma sends COMMIT or ROLLBACK
      // through executeRaw (observed above) and commit()/rollback() only release the connection
      if ((prop === "commit" || prop === "rollback") && target.options.usePhantomQuery) {
        return () => timed(prop.toUpperCase(), () => target[prop].call(target));
      }
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? (value as () => unknown).bind(target) : value;
    },
  });

const observeAdapter = (adapter: SqlDriverAdapter): SqlDriverAdapter =>
  new Proxy(adapter, {
    get(target, prop, receiver) {
      if (prop === "queryRaw" || prop === "executeRaw") {
        return (query: { sql: string }) =>
          timed(query.sql, () => (target[prop] as (q: unknown) => Promise<unknown>).call(target, query));
      }
      if (prop === "startTransaction") {
        return async (...args: Parameters<SqlDriverAdapter["startTransaction"]>) =>
          observeTransaction(await timed("BEGIN", () => target.startTransaction(...args)));
      }
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? (value as () => unknown).bind(target) : value;
    },
  });

/** The factory with every adapter it connects observed. */
export const observeSql = <F extends SqlDriverAdapterFactory>(factory: F): F =>
  new Proxy(factory, {
    get(target, prop, receiver) {
      if (prop === "connect") return async () => observeAdapter(await target.connect());
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? (value as () => unknown).bind(target) : value;
    },
  });
