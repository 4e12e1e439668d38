import "server-only";

import { z } from "zod";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import type { CatalogImport, Prisma, Store } from "@/lib/generated/prisma/client";

import { ImportFileError, prepareCsvImport, prepareJsonImport } from "./rows";

/** Largest file accepted: 10 MB of text (10,000 products with long descriptions fit). */
export const MAX_IMPORT_BYTES = 10 * 1024 * 1024;

export const StartCatalogImportInputSchema = z.strictObject({
  fileName: z.string().trim().min(1, "Choose a file").max(255),
  format: z.enum(["csv", "json"], { error: "Use a .csv or .json file" }),
  text: z.string().max(MAX_IMPORT_BYTES, "The file is larger than 10 MB: split it"),
});
export type StartCatalogImportInput = z.input<typeof StartCatalogImportInputSchema>;

/**
 * Checks every row of a catalog file and records an import job: rejected rows at once, valid products pending.
 * Nothing is written to the catalog yet; `runCatalogImport` writes the pending products in batches.
 * @throws AppError invalid_request ($.file: the whole file is unreadable, has unknown columns or too many products)
 */
export const startCatalogImport = async (store: Store, raw: unknown): Promise<CatalogImport> => {
  const parsed = StartCatalogImportInputSchema.safeParse(raw);
  if (!parsed.success) {
    throw new AppError("invalid_request", parsed.error.issues[0]!.message, { path: "$.file" });
  }
  const { fileName, format, text } = parsed.data;
  let prepared;
  try {
    prepared =
      format === "csv" ? prepareCsvImport(text, store.currency) : prepareJsonImport(text, store.currency);
  } catch (error) {
    if (error instanceof ImportFileError)
      throw new AppError("invalid_request", error.message, { path: "$.file" });
    throw error;
  }
  if (prepared.total === 0)
    throw new AppError("invalid_request", "The file has no products", { path: "$.file" });
  const done = prepared.items.length === 0;
  return (await getDb()).catalogImport.create({
    data: {
      id: newId("catalogImport"),
      storeId: store.id,
      fileName,
      status: done ? "done" : "running",
      total: prepared.total,
      processed: prepared.total - prepared.items.length,
      pending: prepared.items as unknown as Prisma.InputJsonValue,
      rejected: prepared.rejected as unknown as Prisma.InputJsonValue,
    },
  });
};
