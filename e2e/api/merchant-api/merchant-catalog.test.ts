import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { createAccount, type AccountSummary } from "@/lib/accounts/accounts";
import { grantStoreRole } from "@/lib/accounts/store-access";
import { createMerchantKeyAs } from "@/lib/accounts/store-rails";
import { getDb } from "@/lib/config/db";
import { MERCHANT_PERMISSIONS, type MerchantPermission } from "@/lib/credentials/merchant-keys";
import type { Store } from "@/lib/generated/prisma/client";
import { MERCHANT_ROUTES } from "@/lib/merchant-api/routes";
import { STORE_ROUTES } from "@/lib/merchant-api/store-routes";

import { seedProduct, seedShippingRates, seedStore } from "../../factories";
import { callApp, readJson } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The merchant REST API's settings, shipping, location, catalog and import routes over the store admin's
// operations: integer minor units on the wire (the operations read the admin's major-unit texts), a refusal names the
// API's field (its JSONPath) and stores nothing, a key of store A answers store_not_found on every one of B's
// resources, and each route needs its permission.

type Json = Record<string, unknown>;
type Product = {
  id: string;
  handle: string;
  variants: { id: string; sku: string | null; price: number; list_price: number | null; inventory: number }[];
};

let storeA: Store;
let storeB: Store;
let keyA = "";
let keyB = "";
let owner: AccountSummary;

const keyOf = async (store: Store, permissions: readonly MerchantPermission[]) =>
  (await createMerchantKeyAs(owner, store.slug, { name: "script", permissions: [...permissions] })).key;

before(async () => {
  await prepareTestDatabase();
  [storeA, storeB] = [await seedStore(), await seedStore()];
  owner = await createAccount({
    name: "owner",
    email: `owner-${process.pid}-${randomUUID().slice(0, 8)}@example.com`,
    password: "long enough passphrase",
  });
  await grantStoreRole(owner.id, storeA.id, "owner");
  await grantStoreRole(owner.id, storeB.id, "owner");
  keyA = (
    await createMerchantKeyAs(owner, storeA.slug, { name: "A", permissions: [...MERCHANT_PERMISSIONS] })
  ).key;
  keyB = (
    await createMerchantKeyAs(owner, storeB.slug, { name: "B", permissions: [...MERCHANT_PERMISSIONS] })
  ).key;
});
after(async () => {
  await closeTestDatabase();
});

const api = async <T = Json>(
  method: string,
  store: Store,
  path: string,
  { key = keyA, body }: { key?: string; body?: unknown } = {},
) =>
  readJson<T>(
    await callApp(method, `/merchant/v1/stores/${store.slug}${path}`, {
      headers: { "x-api-key": key },
      ...(body === undefined ? {} : { body }),
    }),
  );

const messageOf = (res: { body: unknown }) =>
  (res.body as { messages?: { code?: string; path?: string }[] }).messages?.[0];

/** A refusal: the status, the code and the JSONPath of the field. */
const refused = (
  res: { status: number; text: string; body: unknown },
  status: number,
  code: string,
  path?: string,
) => {
  assert.equal(res.status, status, res.text);
  assert.equal(messageOf(res)?.code, code, res.text);
  if (path !== undefined) assert.equal(messageOf(res)?.path, path, res.text);
};

const PRODUCT = {
  title: "Linen shirt",
  description: "Washed linen",
  tags: ["Summer"],
  images: [{ url: "https://example.com/shirt.jpg", alt: "The shirt" }],
  variants: [
    { title: "Small", sku: `LS-S-${randomUUID().slice(0, 6)}`, price: 2599, list_price: 2999, inventory: 4 },
    { title: "Large", sku: `LS-L-${randomUUID().slice(0, 6)}`, price: 2799, inventory: 2, weight_grams: 300 },
  ],
};

/** Waits until an import is no longer running (its writer runs after the response). */
const settled = async (id: string) => {
  const db = await getDb();
  const deadline = Date.now() + 20_000;
  while ((await db.catalogImport.findUniqueOrThrow({ where: { id } })).status === "running") {
    assert.ok(Date.now() < deadline, `import ${id} never finished`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

const variantCount = async (store: Store) => (await getDb()).variant.count({ where: { storeId: store.id } });

describe("merchant REST API: settings, shipping, locations, catalog, imports", () => {
  test("settings: PATCH changes the fields sent, tax in basis points; bad input names its field and changes nothing", async () => {
    const ok = await api("PATCH", storeA, "/settings", { body: { tax_rate_bps: 825, name: "Renamed" } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.tax_rate_bps, 825);
    assert.equal(ok.body.name, "Renamed");
    assert.equal(ok.body.currency, storeA.currency);
    const db = await getDb();
    const stored = await db.store.findUniqueOrThrow({ where: { id: storeA.id } });
    assert.equal(stored.taxRateBps, 825);
    assert.equal(stored.mode, storeA.mode);

    refused(
      await api("PATCH", storeA, "/settings", { body: { tax_rate_bps: 8.25 } }),
      400,
      "invalid_request",
      "$.tax_rate_bps",
    );
    refused(
      await api("PATCH", storeA, "/settings", { body: { name: "  " } }),
      400,
      "invalid_request",
      "$.name",
    );
    refused(
      await api("PATCH", storeA, "/settings", { body: { slug: "other" } }),
      400,
      "invalid_request",
      "$",
    );
    assert.deepEqual(await db.store.findUniqueOrThrow({ where: { id: storeA.id } }), stored);
  });

  test("shipping rates: add in minor units, list, remove; a bad price or country is refused and nothing stored", async () => {
    const created = await api("POST", storeA, "/shipping-rates", {
      body: {
        code: "express",
        title: "Express",
        country: "us",
        price: 1250,
        free_over: 10000,
        free_for_tag: " Letterbox ",
        min_days: 1,
        max_days: 2,
      },
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.price, 1250);
    assert.equal(created.body.free_over, 10000);
    // compared with product tags, which are stored trimmed and lower-cased
    assert.equal(created.body.free_for_tag, "letterbox");
    assert.equal(created.body.country, "US");
    const db = await getDb();
    const row = await db.shippingRate.findUniqueOrThrow({ where: { id: created.body.id as string } });
    assert.equal(row.priceMinor, 1250);
    assert.equal(row.freeOverMinor, 10000);
    assert.equal(row.freeForTag, "letterbox");
    const list = await api<{ shipping_rates: { id: string; price: number; free_for_tag: string | null }[] }>(
      "GET",
      storeA,
      "/shipping-rates",
    );
    assert.equal(list.status, 200, list.text);
    assert.equal(list.body.shipping_rates.find((r) => r.id === row.id)?.price, 1250);
    assert.equal(list.body.shipping_rates.find((r) => r.id === row.id)?.free_for_tag, "letterbox");

    const count = await db.shippingRate.count({ where: { storeId: storeA.id } });
    const base = { code: "slow", title: "Slow", country: "US", price: 100 };
    for (const [body, path] of [
      [{ ...base, price: 12.5 }, "$.price"],
      [{ ...base, price: -1 }, "$.price"],
      [{ ...base, price: "1.00" }, "$.price"],
      [{ ...base, free_over: 1.5 }, "$.free_over"],
      [{ ...base, free_for_tag: "x".repeat(201) }, "$.free_for_tag"],
      [{ ...base, free_for_tag: 7 }, "$.free_for_tag"],
      [{ ...base, country: "XX" }, "$.country"],
      [{ ...base, min_days: 5, max_days: 2 }, "$.max_days"],
      [{ ...base, colour: "red" }, "$"],
    ] as const) {
      const res = await api("POST", storeA, "/shipping-rates", { body });
      refused(res, 400, "invalid_request");
      assert.ok(messageOf(res)?.path?.startsWith(path), `${JSON.stringify(body)}: ${res.text}`);
    }
    assert.equal(await db.shippingRate.count({ where: { storeId: storeA.id } }), count);

    const removed = await api("DELETE", storeA, `/shipping-rates/${row.id}`);
    assert.equal(removed.status, 200, removed.text);
    assert.equal(await db.shippingRate.findUnique({ where: { id: row.id } }), null);
    refused(await api("DELETE", storeA, `/shipping-rates/${row.id}`), 422, "not_found", "$.id");
  });

  test("locations: add in micro-degrees, PATCH keeps the fields not sent, remove; bad input changes nothing", async () => {
    const created = await api("POST", storeA, "/locations", {
      body: {
        name: "Harbour shop",
        street_address: "1 Quay St",
        locality: "Portland",
        region: "OR",
        postal_code: "97201",
        country: "US",
        latitude_e6: 45_512_345,
        longitude_e6: -122_658_700,
        services: ["pickup"],
      },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.body.id as string;
    assert.equal(created.body.latitude_e6, 45_512_345);
    assert.equal(created.body.longitude_e6, -122_658_700);

    const patched = await api("PATCH", storeA, `/locations/${id}`, {
      body: { name: "Quay shop", latitude_e6: -5 },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.name, "Quay shop");
    assert.equal(patched.body.latitude_e6, -5);
    assert.equal(patched.body.longitude_e6, -122_658_700);
    assert.deepEqual(patched.body.services, ["pickup"]);
    assert.equal((patched.body.address as Json).postal_code, "97201");

    const db = await getDb();
    const stored = await db.location.findUniqueOrThrow({ where: { id } });
    refused(
      await api("PATCH", storeA, `/locations/${id}`, { body: { latitude_e6: 91_000_000 } }),
      400,
      "invalid_request",
      "$.latitude_e6",
    );
    refused(
      await api("PATCH", storeA, `/locations/${id}`, { body: { country: "U1", name: "x" } }),
      400,
      "invalid_request",
      "$.country",
    );
    refused(
      await api("PATCH", storeA, `/locations/${id}`, { body: { services: ["valet"] } }),
      400,
      "invalid_request",
      "$.services.0",
    );
    refused(await api("PATCH", storeA, `/locations/nope`, { body: { name: "x" } }), 422, "not_found", "$.id");
    assert.deepEqual(await db.location.findUniqueOrThrow({ where: { id } }), stored);
    const list = await api<{ locations: { id: string }[] }>("GET", storeA, "/locations");
    assert.ok(
      list.body.locations.some((l) => l.id === id),
      list.text,
    );

    assert.equal((await api("DELETE", storeA, `/locations/${id}`)).status, 200);
    assert.equal(await db.location.findUnique({ where: { id } }), null);
  });

  test("products: create, list with q, get, replace keeping a variant's id, delete; prices in minor units", async () => {
    const created = await api<Product>("POST", storeA, "/products", { body: PRODUCT });
    assert.equal(created.status, 201, created.text);
    const product = created.body;
    assert.equal(product.handle, "linen-shirt");
    assert.deepEqual(
      product.variants.map((v) => [v.price, v.list_price, v.inventory]),
      [
        [2599, 2999, 4],
        [2799, null, 2],
      ],
    );
    const db = await getDb();
    const rows = await db.variant.findMany({
      where: { productId: product.id },
      orderBy: { position: "asc" },
    });
    assert.deepEqual(
      rows.map((v) => v.priceMinor),
      [2599, 2799],
    );

    const found = await api<{ products: Product[]; total_count: number }>("GET", storeA, "/products?q=LINEN");
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(
      found.body.products.map((p) => p.id),
      [product.id],
    );
    const none = await api<{ products: Product[] }>("GET", storeA, "/products?q=no-such-thing");
    assert.equal(none.body.products.length, 0);
    const one = await api<Product>("GET", storeA, `/products/${product.id}`);
    assert.equal(one.status, 200, one.text);
    assert.equal(one.body.variants[1]!.price, 2799);

    const small = product.variants[0]!;
    const replaced = await api<Product>("PUT", storeA, `/products/${product.id}`, {
      body: {
        ...PRODUCT,
        title: "Linen shirt II",
        variants: [{ ...PRODUCT.variants[0], id: small.id, price: 1999 }],
      },
    });
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(replaced.body.variants.length, 1);
    assert.equal(replaced.body.variants[0]!.id, small.id);
    assert.equal(replaced.body.variants[0]!.price, 1999);
    assert.equal((await db.variant.findUniqueOrThrow({ where: { id: small.id } })).priceMinor, 1999);

    assert.equal((await api("DELETE", storeA, `/products/${product.id}`)).status, 200);
    assert.equal(await db.product.findUnique({ where: { id: product.id } }), null);
    refused(await api("GET", storeA, `/products/${product.id}`), 422, "not_found", "$.id");
    refused(await api("DELETE", storeA, `/products/${product.id}`), 422, "not_found", "$.id");
  });

  test("products: bad input is refused with the API's JSONPath and nothing is stored", async () => {
    const taken = await seedProduct(storeA, {
      variants: [{ priceMinor: 100, inventory: 1, sku: `TAKEN-${randomUUID().slice(0, 6)}` }],
    });
    const takenSku = taken.variants[0]!.sku!;
    const variant = PRODUCT.variants[0]!;
    const db = await getDb();
    const before = await variantCount(storeA);
    const productsBefore = await db.product.count({ where: { storeId: storeA.id } });
    for (const [body, path] of [
      [{ ...PRODUCT, variants: [{ ...variant, price: 25.99 }] }, "$.variants[0].price"],
      [
        { ...PRODUCT, variants: [variant, { ...PRODUCT.variants[1], list_price: -5 }] },
        "$.variants[1].list_price",
      ],
      [{ ...PRODUCT, variants: [] }, "$.variants"],
      [{ ...PRODUCT, title: "" }, "$.title"],
      [{ ...PRODUCT, handle: "Not A Handle" }, "$.handle"],
      [{ ...PRODUCT, images: [{ url: "javascript:alert(1)" }] }, "$.images[0].url"],
      [
        { ...PRODUCT, variants: [variant, { ...PRODUCT.variants[1], sku: variant.sku }] },
        "$.variants[1].sku",
      ],
      [{ ...PRODUCT, variants: [variant, { ...PRODUCT.variants[1], sku: takenSku }] }, "$.variants[1].sku"],
      [{ ...PRODUCT, variants: [{ ...variant, weight_grams: -1 }] }, "$.variants[0].weight_grams"],
      [{ ...PRODUCT, variants: [{ ...variant, price: 2_147_483_648 }] }, "$.variants[0].price"],
    ] as const) {
      const res = await api("POST", storeA, "/products", { body });
      refused(res, 400, "invalid_request", path);
    }
    refused(
      await api("PUT", storeA, `/products/${taken.id}`, {
        body: { ...PRODUCT, variants: [{ ...variant, id: "var_elsewhere" }] },
      }),
      400,
      "invalid_request",
      "$.variants[0].id",
    );
    refused(await api("PUT", storeA, "/products/prd_missing", { body: PRODUCT }), 422, "not_found", "$.id");
    refused(await api("GET", storeA, "/products?page=0"), 400, "invalid_request", "$.page");
    assert.equal(await variantCount(storeA), before);
    assert.equal(await db.product.count({ where: { storeId: storeA.id } }), productsBefore);
    assert.equal(
      (await db.variant.findUniqueOrThrow({ where: { id: taken.variants[0]!.id } })).priceMinor,
      100,
    );
  });

  test("imports: a CSV is checked at once and written without anyone polling; GET shows progress and rejected rows", async () => {
    const handle = `imp-${randomUUID().slice(0, 8)}`;
    const csv = [
      "handle,title,variant_title,sku,price,inventory",
      `${handle},Imported mug,Blue,,12.50,3`,
      `${handle},,Red,,12.75,1`,
      `,Bad price,Default,,1.234,1`,
    ].join("\n");
    const started = await api("POST", storeA, "/imports", {
      body: { format: "csv", content: csv, file_name: "mugs.csv" },
    });
    assert.equal(started.status, 201, started.text);
    const id = started.body.id as string;
    assert.equal(started.body.file_name, "mugs.csv");
    assert.equal(started.body.total, 2);
    const db = await getDb();
    // nobody reads the import: the run started by POST writes it
    const deadline = Date.now() + 20_000;
    while ((await db.catalogImport.findUniqueOrThrow({ where: { id } })).status === "running") {
      assert.ok(Date.now() < deadline, "the import never finished");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const progress = await api<{
      status: string;
      created: number;
      processed: number;
      rejected: { row: number; field: string }[];
    }>("GET", storeA, `/imports/${id}`);
    assert.equal(progress.status, 200, progress.text);
    assert.equal(progress.body.status, "done");
    assert.equal(progress.body.processed, 2);
    assert.equal(progress.body.created, 1);
    assert.deepEqual(
      progress.body.rejected.map((r) => [r.row, r.field]),
      [[4, "price"]],
    );
    const mug = await db.product.findFirstOrThrow({
      where: { storeId: storeA.id, handle },
      include: { variants: { orderBy: { position: "asc" } } },
    });
    assert.deepEqual(
      mug.variants.map((v) => v.priceMinor),
      [1250, 1275],
    );

    // a file larger than the API's usual 1 MB body is accepted on this route
    const json = await api("POST", storeA, "/imports", {
      body: {
        format: "json",
        content: `${JSON.stringify([{ title: "Json cup", price: "4.00", inventory: 1 }])}${" ".repeat(1_500_000)}`,
      },
    });
    assert.equal(json.status, 201, json.text);
    await settled(json.body.id as string);

    const imports = await db.catalogImport.count({ where: { storeId: storeA.id } });
    refused(
      await api("POST", storeA, "/imports", { body: { format: "xml", content: csv } }),
      400,
      "invalid_request",
      "$.format",
    );
    refused(
      await api("POST", storeA, "/imports", {
        body: { format: "csv", content: "title,price,colour\nA,1,red" },
      }),
      400,
      "invalid_request",
      "$.content",
    );
    refused(
      await api("POST", storeA, "/imports", { body: { format: "csv" } }),
      400,
      "invalid_request",
      "$.content",
    );
    assert.equal(await db.catalogImport.count({ where: { storeId: storeA.id } }), imports);
    refused(await api("GET", storeA, "/imports/imp_missing"), 422, "not_found", "$.id");
  });

  test("a stalled import (its writer went away) is resumed by GET /imports/{id}", async () => {
    const handle = `stall-${randomUUID().slice(0, 8)}`;
    const started = await api("POST", storeA, "/imports", {
      body: { format: "csv", content: `handle,title,price,inventory\n${handle},Stalled,1.00,1` },
    });
    assert.equal(started.status, 201, started.text);
    const id = started.body.id as string;
    const db = await getDb();
    const deadline = Date.now() + 20_000;
    while ((await db.catalogImport.findUniqueOrThrow({ where: { id } })).status === "running") {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // make it look like a writer died half-way: the product pending again, no lease
    await db.product.deleteMany({ where: { storeId: storeA.id, handle } });
    const job = await db.catalogImport.findUniqueOrThrow({ where: { id } });
    const { prepareCsvImport } = await import("@/lib/catalog/import/rows");
    const pending = prepareCsvImport(
      `handle,title,price,inventory\n${handle},Stalled,1.00,1`,
      storeA.currency,
    ).items;
    await db.catalogImport.update({
      where: { id },
      data: { status: "running", processed: 0, created: 0, leaseUntil: null, pending: pending as never },
    });
    assert.equal(job.created, 1);
    const first = await api("GET", storeA, `/imports/${id}`);
    assert.equal(first.status, 200, first.text);
    while ((await db.catalogImport.findUniqueOrThrow({ where: { id } })).status === "running") {
      assert.ok(Date.now() < deadline, "the stalled import was not resumed");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal((await api("GET", storeA, `/imports/${id}`)).body.created, 1);
    assert.ok(await db.product.findFirst({ where: { storeId: storeA.id, handle } }));
  });

  test("a key of store A is answered as an unknown store on every one of B's resources; B's own key reaches them", async () => {
    const db = await getDb();
    const productB = await seedProduct(storeB);
    await seedShippingRates(storeB, [{ code: "b-rate", priceMinor: 700 }]);
    const rateB = await db.shippingRate.findFirstOrThrow({ where: { storeId: storeB.id } });
    const locationB = await api("POST", storeB, "/locations", {
      key: keyB,
      body: {
        name: "B",
        street_address: "2 Road",
        locality: "Town",
        country: "GB",
        latitude_e6: 1,
        longitude_e6: 2,
      },
    });
    assert.equal(locationB.status, 201, locationB.text);
    const importB = await api("POST", storeB, "/imports", {
      key: keyB,
      body: { format: "csv", content: "title,price,inventory\nB thing,1.00,1" },
    });
    assert.equal(importB.status, 201, importB.text);
    await settled(importB.body.id as string);
    const ids: Record<string, string> = {
      "/products": productB.id,
      "/shipping-rates": rateB.id,
      "/locations": locationB.body.id as string,
      "/imports": importB.body.id as string,
    };
    const snapshot = async () => ({
      store: await db.store.findUniqueOrThrow({ where: { id: storeB.id } }),
      products: await db.product.findMany({
        where: { storeId: storeB.id },
        include: { variants: true },
        orderBy: { id: "asc" },
      }),
      rates: await db.shippingRate.findMany({ where: { storeId: storeB.id }, orderBy: { id: "asc" } }),
      locations: await db.location.findMany({ where: { storeId: storeB.id }, orderBy: { id: "asc" } }),
      imports: await db.catalogImport.count({ where: { storeId: storeB.id } }),
    });
    const before = await snapshot();
    const bodies: Record<string, unknown> = {
      merchant_update_store: { name: "Taken" },
      merchant_create_shipping_rate: { code: "x", title: "X", country: "US", price: 1 },
      merchant_create_location: {
        name: "X",
        street_address: "x",
        locality: "x",
        country: "US",
        latitude_e6: 0,
        longitude_e6: 0,
      },
      merchant_update_location: { name: "Taken" },
      merchant_create_product: PRODUCT,
      merchant_update_product: PRODUCT,
      merchant_start_import: { format: "csv", content: "title,price,inventory\nX,1.00,1" },
    };
    const routes = MERCHANT_ROUTES.filter(
      (r) => STORE_ROUTES.includes(r as never) || r.name === "merchant_update_store",
    );
    assert.equal(routes.length, STORE_ROUTES.length + 1);
    for (const route of routes) {
      const prefix = `/${route.path.split("/")[1]}`;
      const path = route.path.replace("{id}", ids[prefix] ?? "x");
      const res = await api(route.method, storeB, path, { key: keyA, body: bodies[route.name] });
      refused(res, 404, "store_not_found", "$.store_slug");
      if (route.method === "GET")
        assert.equal((await api(route.method, storeB, path, { key: keyB })).status, 200, route.name);
    }
    assert.deepEqual(await snapshot(), before);
  });

  test("each route needs its permission: a read-only catalog key cannot write, a settings key cannot read the catalog", async () => {
    const catalogRead = await keyOf(storeA, ["catalog:read"]);
    const settingsRead = await keyOf(storeA, ["settings:read", "orders:read", "orders:write"]);
    const db = await getDb();
    const before = await variantCount(storeA);
    const imports = await db.catalogImport.count({ where: { storeId: storeA.id } });
    assert.equal((await api("GET", storeA, "/products", { key: catalogRead })).status, 200);
    for (const [method, path, key, body, permission] of [
      ["POST", "/products", catalogRead, PRODUCT, "catalog:write"],
      [
        "POST",
        "/imports",
        catalogRead,
        { format: "csv", content: "title,price,inventory\nX,1.00,1" },
        "catalog:write",
      ],
      ["GET", "/products", settingsRead, undefined, "catalog:read"],
      ["GET", "/imports/x", settingsRead, undefined, "catalog:read"],
      ["PATCH", "/settings", settingsRead, { name: "x" }, "settings:write"],
      [
        "POST",
        "/shipping-rates",
        catalogRead,
        { code: "x", title: "X", country: "US", price: 1 },
        "settings:write",
      ],
      ["GET", "/locations", catalogRead, undefined, "settings:read"],
    ] as const) {
      const res = await api(method, storeA, path, { key, body });
      refused(res, 403, "insufficient_scope");
      assert.ok(res.text.includes(permission), `${method} ${path} needs ${permission}: ${res.text}`);
    }
    assert.equal(await variantCount(storeA), before);
    assert.equal(await db.catalogImport.count({ where: { storeId: storeA.id } }), imports);
  });
});
