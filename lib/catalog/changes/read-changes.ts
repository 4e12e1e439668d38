import "server-only";

import { getDb } from "@/lib/config/db";

import type { FeedPosition } from "./cursor";

// The change feed's reads (table catalog_changes, written by the triggers of the catalog_changes migration).
//
// Order and the "never skip" rule: a change's id comes from a sequence when its trigger runs, but its transaction
// may commit after a later id's (a slow import batch, an order still paying). Paging by id alone would then pass
// over the late row for good. So the feed is read in (xid, id) order — xid the writing transaction's id
// (pg_current_xact_id) — and only below the oldest transaction still running (pg_snapshot_xmin): every transaction
// with a smaller xid has ended, so no row can appear later before the reader's position. A change becomes readable
// once every transaction that started writing before it has ended (milliseconds, or as long as the longest write
// under way). Identical on PGlite (one connection, nothing ever in flight for a reader) and PostgreSQL.

export type ChangeRow = {
  xid: string;
  id: string;
  storeSlug: string | null;
  productId: string;
  variantId: string | null;
  kind: "created" | "updated" | "deleted";
  fields: string[];
  priceMinor: number | null;
  listPriceMinor: number | null;
  currency: string | null;
  available: boolean | null;
  changedAt: string;
};

/** The frontier: the oldest transaction id still running (or the next one); rows below it are final. */
const FRONTIER = "pg_snapshot_xmin(pg_current_snapshot())";

/**
 * Where a feed read from `since` starts: just before the first change recorded at or after `since` (in feed order),
 * or at the frontier when there is none yet. A change of a transaction that began writing before `since` may come
 * along; none recorded after it is left out.
 */
export const positionAtTime = async (storeId: string | null, since: Date): Promise<FeedPosition> => {
  const db = await getDb();
  const [row] = await db.$queryRawUnsafe<{ xid: string; id: string; frontier: string }[]>(
    `SELECT c."xid"::text AS xid, (c."id" - 1)::text AS id, ${FRONTIER}::text AS frontier
       FROM (SELECT 1) AS one
       LEFT JOIN LATERAL (
         SELECT "xid", "id" FROM "catalog_changes"
          WHERE "created_at" >= $1::timestamptz AND "xid" < ${FRONTIER} ${storeId ? `AND "store_id" = $2` : ""}
          ORDER BY "xid", "id" LIMIT 1) AS c ON true`,
    since.toISOString(),
    ...(storeId ? [storeId] : []),
  );
  if (!row) throw new Error("positionAtTime: no row");
  return row.xid !== null ? { xid: row.xid, id: row.id } : { xid: row.frontier, id: "0" };
};

/**
 * Up to `limit` changes after `after` (feed order, final ones only) and, when fewer exist, the frontier: the
 * position the next read can start from without missing any change.
 */
export const readChanges = async (
  storeId: string | null,
  after: FeedPosition,
  limit: number,
): Promise<{ rows: ChangeRow[]; hasMore: boolean; frontier: FeedPosition }> => {
  const db = await getDb();
  // (the store filter is written into the text, not `$n IS NULL OR …`, so the store's index is always usable)
  // the frontier is taken in the same statement (one snapshot) as the rows it bounds
  const rows = await db.$queryRawUnsafe<(ChangeRow & { frontier: string })[]>(
    `WITH f AS (SELECT ${FRONTIER} AS frontier)
     SELECT c."xid"::text AS xid, c."id"::text AS id, s."slug" AS "storeSlug", c."product_id" AS "productId",
            c."variant_id" AS "variantId", c."kind", c."fields", c."price_minor" AS "priceMinor",
            c."list_price_minor" AS "listPriceMinor", c."currency", c."available",
            to_char(c."created_at"::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "changedAt",
            f.frontier::text AS frontier
       FROM f
       LEFT JOIN LATERAL (
         SELECT * FROM "catalog_changes"
          WHERE ("xid", "id") > ($1::xid8, $2::bigint) AND "xid" < f.frontier ${storeId ? `AND "store_id" = $4` : ""}
          ORDER BY "xid", "id" LIMIT $3::int) AS c ON true
       LEFT JOIN "stores" s ON s."id" = c."store_id"
      ORDER BY c."xid", c."id"`,
    after.xid,
    after.id,
    limit + 1,
    ...(storeId ? [storeId] : []),
  );
  const frontier = { xid: rows[0]?.frontier ?? after.xid, id: "0" };
  const changes = rows.filter((r) => r.id !== null).map(({ frontier: _, ...row }) => row);
  return { rows: changes.slice(0, limit), hasMore: changes.length > limit, frontier };
};
