import { AsyncLocalStorage } from "node:async_hooks";

import { onSqlStatement } from "@/lib/config/sql-observer";

// The SQL statements one piece of work sends, in order, as lib/config/sql-observer.ts reports them: only those
// issued in the work's own async context, so other work running meanwhile is not counted.

const observe = async <T>(
  run: () => Promise<T>,
  sql: string[],
  each?: (statement: string) => void,
): Promise<T> => {
  const mine = new AsyncLocalStorage<true>();
  const stop = onSqlStatement((statement) => {
    if (!mine.getStore()) return;
    sql.push(statement.sql);
    each?.(statement.sql);
  });
  try {
    return await mine.run(true, run);
  } finally {
    stop();
  }
};

/**
 * What `run` answers and the statements it sent. Its error is thrown on. `each` sees every statement as it is
 * answered, in the work's own turn (before the work goes on).
 */
export const statementsOf = async <T>(
  run: () => Promise<T>,
  each?: (statement: string) => void,
): Promise<{ result: T; sql: string[] }> => {
  const sql: string[] = [];
  return { result: await observe(run, sql, each), sql };
};

/** The error `run` must throw and the statements it sent before and while throwing. */
export const statementsOfFailure = async (
  run: () => Promise<unknown>,
): Promise<{ error: unknown; sql: string[] }> => {
  const sql: string[] = [];
  try {
    await observe(run, sql);
  } catch (error) {
    return { error, sql };
  }
  throw new Error("expected the work to throw; it returned");
};
