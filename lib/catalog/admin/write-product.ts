import "server-only";

import type { z } from "zod";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import type { Prisma, Product, Store, Variant } from "@/lib/generated/prisma/client";

import { jsonPath, type ProductInput } from "./schemas";

// The one writer of a merchant's product (create, edit and each imported product): the product and all of its
// variants in one transaction, so a refusal half-way (a taken SKU) leaves nothing half-written. The catalog search
// document follows by the database's own triggers in that same transaction (docs/search.md), whichever path wrote.

export type AdminProduct = Product & { variants: Variant[] };

/** The first issue of a failed parse as our error (the field's JSONPath and the message shown beside it). */
export const invalidInput = (error: z.ZodError): AppError => {
  const issue = error.issues[0]!;
  return new AppError("invalid_request", issue.message, { path: jsonPath(issue.path) });
};

const slugify = (text: string): string =>
  text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80)
    .replace(/-+$/, "") || "product";

const isUniqueViolation = (error: unknown): boolean =>
  typeof error === "object" && error !== null && (error as { code?: string }).code === "P2002";

/** Variant handles: the product's handle and the variant's title, unique within the product. */
const variantHandles = (productHandle: string, titles: string[]): string[] => {
  const used = new Set<string>();
  return titles.map((title, i) => {
    let handle = titles.length === 1 ? productHandle : `${productHandle}-${slugify(title)}`;
    if (used.has(handle)) handle = `${handle}-${i + 1}`;
    used.add(handle);
    return handle;
  });
};

const productData = (input: ProductInput) => {
  const several = input.variants.length > 1;
  return {
    title: input.title,
    descriptionText: input.description,
    categories: input.categories,
    tags: input.tags,
    attributes: input.attributes as Prisma.InputJsonValue,
    // several variants are told apart by their title, the one option a form or CSV row names
    options: (several
      ? [{ name: "Title", values: input.variants.map((v) => v.title) }]
      : []) as Prisma.InputJsonValue,
    media: input.images.map((image) => ({
      type: "image",
      url: image.url,
      ...(image.alt ? { alt_text: image.alt } : {}),
    })) as Prisma.InputJsonValue,
  };
};

const variantData = (store: Store, input: ProductInput, index: number, handle: string) => {
  const v = input.variants[index]!;
  return {
    handle,
    title: v.title,
    sku: v.sku ?? null,
    priceMinor: v.price,
    listPriceMinor: v.listPrice ?? null,
    currency: store.currency,
    inventory: v.inventory,
    weightGrams: v.weightGrams,
    options: (input.variants.length > 1 ? [{ name: "Title", label: v.title }] : []) as Prisma.InputJsonValue,
    position: index,
  };
};

/** Refuses a handle or SKU another product of the store already uses, naming the field. */
const assertFree = async (
  tx: Prisma.TransactionClient,
  store: Store,
  handle: string,
  input: ProductInput,
  productId: string | null,
): Promise<void> => {
  const clash = await tx.product.findFirst({
    where: { storeId: store.id, handle, ...(productId ? { NOT: { id: productId } } : {}) },
    select: { id: true },
  });
  if (clash) {
    throw new AppError("invalid_request", `Another product uses the handle "${handle}": choose another`, {
      path: "$.handle",
    });
  }
  const skus = input.variants.map((v) => v.sku).filter((s): s is string => Boolean(s));
  if (skus.length === 0) return;
  const taken = await tx.variant.findMany({
    where: { storeId: store.id, sku: { in: skus }, ...(productId ? { NOT: { productId } } : {}) },
    select: { sku: true },
  });
  if (taken.length > 0) {
    const index = input.variants.findIndex((v) => v.sku === taken[0]!.sku);
    throw new AppError("invalid_request", `Another product uses the SKU ${taken[0]!.sku}`, {
      path: `$.variants[${index}].sku`,
    });
  }
};

/** Creates (productId null) or replaces a product with `input`, all or nothing. @throws AppError invalid_request, not_found */
export const writeProduct = async (
  store: Store,
  input: ProductInput,
  productId: string | null,
): Promise<AdminProduct> => {
  const db = await getDb();
  try {
    return await db.$transaction(async (tx) => {
      if (productId === null) {
        const handle = input.handle ?? (await freeHandle(tx, store, slugify(input.title)));
        await assertFree(tx, store, handle, input, null);
        const id = newId("product");
        const handles = variantHandles(
          handle,
          input.variants.map((v) => v.title),
        );
        await tx.product.create({ data: { id, storeId: store.id, handle, ...productData(input) } });
        await tx.variant.createMany({
          data: input.variants.map((_, i) => ({
            id: newId("variant"),
            productId: id,
            storeId: store.id,
            ...variantData(store, input, i, handles[i]!),
          })),
        });
        return await tx.product.findUniqueOrThrow({
          where: { id },
          include: { variants: { orderBy: { position: "asc" } } },
        });
      }
      const existing = await tx.product.findFirst({
        where: { id: productId, storeId: store.id },
        include: { variants: true },
      });
      if (!existing)
        throw new AppError("not_found", "No such product in this store", { path: "$.productId" });
      const handle = input.handle ?? existing.handle;
      await assertFree(tx, store, handle, input, productId);
      for (const [i, v] of input.variants.entries()) {
        if (v.id && !existing.variants.some((e) => e.id === v.id)) {
          throw new AppError("invalid_request", "This variant is not part of the product", {
            path: `$.variants[${i}].id`,
          });
        }
      }
      await tx.product.update({ where: { id: productId }, data: { handle, ...productData(input) } });
      // Variants left out are removed; orders keep their own copy of title and price, so history stays intact.
      const kept = new Set(input.variants.map((v) => v.id).filter(Boolean));
      await tx.variant.deleteMany({ where: { productId, id: { notIn: [...kept] as string[] } } });
      const handles = variantHandles(
        handle,
        input.variants.map((v) => v.title),
      );
      // Handles and SKUs are unique per store: park first a kept variant whose handle or SKU another variant of
      // this edit is about to take, so a swap between variants cannot clash. Only those: a parked variant's
      // interim handle would show in the catalog change feed as a change of its handle and SKU.
      const isTakenByAnother = (e: Variant): boolean =>
        input.variants.some(
          (v, i) => v.id !== e.id && (handles[i] === e.handle || (v.sku !== undefined && v.sku === e.sku)),
        );
      for (const e of existing.variants.filter((e) => kept.has(e.id) && isTakenByAnother(e))) {
        await tx.variant.update({ where: { id: e.id }, data: { handle: `${e.id}-moving`, sku: null } });
      }
      for (const [i, v] of input.variants.entries()) {
        const data = variantData(store, input, i, handles[i]!);
        if (v.id) await tx.variant.update({ where: { id: v.id }, data });
        else {
          await tx.variant.create({
            data: { id: newId("variant"), productId, storeId: store.id, ...data },
          });
        }
      }
      return await tx.product.findUniqueOrThrow({
        where: { id: productId },
        include: { variants: { orderBy: { position: "asc" } } },
      });
    });
  } catch (error) {
    // two writers racing for one handle or SKU: the database's unique index decides, the loser is told
    if (!isUniqueViolation(error)) throw error;
    throw new AppError("invalid_request", "Another product took this handle or SKU a moment ago: try again", {
      path: "$.handle",
    });
  }
};

/** `base`, or base-2, base-3 … when taken (a title alone never makes a clash). */
const freeHandle = async (tx: Prisma.TransactionClient, store: Store, base: string): Promise<string> => {
  const taken = new Set(
    (
      await tx.product.findMany({
        where: { storeId: store.id, handle: { startsWith: base } },
        select: { handle: true },
      })
    ).map((p) => p.handle),
  );
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
};
