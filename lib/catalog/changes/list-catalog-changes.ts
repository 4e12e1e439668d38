import "server-only";

import { getDb } from "@/lib/config/db";
import { successEnvelope } from "@/lib/core/envelope";
import { AppError } from "@/lib/core/errors";
import { defineOperation } from "@/lib/core/operation";
import { CatalogChangesOutputSchema } from "@/lib/ucp/output-schemas";

import { decodeFeedCursor, encodeFeedCursor, type FeedPosition } from "./cursor";
import { positionAtTime, readChanges } from "./read-changes";
import {
  CHANGES_LIMIT_DEFAULT,
  CHANGES_LIMIT_MAX,
  CHANGES_RETENTION_DAYS,
  CHANGES_RETENTION_MS,
  ListCatalogChangesInputSchema,
} from "./schemas";
import { changeToWire } from "./to-wire";

// list_catalog_changes (issue #63 item 3; docs/catalog-changes.md): the catalog change feed of every store (global
// surfaces) or one store (/s/<slug>/…). The first call names `since`; each page returns a cursor — the last page
// too, to poll from later. Changes are kept CHANGES_RETENTION_DAYS days: a `since` or a cursor older than that (or
// than the feed itself) answers resync_required, and the caller re-reads the catalog in full.

/** A `since` this far ahead of our clock is a mistake, not a wait (clock skew allowance). */
const FUTURE_SKEW_MS = 5 * 60 * 1000;

const resyncRequired = (what: string, path: string): AppError =>
  new AppError(
    "resync_required",
    `${what}: the feed keeps changes for ${CHANGES_RETENTION_DAYS} days. Re-read the catalog in full, then follow the feed with since = the time that read started.`,
    { path },
  );

/** When the feed began recording (the migration's time; one row, read on a reader's first call only). */
const feedStartedAt = async (): Promise<Date> =>
  (await (await getDb()).catalogSearchState.findUniqueOrThrow({ where: { id: 1 } })).changesStartedAt;

export const listCatalogChanges = defineOperation({
  name: "list_catalog_changes",
  title: "List catalog changes",
  description: `Follow product and variant changes instead of re-reading the catalog: every store (or one store on /s/<slug>), oldest first. First call: since (RFC 3339 time, at most ${CHANGES_RETENTION_DAYS} days ago); then send pagination.cursor from each answer (the last page returns one too: poll with it later). pagination.limit ≤ ${CHANGES_LIMIT_MAX} (default ${CHANGES_LIMIT_DEFAULT}). Each change: kind created|updated|deleted, resource product|variant, product_id, variant_id, seller, changed_fields (updated), and a variant's price/list_price in minor units and availability after the change. resync_required: re-read the catalog with search_catalog, then follow from since = when you started.`,
  errors: ["resync_required"],
  scope: "both",
  input: ListCatalogChangesInputSchema,
  output: CatalogChangesOutputSchema,
  mutates: false,
  tier: "anonymous",
  buyerScope: "purchase:complete",
  mcp: {
    namespace: "catalog",
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  /** @throws AppError invalid_request (since and cursor both or neither, bad cursor), resync_required */
  run: async (ctx, input) => {
    const storeId = ctx.store?.id ?? null;
    const cursor = input.pagination?.cursor;
    if ((input.since === undefined) === (cursor === undefined)) {
      throw new AppError(
        "invalid_request",
        cursor === undefined
          ? "Send since (the first call) or pagination.cursor (every call after)"
          : "Send since or pagination.cursor, not both",
        { path: cursor === undefined ? "$.since" : "$" },
      );
    }
    const oldestAnswered = ctx.now.getTime() - CHANGES_RETENTION_MS;
    let after: FeedPosition;
    if (cursor !== undefined) {
      const decoded = await decodeFeedCursor(cursor, storeId);
      if (decoded.positionAt < oldestAnswered) {
        throw resyncRequired("pagination.cursor is older than the feed keeps", "$.pagination.cursor");
      }
      after = decoded;
    } else {
      const since = new Date(input.since!);
      if (since.getTime() > ctx.now.getTime() + FUTURE_SKEW_MS) {
        throw new AppError("invalid_request", "since is in the future", { path: "$.since" });
      }
      if (since.getTime() < oldestAnswered) {
        throw resyncRequired("since is older than the feed keeps", "$.since");
      }
      if (since < (await feedStartedAt())) {
        throw resyncRequired("since is before the feed began recording", "$.since");
      }
      after = await positionAtTime(storeId, since);
    }
    const limit = input.pagination?.limit ?? CHANGES_LIMIT_DEFAULT;
    const page = await readChanges(storeId, after, limit);
    const last = page.rows.at(-1);
    // a full page continues after its last change; otherwise every final change has been read: the next read
    // starts at the frontier. The cursor is dated by its position, not by when it was issued: the changes after a
    // full page's last one are about as old as it is (pruning goes by their age), those after the frontier are new.
    const next = page.hasMore && last ? { xid: last.xid, id: last.id } : page.frontier;
    const positionAt = page.hasMore && last ? new Date(last.changedAt) : ctx.now;
    return {
      body: {
        ucp: successEnvelope(["dev.ucp.shopping.catalog.search"], {}, ctx.ucpVersion),
        changes: page.rows.map(changeToWire),
        pagination: {
          has_next_page: page.hasMore,
          cursor: await encodeFeedCursor(storeId, next, positionAt),
        },
      },
    };
  },
});
