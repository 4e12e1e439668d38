import "server-only";

import { getDb } from "@/lib/config/db";
import { toAppError } from "@/lib/core/errors";
import type { Prisma } from "@/lib/generated/prisma/client";

import { writeProduct } from "../admin/write-product";
import type { ImportItem, RowRejection } from "./rows";

// Writes an import's pending products in batches, each product in its own transaction (a bad one never leaves half
// a product, nor stops the others), and records progress on the job row after each batch, so the page, served by
// any instance, reads it from the database. A lease on the row keeps two processes from writing the same batch; a
// process that dies leaves the lease to expire and the next poll of the page resumes the job.

const BATCH = 50;
const LEASE_MS = 30_000;

/** Which of a product's rows an error path of writeProduct points at ("$.variants[1].sku" → its second row). */
const rejectionOf = (item: ImportItem, error: { message: string; path?: string }): RowRejection => {
  const variant = /^\$\.variants\[(\d+)\]\.(\w+)/.exec(error.path ?? "");
  return {
    row: variant ? (item.rows[Number(variant[1])] ?? item.rows[0]!) : item.rows[0]!,
    field: variant ? variant[2]! : (error.path ?? "$").replace(/^\$\.?/, "") || "row",
    message: error.message,
  };
};

/** Runs (or resumes) the import until no product is pending; returns at once if another process holds it. */
export const runCatalogImport = async (importId: string): Promise<void> => {
  const db = await getDb();
  const now = new Date();
  const claimed = await db.catalogImport.updateMany({
    where: {
      id: importId,
      status: "running",
      OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }],
    },
    data: { leaseUntil: new Date(now.getTime() + LEASE_MS) },
  });
  if (claimed.count === 0) return;
  for (;;) {
    const job = await db.catalogImport.findUniqueOrThrow({
      where: { id: importId },
      include: { store: true },
    });
    const pending = job.pending as unknown as ImportItem[];
    const batch = pending.slice(0, BATCH);
    const rejected: RowRejection[] = [];
    let created = 0;
    try {
      for (const item of batch) {
        // The embedded database runs queries synchronously behind promises: without a turn of the event loop
        // between products the whole import is one chain of microtasks and the server answers no request (the
        // progress page included) until it ends.
        await new Promise((resolve) => setImmediate(resolve));
        try {
          await writeProduct(job.store, item.input, null);
          created++;
        } catch (thrown) {
          const error = toAppError(thrown);
          if (error.code === "internal_error") throw thrown;
          rejected.push(rejectionOf(item, error));
        }
      }
    } catch (thrown) {
      await db.catalogImport.update({
        where: { id: importId },
        data: { status: "failed", leaseUntil: null },
      });
      throw thrown;
    }
    const rest = pending.slice(batch.length);
    await db.catalogImport.update({
      where: { id: importId },
      data: {
        pending: rest as unknown as Prisma.InputJsonValue,
        processed: { increment: batch.length },
        created: { increment: created },
        rejected: [
          ...(job.rejected as unknown as RowRejection[]),
          ...rejected,
        ] as unknown as Prisma.InputJsonValue,
        status: rest.length === 0 ? "done" : "running",
        // held on through the next batch (the page must not see a gap as a stalled job)
        leaseUntil: rest.length === 0 ? null : new Date(Date.now() + LEASE_MS),
      },
    });
    if (rest.length === 0) return;
  }
};
