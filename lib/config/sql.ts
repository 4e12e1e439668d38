import "server-only";

import {
  ColumnTypeEnum,
  type ArgType,
  type SqlQuery,
  type SqlQueryable,
  type SqlResultSet,
  type Transaction,
} from "@prisma/driver-adapter-utils";

import { getDbHandle } from "./db";

// Statements sent straight to the driver adapter Prisma's client uses (the same connection pool, observed the
// same way: Server-Timing's `db` stage, the statement budgets, the row cache's invalidation), without Prisma's
// client in between. Measured on PostgreSQL here, our CPU per statement: 190–250 µs for a model query, 130–210 µs
// for $queryRaw, 70–100 µs through the adapter (docs/performance.md, eighth pass). Only for the few statements
// every checkout flow sends, in its calls and in the webhook worker's poll after its order (the fan-out, the
// deliveries, the confirmation mail), and the transactions among them (`transaction` below: a new payment attempt,
// the order's own in lib/orders/place-order.ts): everything
// else stays on Prisma's client, whose typed queries are worth their cost where a statement is not on every flow.
//
// Values are bound as parameters ($1, $2, …), never spliced into the text. Results are decoded as Prisma's
// $queryRaw decodes them (json parsed, timestamps as Dates, int8 as bigint); a column of a type not decoded here
// is refused, so a statement needing one fails in its first test rather than answering a raw string.

/** A statement with its parameters, as the driver adapter takes it. */
export type Statement = SqlQuery;

const argTypeOf = (value: unknown): ArgType => {
  if (Array.isArray(value)) {
    const first = value.find((v) => v !== null && v !== undefined);
    return { ...argTypeOf(first ?? null), arity: "list" };
  }
  switch (typeof value) {
    case "string":
      return { scalarType: "string", arity: "scalar" };
    case "number":
      return { scalarType: Number.isInteger(value) ? "int" : "float", arity: "scalar" };
    case "bigint":
      return { scalarType: "bigint", arity: "scalar" };
    case "boolean":
      return { scalarType: "boolean", arity: "scalar" };
    default:
      if (value instanceof Date) return { scalarType: "datetime", arity: "scalar" };
      if (value === null || value === undefined) return { scalarType: "unknown", arity: "scalar" };
      return { scalarType: "json", arity: "scalar" };
  }
};

/**
 * A statement whose text is put together at run time (a list of columns): `$1`…`$n` in `text` are `values`, bound
 * as `sql` binds them. The text must come from the code, never from input.
 */
export const statementOf = (text: string, values: readonly unknown[]): Statement => {
  const argTypes = values.map(argTypeOf);
  return {
    sql: text,
    args: values.map((value, i) =>
      value === undefined ? null : argTypes[i]!.scalarType === "json" ? JSON.stringify(value) : value,
    ),
    argTypes,
  };
};

/**
 * Parameters for a text that goes after `before`'s in one statement (data-modifying CTEs of one WITH, say):
 * `param(value)` binds a value and answers its `$n`, numbered after `before`'s own; `statement(text)` is the text
 * with `before`'s parameters and these, in that order. The text must come from the code, never from input.
 */
export const paramsAfter = (before: Statement) => {
  const values: unknown[] = [];
  const offset = before.args.length;
  return {
    param: (value: unknown): string => `$${offset + values.push(value)}`,
    statement: (text: string): Statement => {
      const own = statementOf(text, values);
      return {
        sql: text,
        args: [...before.args, ...own.args],
        argTypes: [...before.argTypes, ...own.argTypes],
      };
    },
  };
};

/** A JSON column's parameter, cast to jsonb in the text: SQL NULL for null or absent (as Prisma writes an absent
 * optional Json), else the value as JSON text. */
export const jsonParam = (value: unknown): string | null =>
  value === null || value === undefined ? null : JSON.stringify(value);

/**
 * Each template's SQL text, made once: a call site's strings array is the same object on every call, so its
 * statement is the same string, whose hash V8 keeps — the statement names' map and pg's prepared-statement check
 * then look it up without reading a kilobyte of text each time.
 */
const texts = new WeakMap<TemplateStringsArray, string>();

/** The statement a template describes: each interpolated value a parameter (objects as JSON text). */
export const sql = (strings: TemplateStringsArray, ...values: unknown[]): Statement => {
  let text = texts.get(strings);
  if (text === undefined) {
    text = strings.reduce((joined, part, i) => `${joined}$${i}${part}`);
    texts.set(strings, text);
  }
  return statementOf(text, values);
};

const decoders: Partial<Record<number, (value: unknown) => unknown>> = {
  [ColumnTypeEnum.Int32]: Number,
  [ColumnTypeEnum.Float]: Number,
  [ColumnTypeEnum.Double]: Number,
  [ColumnTypeEnum.Int64]: (v) => BigInt(v as string | number | bigint),
  [ColumnTypeEnum.Boolean]: (v) => v,
  [ColumnTypeEnum.Text]: (v) => v,
  [ColumnTypeEnum.Character]: (v) => v,
  [ColumnTypeEnum.Enum]: (v) => v,
  [ColumnTypeEnum.Uuid]: (v) => v,
  [ColumnTypeEnum.TextArray]: (v) => v,
  [ColumnTypeEnum.Json]: (v) => (typeof v === "string" ? JSON.parse(v) : v),
  [ColumnTypeEnum.DateTime]: (v) => new Date(v as string),
};

/** The rows of a result set as objects keyed by column name, decoded as Prisma's $queryRaw decodes them. */
export const rowsOf = <T>(result: SqlResultSet): T[] => {
  const columns = result.columnNames.map((name, i) => {
    const type = result.columnTypes[i]!;
    const decode = decoders[type];
    if (!decode)
      throw new Error(`Column "${name}": type ${type} (ColumnTypeEnum) is not decoded by lib/config/sql.ts`);
    return { name, decode };
  });
  return result.rows.map((row) => {
    const record: Record<string, unknown> = {};
    columns.forEach(({ name, decode }, i) => {
      const value = row[i];
      record[name] = value === null || value === undefined ? null : decode(value);
    });
    return record as T;
  });
};

/** Rows of `statement` through `queryable`. */
export const queryWith = async <T>(queryable: SqlQueryable, statement: Statement): Promise<T[]> =>
  rowsOf<T>(await queryable.queryRaw(statement));

/** Rows of `statement`, outside any transaction. */
export const query = async <T>(statement: Statement): Promise<T[]> =>
  queryWith<T>(await (await getDbHandle()).adapter(), statement);

/** Runs `statement` outside any transaction; answers the number of rows it changed. */
export const execute = async (statement: Statement): Promise<number> =>
  (await (await getDbHandle()).adapter()).executeRaw(statement);

const CONTROL = (text: "COMMIT" | "ROLLBACK"): Statement => ({ sql: text, args: [], argTypes: [] });

/** Ends `tx` as Prisma's client ends its own: the driver does it (PGlite), or COMMIT/ROLLBACK is sent (pg). */
const end = async (tx: Transaction, outcome: "COMMIT" | "ROLLBACK"): Promise<void> => {
  if (tx.options.usePhantomQuery) {
    await (outcome === "COMMIT" ? tx.commit() : tx.rollback());
    return;
  }
  if (outcome === "ROLLBACK") {
    try {
      await tx.executeRaw(CONTROL("ROLLBACK"));
    } finally {
      await tx.rollback();
    }
    return;
  }
  try {
    await tx.executeRaw(CONTROL("COMMIT"));
  } catch (error) {
    await tx.rollback();
    throw error;
  }
  await tx.commit();
};

/**
 * Runs `work` in one transaction on the driver adapter (BEGIN … COMMIT; ROLLBACK when it throws, and the error is
 * thrown on). Every statement of `work` must go through the queryable it is given: on PGlite's one connection a
 * statement sent beside the open transaction would wait for it. A database error is the adapter's
 * DriverAdapterError (isUniqueViolation in lib/config/db.ts knows both forms of a unique violation).
 */
export const transaction = async <T>(work: (tx: SqlQueryable) => Promise<T>): Promise<T> => {
  const tx = await (await (await getDbHandle()).adapter()).startTransaction();
  let result: T;
  try {
    result = await work(tx);
  } catch (error) {
    await end(tx, "ROLLBACK");
    throw error;
  }
  await end(tx, "COMMIT");
  return result;
};
