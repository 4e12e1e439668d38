import "server-only";

import { after } from "next/server";
import { z } from "zod";

import { createProduct } from "@/lib/catalog/admin/create-product";
import { deleteProduct } from "@/lib/catalog/admin/delete-product";
import { getAdminProduct, listProducts } from "@/lib/catalog/admin/list-products";
import { formatMajor, MAX_MINOR } from "@/lib/catalog/admin/major-units";
import { updateProduct } from "@/lib/catalog/admin/update-product";
import type { AdminProduct } from "@/lib/catalog/admin/write-product";
import { getCatalogImport, type CatalogImportProgress } from "@/lib/catalog/import/get-catalog-import";
import { runCatalogImport } from "@/lib/catalog/import/run-catalog-import";
import { MAX_IMPORT_BYTES, startCatalogImport } from "@/lib/catalog/import/start-catalog-import";
import { AppError } from "@/lib/core/errors";
import { logError } from "@/lib/core/log";
import type { Location, ShippingRate, Store } from "@/lib/generated/prisma/client";
import {
  createLocation,
  deleteLocation,
  listStoreLocations,
  updateLocation,
} from "@/lib/stores/locations-admin";
import { createShippingRate, deleteShippingRate, listShippingRates } from "@/lib/stores/shipping-rates";

import { defineMerchantRoute, type MerchantContext } from "./define";

// The shipping, location, catalog and import routes of the merchant REST API, over the operations the store admin
// runs (lib/stores/store-admin-ops.ts). Those operations take the admin's form fields: major-unit price texts,
// degrees, camelCase names. The API speaks integer minor units (micro-degrees for a location), snake_case: each
// route's schema checks the shape and the integers, converts them exactly (formatMajor: integer arithmetic, the
// operation parses the text back to the same integer) and lets the operation apply its own rules; a refusal of the
// operation is renamed to the API's field (`$.variants[0].listPrice` → `$.variants[0].list_price`).

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Runs an admin operation; its refusal names the field as the API spells it. */
export const onWire = async <T>(run: () => Promise<T>, renames: Record<string, string> = {}): Promise<T> => {
  try {
    return await run();
  } catch (thrown) {
    if (!(thrown instanceof AppError) || !thrown.path) throw thrown;
    throw new AppError(thrown.code, thrown.message, {
      path: thrown.path.replace(/\.(\w+)/g, (_, name: string) => `.${renames[name] ?? snake(name)}`),
      details: thrown.details,
      headers: thrown.headers,
      cause: thrown,
    });
  }
};

/** An amount in the store's currency, in minor units (cents for USD, yen for JPY). */
const Minor = z
  .number({ error: "Amounts are integers in minor units" })
  .int("Amounts are integers in minor units")
  .min(0, "An amount cannot be negative")
  .max(MAX_MINOR, "That amount is too large");

const major = (minor: number, store: Store) => formatMajor(minor, store.currency);
const majorOrUndefined = (minor: number | undefined, store: Store) =>
  minor === undefined ? undefined : major(minor, store);

const Id = z.strictObject({ id: z.string().min(1).max(64) });
const deleted = (id: string) => ({ id, deleted: true });

// ---- shipping rates ----

const rateView = (r: ShippingRate, store: Store) => ({
  id: r.id,
  code: r.code,
  title: r.title,
  country: r.country,
  region: r.region,
  currency: store.currency,
  price: r.priceMinor,
  free_over: r.freeOverMinor,
  free_for_tag: r.freeForTag,
  min_days: r.minDays,
  max_days: r.maxDays,
});

export const listShippingRatesRoute = defineMerchantRoute({
  name: "merchant_list_shipping_rates",
  title: "List shipping rates",
  description:
    'The store\'s shipping rates by destination (country, optional region, "*" for anywhere): price and free_over (the goods subtotal from which it is free) in minor units, and free_for_tag (free when every item shipped is a product with that tag).',
  method: "GET",
  path: "/shipping-rates",
  permission: "settings:read",
  input: z.strictObject({}),
  run: async (ctx) => ({
    shipping_rates: (await listShippingRates(ctx.store)).map((r) => rateView(r, ctx.store)),
  }),
});

export const createShippingRateRoute = defineMerchantRoute({
  name: "merchant_create_shipping_rate",
  title: "Add a shipping rate",
  description:
    'Adds a shipping rate: code (rates sharing a code are one option), title, country (two letters, or "*"), optional region, price and free_over in minor units, free_for_tag (a product tag: free when every item shipped has it), min_days and max_days.',
  method: "POST",
  path: "/shipping-rates",
  permission: "settings:write",
  input: z.strictObject({
    code: z.string(),
    title: z.string(),
    country: z.string(),
    region: z.string().optional(),
    price: Minor,
    free_over: Minor.optional(),
    free_for_tag: z.string().optional(),
    min_days: z.number().int().optional(),
    max_days: z.number().int().optional(),
  }),
  status: 201,
  run: async (ctx, input) =>
    rateView(
      await onWire(() =>
        createShippingRate(ctx.store, {
          code: input.code,
          title: input.title,
          country: input.country,
          region: input.region,
          price: major(input.price, ctx.store),
          freeOver: majorOrUndefined(input.free_over, ctx.store),
          freeForTag: input.free_for_tag,
          minDays: input.min_days,
          maxDays: input.max_days,
        }),
      ),
      ctx.store,
    ),
});

export const deleteShippingRateRoute = defineMerchantRoute({
  name: "merchant_delete_shipping_rate",
  title: "Remove a shipping rate",
  description: "Removes one of the store's shipping rates.",
  method: "DELETE",
  path: "/shipping-rates/{id}",
  permission: "settings:write",
  input: Id,
  run: async (ctx, input) => {
    await onWire(() => deleteShippingRate(ctx.store, { id: input.id }));
    return deleted(input.id);
  },
});

// ---- locations ----

/** Micro-degrees as the degree text the admin's schema reads (12345678 → "12.345678"), by integer arithmetic. */
const degreesText = (e6: number): string => {
  const abs = Math.abs(e6);
  return `${e6 < 0 ? "-" : ""}${Math.floor(abs / 1_000_000)}.${String(abs % 1_000_000).padStart(6, "0")}`;
};

const microDegrees = (max: number, what: string) =>
  z
    .number({ error: `Give the ${what} in integer micro-degrees` })
    .int(`Give the ${what} in integer micro-degrees`)
    .min(-max * 1_000_000, `The ${what} is from -${max * 1_000_000} to ${max * 1_000_000} micro-degrees`)
    .max(max * 1_000_000, `The ${what} is from -${max * 1_000_000} to ${max * 1_000_000} micro-degrees`);

const LocationWire = z.strictObject({
  name: z.string(),
  street_address: z.string(),
  locality: z.string(),
  region: z.string().optional(),
  postal_code: z.string().optional(),
  country: z.string(),
  latitude_e6: microDegrees(90, "latitude"),
  longitude_e6: microDegrees(180, "longitude"),
  services: z.array(z.string()).optional(),
});
const LOCATION_RENAMES = { latitude: "latitude_e6", longitude: "longitude_e6" };

/** The API's fields present in `input` as the admin operation's (an absent field stays absent: PATCH keeps it). */
const locationOpInput = (input: Partial<z.output<typeof LocationWire>>) => {
  const out: Record<string, unknown> = {};
  if (input.name !== undefined) out.name = input.name;
  if (input.street_address !== undefined) out.streetAddress = input.street_address;
  if (input.locality !== undefined) out.locality = input.locality;
  if (input.region !== undefined) out.region = input.region;
  if (input.postal_code !== undefined) out.postalCode = input.postal_code;
  if (input.country !== undefined) out.country = input.country;
  if (input.latitude_e6 !== undefined) out.latitude = degreesText(input.latitude_e6);
  if (input.longitude_e6 !== undefined) out.longitude = degreesText(input.longitude_e6);
  if (input.services !== undefined) out.services = input.services;
  return out;
};

const locationView = (l: Location) => ({
  id: l.id,
  name: l.name,
  address: l.address,
  latitude_e6: l.latitudeE6,
  longitude_e6: l.longitudeE6,
  services: l.services,
  created_at: l.createdAt.toISOString(),
});

export const listLocationsRoute = defineMerchantRoute({
  name: "merchant_list_locations",
  title: "List locations",
  description:
    "The store's physical locations (shop fronts, pickup points): address in UCP's field names, the point in integer micro-degrees, services.",
  method: "GET",
  path: "/locations",
  permission: "settings:read",
  input: z.strictObject({}),
  run: async (ctx) => ({ locations: (await listStoreLocations(ctx.store)).map(locationView) }),
});

export const createLocationRoute = defineMerchantRoute({
  name: "merchant_create_location",
  title: "Add a location",
  description:
    "Adds a location: name, street_address, locality, optional region and postal_code, country (two letters), latitude_e6 and longitude_e6 (integer micro-degrees), services (pickup, returns, repairs).",
  method: "POST",
  path: "/locations",
  permission: "settings:write",
  input: LocationWire,
  status: 201,
  run: async (ctx, input) =>
    locationView(await onWire(() => createLocation(ctx.store, locationOpInput(input)), LOCATION_RENAMES)),
});

export const updateLocationRoute = defineMerchantRoute({
  name: "merchant_update_location",
  title: "Change a location",
  description:
    'Changes the fields sent (the others stay); an empty region or postal_code ("") removes it. Same fields as adding one.',
  method: "PATCH",
  path: "/locations/{id}",
  permission: "settings:write",
  input: LocationWire.partial().extend(Id.shape),
  run: async (ctx, input) =>
    locationView(
      await onWire(
        () => updateLocation(ctx.store, { ...locationOpInput(input), id: input.id }),
        LOCATION_RENAMES,
      ),
    ),
});

export const deleteLocationRoute = defineMerchantRoute({
  name: "merchant_delete_location",
  title: "Remove a location",
  description: "Removes one of the store's locations.",
  method: "DELETE",
  path: "/locations/{id}",
  permission: "settings:write",
  input: Id,
  run: async (ctx, input) => {
    await onWire(() => deleteLocation(ctx.store, { id: input.id }));
    return deleted(input.id);
  },
});

// ---- products ----

const ProductWire = z.strictObject({
  handle: z.string().optional(),
  title: z.string(),
  description: z.string().optional(),
  categories: z.array(z.string()).optional(),
  tags: z.array(z.string()).optional(),
  attributes: z.array(z.strictObject({ name: z.string(), value: z.string() })).optional(),
  images: z.array(z.strictObject({ url: z.string(), alt: z.string().optional() })).optional(),
  variants: z.array(
    z.strictObject({
      id: z.string().optional(),
      title: z.string(),
      sku: z.string().optional(),
      price: Minor,
      list_price: Minor.optional(),
      inventory: z.number().int("inventory is a whole number"),
      weight_grams: z.number().int("weight_grams is a whole number").optional(),
    }),
  ),
});
const PRODUCT_RENAMES = { productId: "id" };

/** The API's product as the admin's product input (the one schema of lib/catalog/admin/schemas.ts). */
const productOpInput = (input: z.output<typeof ProductWire>, store: Store) => ({
  handle: input.handle,
  title: input.title,
  description: input.description,
  categories: input.categories,
  tags: input.tags,
  attributes: input.attributes,
  images: input.images,
  variants: input.variants.map((v) => ({
    id: v.id,
    title: v.title,
    sku: v.sku,
    price: major(v.price, store),
    listPrice: majorOrUndefined(v.list_price, store),
    inventory: v.inventory,
    weightGrams: v.weight_grams,
  })),
});

const productView = (p: AdminProduct) => ({
  id: p.id,
  handle: p.handle,
  title: p.title,
  description: p.descriptionText,
  categories: p.categories,
  tags: p.tags,
  attributes: p.attributes,
  images: (p.media as { url: string; alt_text?: string }[]).map((m) => ({
    url: m.url,
    alt: m.alt_text ?? null,
  })),
  variants: p.variants.map((v) => ({
    id: v.id,
    handle: v.handle,
    title: v.title,
    sku: v.sku,
    currency: v.currency,
    price: v.priceMinor,
    list_price: v.listPriceMinor,
    inventory: v.inventory,
    weight_grams: v.weightGrams,
  })),
  created_at: p.createdAt.toISOString(),
  updated_at: p.updatedAt.toISOString(),
});

export const listProductsRoute = defineMerchantRoute({
  name: "merchant_list_products",
  title: "List products",
  description:
    "The store's products with their variants, newest first, 25 a page: q matches title, handle or a variant's SKU (any case); page. Prices in minor units.",
  method: "GET",
  path: "/products",
  permission: "catalog:read",
  input: z.strictObject({ q: z.string().optional(), page: z.string().optional() }),
  run: async (ctx, input) => {
    const page = await onWire(() => listProducts(ctx.store, { query: input.q, page: input.page }), {
      query: "q",
    });
    return {
      products: page.products.map(productView),
      page: page.page,
      pages: page.pageCount,
      total_count: page.total,
    };
  },
});

export const getProductRoute = defineMerchantRoute({
  name: "merchant_get_product",
  title: "Get product",
  description: "One product of the store with its variants; prices in minor units.",
  method: "GET",
  path: "/products/{id}",
  permission: "catalog:read",
  input: Id,
  run: async (ctx, input) =>
    productView(await onWire(() => getAdminProduct(ctx.store, input.id), PRODUCT_RENAMES)),
});

export const createProductRoute = defineMerchantRoute({
  name: "merchant_create_product",
  title: "Create product",
  description:
    "Adds a product with its variants (at least one): handle (made from the title when absent), title, description, categories, tags, attributes, images, and per variant title, sku, price and list_price in minor units (integers), inventory, weight_grams. Handles and SKUs are unique in the store. All or nothing.",
  method: "POST",
  path: "/products",
  permission: "catalog:write",
  input: ProductWire,
  status: 201,
  run: async (ctx, input) =>
    productView(
      await onWire(() => createProduct(ctx.store, productOpInput(input, ctx.store)), PRODUCT_RENAMES),
    ),
});

export const updateProductRoute = defineMerchantRoute({
  name: "merchant_update_product",
  title: "Replace product",
  description:
    "Replaces a product's fields and variants with the body (the fields of create): a variant sent with its id keeps it (carts holding it still work), variants left out are removed. All or nothing.",
  method: "PUT",
  path: "/products/{id}",
  permission: "catalog:write",
  input: ProductWire.extend(Id.shape),
  run: async (ctx, input) =>
    productView(
      await onWire(
        () => updateProduct(ctx.store, { ...productOpInput(input, ctx.store), productId: input.id }),
        PRODUCT_RENAMES,
      ),
    ),
});

export const deleteProductRoute = defineMerchantRoute({
  name: "merchant_delete_product",
  title: "Delete product",
  description: "Removes a product and its variants; orders keep their own copy.",
  method: "DELETE",
  path: "/products/{id}",
  permission: "catalog:write",
  input: Id,
  run: async (ctx, input) => {
    await onWire(() => deleteProduct(ctx.store, { productId: input.id }), PRODUCT_RENAMES);
    return deleted(input.id);
  },
});

// ---- catalog imports ----

/**
 * Writes an import's pending products after the response (Next's `after`), in this process. Outside a request
 * scope (a script calling the handler) the run is simply not awaited. Either way, a run that dies leaves its lease
 * to expire and the next GET of the import resumes it, as the admin's progress page does.
 */
const runSoon = (importId: string): void => {
  const run = async () => {
    try {
      await runCatalogImport(importId);
    } catch (thrown) {
      logError(thrown instanceof Error ? thrown : new Error(String(thrown)), `import:${importId}`);
    }
  };
  try {
    after(run);
  } catch {
    void run();
  }
};

const importView = (p: CatalogImportProgress) => ({
  id: p.id,
  file_name: p.fileName,
  status: p.status,
  total: p.total,
  processed: p.processed,
  created: p.created,
  rejected: p.rejected,
  created_at: p.createdAt.toISOString(),
});

const progressOf = (ctx: MerchantContext, id: string) =>
  onWire(() => getCatalogImport(ctx.store, { importId: id }), { importId: "id" });

export const startImportRoute = defineMerchantRoute({
  name: "merchant_start_import",
  title: "Import a catalog file",
  description:
    "Starts importing a catalog file (the admin's CSV or JSON format, prices in major units as in the file; at most 10 MB): every row is checked at once (rejected rows listed with their row number, field and reason), valid products are written in the background. Answers the import's progress; follow it with GET /imports/{id}.",
  method: "POST",
  path: "/imports",
  permission: "catalog:write",
  input: z.strictObject({
    format: z.enum(["csv", "json"], { error: 'Use "csv" or "json"' }),
    content: z.string(),
    file_name: z.string().optional(),
  }),
  // the file's 10 MB as a JSON string (quotes and line breaks escaped)
  maxBodyBytes: 2 * MAX_IMPORT_BYTES,
  status: 201,
  run: async (ctx, input) => {
    const job = await onWire(
      () =>
        startCatalogImport(ctx.store, {
          fileName: input.file_name ?? `api-import.${input.format}`,
          format: input.format,
          text: input.content,
        }),
      { file: "content" },
    );
    if (job.status === "running") runSoon(job.id);
    return importView(await progressOf(ctx, job.id));
  },
});

export const getImportRoute = defineMerchantRoute({
  name: "merchant_get_import",
  title: "Get import progress",
  description:
    "How far an import is: status (running, done, failed), total, processed and created products, rejected rows (row, field, message). Reading an import whose writer went away resumes it, as the admin's progress page does.",
  method: "GET",
  path: "/imports/{id}",
  permission: "catalog:read",
  input: Id,
  run: async (ctx, input) => {
    const progress = await progressOf(ctx, input.id);
    if (progress.isStalled) runSoon(progress.id);
    return importView(progress);
  },
});

export const STORE_ROUTES = [
  listShippingRatesRoute,
  createShippingRateRoute,
  deleteShippingRateRoute,
  listLocationsRoute,
  createLocationRoute,
  updateLocationRoute,
  deleteLocationRoute,
  listProductsRoute,
  getProductRoute,
  createProductRoute,
  updateProductRoute,
  deleteProductRoute,
  startImportRoute,
  getImportRoute,
];
