import "server-only";

import { createHmac, timingSafeEqual } from "node:crypto";

import { AppError } from "@/lib/core/errors";

import { cursorSecret } from "../search/cursor";

// Change-feed cursors: base64url(JSON {v, k, s, x, i, t}) "." base64url(HMAC-SHA256), with the catalog cursors'
// key (CATALOG_CURSOR_SECRET, else the database's). `s` the scope (a store id, or null for the global feed), `x`/`i`
// the position (transaction id, change id) after the last change read, `t` the position's time (ms): the time of
// that last change when more follow, else when the cursor was issued (the changes still to come are newer). A
// changed byte, a search cursor, or a cursor of another scope → invalid_request at $.pagination.cursor; one whose
// position is older than the retention window → resync_required (list-catalog-changes.ts).

const CURSOR_PATH = "$.pagination.cursor";
const VERSION = 1;
const KIND = "catalog_changes";

/** Position in the feed: every change with (xid, id) greater than this comes next. */
export type FeedPosition = { xid: string; id: string };
export type FeedCursor = FeedPosition & { positionAt: number };

const sign = (key: Buffer, payload: string): string =>
  createHmac("sha256", key).update(payload).digest("base64url");

const invalid = (why: string): AppError =>
  new AppError("invalid_request", `pagination.cursor ${why}`, { path: CURSOR_PATH });

export const encodeFeedCursor = async (
  storeId: string | null,
  position: FeedPosition,
  positionAt: Date,
): Promise<string> => {
  const body = { v: VERSION, k: KIND, s: storeId, x: position.xid, i: position.id, t: positionAt.getTime() };
  const payload = Buffer.from(JSON.stringify(body)).toString("base64url");
  return `${payload}.${sign(await cursorSecret(), payload)}`;
};

const DIGITS = /^\d{1,20}$/;

/**
 * The position inside a cursor this feed issued for the same scope.
 * @throws AppError invalid_request ($.pagination.cursor) when forged, altered, not a feed cursor, or of another scope
 */
export const decodeFeedCursor = async (cursor: string, storeId: string | null): Promise<FeedCursor> => {
  const [payload, signature, extra] = cursor.split(".");
  if (!payload || !signature || extra !== undefined) {
    throw invalid("is not a cursor of the catalog change feed: start again with since");
  }
  const expected = Buffer.from(sign(await cursorSecret(), payload));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw invalid("is not a cursor this service issued (signature mismatch): start again with since");
  }
  let body: { v?: unknown; k?: unknown; s?: unknown; x?: unknown; i?: unknown; t?: unknown };
  try {
    body = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as typeof body;
  } catch {
    throw invalid("is malformed: start again with since");
  }
  if (body.v !== VERSION || body.k !== KIND) {
    throw invalid("is not a cursor of the catalog change feed (a search cursor?): start again with since");
  }
  if (body.s !== storeId) {
    throw invalid(
      storeId === null
        ? "belongs to a store's feed (/s/<slug>/…), not the global feed: use it there"
        : body.s === null
          ? "belongs to the global feed, not this store's: use it on /catalog/changes or /mcp"
          : "belongs to another store's feed: use it there",
    );
  }
  if (
    typeof body.x !== "string" ||
    !DIGITS.test(body.x) ||
    typeof body.i !== "string" ||
    !DIGITS.test(body.i)
  ) {
    throw invalid("is malformed: start again with since");
  }
  if (typeof body.t !== "number" || !Number.isSafeInteger(body.t))
    throw invalid("is malformed: start again with since");
  return { xid: body.x, id: body.i, positionAt: body.t };
};
