import "server-only";

import { createHash, createHmac, timingSafeEqual } from "node:crypto";

import canonicalize from "canonicalize";

import { getDb } from "@/lib/config/db";
import { getEnv } from "@/lib/config/env";
import { AppError } from "@/lib/core/errors";

// Pagination cursors: opaque, tamper-evident and bound to the search they came from. A cursor is
// base64url(JSON {v, e, f, a}) "." base64url(HMAC-SHA256): `e` the engine, `f` a hash of the canonical search
// (query words, filters, sort, store scope), `a` the engine's keyset position after the last hit. A changed byte,
// another search's cursor or another engine's cursor is refused with invalid_request at $.pagination.cursor.
// Secret: CATALOG_CURSOR_SECRET, else a random secret the catalog_search migration stored in the database (so it
// survives restarts and is shared by every process on that database).

const CURSOR_PATH = "$.pagination.cursor";
const VERSION = 1;

let secretPromise: Promise<Buffer> | undefined;

const loadSecret = async (): Promise<Buffer> => {
  const fromEnv = getEnv().CATALOG_CURSOR_SECRET;
  if (fromEnv) return Buffer.from(fromEnv, "utf8");
  const db = await getDb();
  const state = await db.catalogSearchState.findUnique({ where: { id: 1 } });
  if (!state) throw new Error("catalog_search_state row missing: run npm run db:migrate");
  return Buffer.from(state.cursorSecret, "utf8");
};

/** The cursor HMAC key (also signs the catalog change feed's cursors, lib/catalog/changes/cursor.ts). */
export const cursorSecret = (): Promise<Buffer> => {
  secretPromise ??= loadSecret().catch((error: unknown) => {
    secretPromise = undefined;
    throw error;
  });
  return secretPromise;
};

/** A stable hash of everything that defines a result list (not the page size: pages may change size). */
export const searchFingerprint = (search: unknown): string =>
  createHash("sha256")
    .update(canonicalize(search) ?? "")
    .digest("base64url")
    .slice(0, 22);

const sign = (key: Buffer, payload: string): string =>
  createHmac("sha256", key).update(payload).digest("base64url");

export const encodeCursor = async (engine: string, fingerprint: string, after: unknown): Promise<string> => {
  const payload = Buffer.from(JSON.stringify({ v: VERSION, e: engine, f: fingerprint, a: after })).toString(
    "base64url",
  );
  return `${payload}.${sign(await cursorSecret(), payload)}`;
};

const invalid = (why: string): AppError =>
  new AppError("invalid_request", `pagination.cursor ${why}: start again without a cursor`, {
    path: CURSOR_PATH,
  });

/**
 * The engine position inside a cursor issued for this very search.
 * @throws AppError invalid_request ($.pagination.cursor) when forged, altered, or from another search or engine
 */
export const decodeCursor = async (cursor: string, engine: string, fingerprint: string): Promise<unknown> => {
  const [payload, signature, extra] = cursor.split(".");
  if (!payload || !signature || extra !== undefined) throw invalid("is not a cursor from this service");
  const expected = Buffer.from(sign(await cursorSecret(), payload));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw invalid("is not a cursor from this service (signature mismatch)");
  }
  let body: { v?: unknown; e?: unknown; f?: unknown; a?: unknown };
  try {
    body = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as typeof body;
  } catch {
    throw invalid("is malformed");
  }
  if (body.v !== VERSION || body.e !== engine)
    throw invalid("was issued by another search engine or version");
  if (body.f !== fingerprint) {
    throw invalid("belongs to a different search (query, filters or sort changed)");
  }
  return body.a;
};
