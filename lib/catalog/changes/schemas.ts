import { z } from "zod";

// Input of list_catalog_changes (POST /catalog/changes, POST /s/<slug>/catalog/changes, the MCP tool under
// `catalog`): where to start — `since` (a time) for the first call, `pagination.cursor` for every call after — and
// the page size. docs/catalog-changes.md.

/** How long changes are kept and answered (days). A `since` or a cursor older than this → resync_required. */
export const CHANGES_RETENTION_DAYS = 7;
export const CHANGES_RETENTION_MS = CHANGES_RETENTION_DAYS * 24 * 60 * 60 * 1000;
/** Rows stay this much longer than promised, so a cursor just inside the window never lands on pruned rows. */
export const CHANGES_PRUNE_GRACE_MS = 24 * 60 * 60 * 1000;
/** Page size: default and maximum. */
export const CHANGES_LIMIT_DEFAULT = 100;
export const CHANGES_LIMIT_MAX = 1000;

export const ListCatalogChangesInputSchema = z
  .object({
    /** RFC 3339 time: changes recorded at or after it (first call; later calls send the cursor). */
    since: z.iso
      .datetime({ offset: true, message: "must be an RFC 3339 time such as 2026-12-01T00:00:00Z" })
      .optional(),
    pagination: z
      .object({
        limit: z
          .number()
          .int()
          .min(1, "must be at least 1")
          .max(CHANGES_LIMIT_MAX, `the maximum page size is ${CHANGES_LIMIT_MAX}`)
          .optional(),
        cursor: z.string().min(1).max(1024).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type ListCatalogChangesInput = z.infer<typeof ListCatalogChangesInputSchema>;
