import "server-only";

import { z } from "zod";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";

import type { RowRejection } from "./rows";

export type CatalogImportProgress = {
  id: string;
  fileName: string;
  status: "running" | "done" | "failed";
  total: number;
  processed: number;
  created: number;
  rejected: RowRejection[];
  /** No process holds the job although products are pending (the writer died): a poll may resume it. */
  isStalled: boolean;
  createdAt: Date;
};

export const GetCatalogImportInputSchema = z.strictObject({ importId: z.string().min(1).max(64) });

/** An import of `store` and how far it is. @throws AppError invalid_request, not_found */
export const getCatalogImport = async (store: Store, raw: unknown): Promise<CatalogImportProgress> => {
  const parsed = GetCatalogImportInputSchema.safeParse(raw);
  if (!parsed.success) throw new AppError("invalid_request", "Name the import", { path: "$.importId" });
  const { importId } = parsed.data;
  const job = await (
    await getDb()
  ).catalogImport.findFirst({
    where: { id: importId, storeId: store.id },
    omit: { pending: true },
  });
  if (!job) throw new AppError("not_found", "No such import in this store", { path: "$.importId" });
  return {
    id: job.id,
    fileName: job.fileName,
    status: job.status as CatalogImportProgress["status"],
    total: job.total,
    processed: job.processed,
    created: job.created,
    rejected: (job.rejected as unknown as RowRejection[]).toSorted((a, b) => a.row - b.row),
    isStalled: job.status === "running" && (!job.leaseUntil || job.leaseUntil < new Date()),
    createdAt: job.createdAt,
  };
};

/** The store's latest imports, newest first (without their rows). */
export const listCatalogImports = async (store: Store) =>
  (await getDb()).catalogImport.findMany({
    where: { storeId: store.id },
    orderBy: { createdAt: "desc" },
    take: 10,
    omit: { pending: true, rejected: true },
  });
