import "server-only";

import type { SqlDriverAdapter } from "@prisma/driver-adapter-utils";

import { PrismaClient } from "@/lib/generated/prisma/client";

import { closeSharedDb, openAdapter, type AdapterHandle, type OpenOptions } from "./database";
import { sharedConnection } from "./shared-connection";
import { observeSql } from "./sql-observer";

// The Prisma singleton (STYLE.md §4). Opened lazily on first use so that `next build` never touches the
// database (a PGlite data dir may be open in one process only), and kept on globalThis so hot reload in
// `next dev` does not open a second handle.

type DbState = {
  client: PrismaClient;
  handle: AdapterHandle;
  /** The driver adapter the client sends its statements through (lib/config/sql.ts sends some directly). */
  adapter: () => Promise<SqlDriverAdapter>;
};

const globalForDb = globalThis as unknown as { __acsDb?: Promise<DbState> };

const connect = async (options?: OpenOptions): Promise<DbState> => {
  const handle = await openAdapter(options);
  // every statement observed (Server-Timing `db`, the statement budget tests): lib/config/sql-observer.ts; one
  // connection (one pool) for the client and the statements sent without it
  const shared = sharedConnection(observeSql(handle.factory));
  // errorFormat "minimal": the other formats capture a stack trace (new Error) on every query, only to point at
  // the calling line in a failed query's message; that was ~7 % of a statement's CPU in Prisma's client. A
  // failure still carries its code, message and its own stack.
  const client = new PrismaClient({ adapter: shared.factory, errorFormat: "minimal" });
  return { client, handle, adapter: shared.connect };
};

/**
 * Opens the shared client with `options` (the integration tests' pre-migrated PGlite snapshot) unless it is open
 * already; then the same as getDbHandle.
 */
export const openDbWith = async (options: OpenOptions): Promise<DbState> => {
  globalForDb.__acsDb ??= connect(options);
  return globalForDb.__acsDb;
};

/** The shared client with its adapter handle (tests migrate an in-memory PGlite through `handle.factory`). */
export const getDbHandle = async (): Promise<DbState> => {
  globalForDb.__acsDb ??= connect();
  return globalForDb.__acsDb;
};

/** The shared Prisma client. */
export const getDb = async (): Promise<PrismaClient> => (await getDbHandle()).client;

/** Closes the shared client and its database (tests and CLI scripts call this before exiting). */
export const closeDb = closeSharedDb;

export type Db = PrismaClient;

/**
 * A write refused by a unique index: the row another writer won the race to create. Prisma's client reports it
 * as P2002; a statement sent through the driver adapter (lib/config/sql.ts) as the adapter's own error.
 */
export const isUniqueViolation = (error: unknown): boolean => {
  if (typeof error !== "object" || error === null) return false;
  const { code, name, cause } = error as { code?: unknown; name?: unknown; cause?: { kind?: unknown } };
  return code === "P2002" || (name === "DriverAdapterError" && cause?.kind === "UniqueConstraintViolation");
};
