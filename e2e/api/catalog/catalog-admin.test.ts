import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { createAccount } from "@/lib/accounts/accounts";
import { grantStoreRole } from "@/lib/accounts/store-access";
import { createProduct } from "@/lib/catalog/admin/create-product";
import { deleteProduct } from "@/lib/catalog/admin/delete-product";
import { listProducts } from "@/lib/catalog/admin/list-products";
import { updateProduct } from "@/lib/catalog/admin/update-product";
import { getCatalogImport } from "@/lib/catalog/import/get-catalog-import";
import { runCatalogImport } from "@/lib/catalog/import/run-catalog-import";
import { startCatalogImport } from "@/lib/catalog/import/start-catalog-import";
import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";
import { createStore } from "@/lib/stores/create-store";
import { createLocation } from "@/lib/stores/locations-admin";
import { setStripeKeys } from "@/lib/stores/set-stripe-keys";
import { createShippingRate, listShippingRates } from "@/lib/stores/shipping-rates";
import { runStoreAdminOp, STORE_ADMIN_OPS, type StoreAdminOpName } from "@/lib/stores/store-admin-ops";
import { updateStoreSettings } from "@/lib/stores/update-store-settings";

import { rest } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The merchant admin's store settings and catalog operations, as the admin's server actions run them: products
// written whole or not at all (prices typed in major units, stored in minor units, never rounded), the search index
// following every change, a CSV import that writes the good products and reports the bad rows, settings refused
// with a clear code, and the access table: staff refused on owner actions, nobody reaching another store.

before(prepareTestDatabase);
after(closeTestDatabase);

const WORD = `zq${randomBytes(3).toString("hex")}`;
const unique = () => `${process.pid}-${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`;
const account = (name: string) =>
  createAccount({
    name,
    email: `${name.toLowerCase()}-${unique()}@example.com`,
    password: "long enough passphrase",
  });
const newStore = async (ownerId: string, currency = "USD") =>
  createStore(
    { name: "Admin Shop", slug: `adm-${unique()}`, currency, country: "US", shipping: "later" },
    ownerId,
  );

const rejects = async (promise: Promise<unknown>, code: string, path?: string, pattern?: RegExp) =>
  assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.code, code, error.message);
    if (path !== undefined) assert.equal(error.path, path);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });

const searchTitles = async (store: Store, query: string): Promise<string[]> => {
  const res = await rest<{ products: { title: string }[] }>("POST", `/s/${store.slug}/catalog/search`, {
    body: { query },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.products.map((p) => p.title).sort();
};

const snapshot = async (store: Store) => {
  const db = await getDb();
  return JSON.stringify({
    store: await db.store.findUnique({ where: { id: store.id }, omit: { updatedAt: true } }),
    products: await db.product.findMany({
      where: { storeId: store.id },
      orderBy: { id: "asc" },
      omit: { updatedAt: true },
    }),
    variants: await db.variant.findMany({
      where: { storeId: store.id },
      orderBy: { id: "asc" },
      omit: { updatedAt: true },
    }),
    rates: await db.shippingRate.findMany({ where: { storeId: store.id }, orderBy: { id: "asc" } }),
    locations: await db.location.findMany({ where: { storeId: store.id }, orderBy: { id: "asc" } }),
  });
};

const boots = (overrides: Record<string, unknown> = {}) => ({
  title: `Trail ${WORD} Boots`,
  description: "Waterproof leather boots",
  categories: ["Apparel & Accessories > Shoes"],
  tags: ["Outdoor", "boots"],
  attributes: [{ name: "material", value: "leather" }],
  images: [{ url: "https://cdn.example.com/boots.jpg", alt: "Boots" }],
  variants: [
    { title: "Size 42", sku: `B42-${WORD}`, price: "129.99", listPrice: "149", inventory: "7" },
    { title: "Size 43", sku: `B43-${WORD}`, price: "129.99", inventory: 0 },
  ],
  ...overrides,
});

describe("products", () => {
  let owner: Awaited<ReturnType<typeof account>>;
  let store: Store;
  before(async () => {
    owner = await account("Owner");
    store = await newStore(owner.id);
  });

  test("a product with two variants: minor units stored, tags lower-cased, and search finds it", async () => {
    const product = await createProduct(store, boots());
    assert.equal(product.handle, `trail-${WORD}-boots`);
    assert.deepEqual(product.tags, ["outdoor", "boots"]);
    assert.deepEqual(
      product.variants.map((v) => [v.title, v.priceMinor, v.listPriceMinor, v.inventory, v.currency]),
      [
        ["Size 42", 12999, 14900, 7, "USD"],
        ["Size 43", 12999, null, 0, "USD"],
      ],
    );
    assert.deepEqual(product.media, [
      { type: "image", url: "https://cdn.example.com/boots.jpg", alt_text: "Boots" },
    ]);
    assert.deepEqual(await searchTitles(store, WORD), [`Trail ${WORD} Boots`]);
  });

  test("bad input is refused beside its field and writes nothing", async () => {
    const before = await snapshot(store);
    const jpy = await newStore(owner.id, "JPY");
    const cases: [Store, Record<string, unknown>, string, RegExp][] = [
      [
        store,
        boots({ variants: [{ title: "A", price: "12.345", inventory: 1 }] }),
        "$.variants[0].price",
        /USD has 2 decimals: 12.345 has 3/,
      ],
      [
        jpy,
        boots({ variants: [{ title: "A", price: "1200.5", inventory: 1 }] }),
        "$.variants[0].price",
        /JPY has no minor unit/,
      ],
      [
        store,
        boots({ variants: [{ title: "A", price: "-1", inventory: 1 }] }),
        "$.variants[0].price",
        /zero or more/,
      ],
      [
        store,
        boots({ variants: [{ title: "A", price: "1e3", inventory: 1 }] }),
        "$.variants[0].price",
        /such as 12.50/,
      ],
      [
        store,
        boots({ variants: [{ title: "A", price: "1", inventory: "1.5" }] }),
        "$.variants[0].inventory",
        /whole number/,
      ],
      [store, boots({ images: [{ url: "javascript:alert(1)" }] }), "$.images[0].url", /http\(s\) URL/],
      [store, boots({ title: "  " }), "$.title", /title/],
      [store, boots({ variants: [] }), "$.variants", /at least one variant/],
      [store, boots({ handle: "Bad Handle!" }), "$.handle", /lower-case/],
      [store, boots({ extra: 1 }), "$", /Unrecognized key/i],
      // the SKU of the product made above: the whole product is refused, not just that variant
      [
        store,
        boots({
          title: "Other",
          variants: [
            { title: "X", sku: "fresh-sku", price: "1", inventory: 1 },
            { title: "Y", sku: `B43-${WORD}`, price: "1", inventory: 1 },
          ],
        }),
        "$.variants[1].sku",
        /Another product uses the SKU/,
      ],
      [
        store,
        boots({ title: "Other", handle: `trail-${WORD}-boots` }),
        "$.handle",
        /Another product uses the handle/,
      ],
    ];
    for (const [where, input, path, pattern] of cases) {
      await rejects(createProduct(where, input), "invalid_request", path, pattern);
    }
    assert.equal(await snapshot(store), before);
    assert.equal((await listProducts(jpy, {})).total, 0);
  });

  test("editing keeps variant ids, removes the ones left out, and the search index follows", async () => {
    const product = await createProduct(
      store,
      boots({
        title: `Harbor ${WORD} Jacket`,
        variants: [
          { title: "S", sku: `J-S-${WORD}`, price: "80", inventory: 1 },
          { title: "M", sku: `J-M-${WORD}`, price: "80", inventory: 1 },
        ],
      }),
    );
    const [s, m] = product.variants;
    const edited = await updateProduct(store, {
      ...boots({ title: `Harbour ${WORD} Parka` }),
      productId: product.id,
      // M first, renamed SKU swapped with S's: the unique SKUs must not clash half-way
      variants: [
        { id: m!.id, title: "M", sku: `J-S-${WORD}`, price: "95.50", inventory: 3 },
        { title: "L", sku: `J-L-${WORD}`, price: "99", inventory: 2 },
      ],
    });
    assert.equal(edited.handle, product.handle);
    assert.deepEqual(
      edited.variants.map((v) => [v.id === m!.id, v.title, v.sku, v.priceMinor]),
      [
        [true, "M", `J-S-${WORD}`, 9550],
        [false, "L", `J-L-${WORD}`, 9900],
      ],
    );
    assert.equal(await (await getDb()).variant.count({ where: { id: s!.id } }), 0);
    assert.deepEqual(await searchTitles(store, "Parka"), [`Harbour ${WORD} Parka`]);
    assert.deepEqual(await searchTitles(store, "Jacket"), []);

    const before = await snapshot(store);
    await rejects(
      updateProduct(store, {
        ...boots(),
        productId: product.id,
        variants: [{ title: "M", price: "1.001", inventory: 1 }],
      }),
      "invalid_request",
      "$.variants[0].price",
    );
    await rejects(updateProduct(store, { ...boots(), productId: "prod_nope" }), "not_found");
    assert.equal(await snapshot(store), before);

    await deleteProduct(store, { productId: product.id });
    assert.deepEqual(await searchTitles(store, "Parka"), []);
    await rejects(deleteProduct(store, { productId: product.id }), "not_found");
  });

  test("the list pages and searches title, handle and SKU", async () => {
    const shop = await newStore(owner.id);
    for (let i = 0; i < 27; i++) {
      await createProduct(shop, {
        title: `Item ${i}`,
        variants: [{ title: "Default", sku: `SKU-${i}`, price: "1", inventory: 1 }],
      });
    }
    const first = await listProducts(shop, {});
    assert.deepEqual(
      [first.total, first.pageCount, first.products.length, first.products[0]!.title],
      [27, 2, 25, "Item 26"],
    );
    assert.equal((await listProducts(shop, { page: "2" })).products.length, 2);
    assert.deepEqual(
      (await listProducts(shop, { query: "sku-13" })).products.map((p) => p.title),
      ["Item 13"],
    );
    await rejects(listProducts(shop, { page: "0" }), "invalid_request", "$.page");
  });
});

describe("bulk import", () => {
  test("good products are written, bad rows are reported by row and field, and the search index follows", async () => {
    const owner = await account("Importer");
    const store = await newStore(owner.id);
    await createProduct(store, {
      title: "Existing",
      variants: [{ title: "Default", sku: "TAKEN", price: "1", inventory: 1 }],
    });
    const csv = [
      "handle,title,description,variant_title,sku,price,list_price,inventory,categories,tags,attributes,image_urls",
      `lamp-${WORD},Desk ${WORD} Lamp,"Warm light, dimmable",Default,L1,24.50,,5,Home > Lighting,Home|Lamp,color=white,https://cdn.example.com/lamp.jpg`,
      `tee-${WORD},Tee ${WORD},"Soft ""organic"" cotton`,
      `line two",Small,T-S,19,,3,,,,`,
      `tee-${WORD},,,Large,T-L,19,,4,,,,`,
      `bad-price,Bad ${WORD} Price,,Default,,1.234,,1,,,,`,
      `,,,Default,,5,,1,,,,`,
      `bad-url,Bad ${WORD} Url,,Default,,5,,1,,,,ftp://example.com/a.jpg`,
      `clash,Clash ${WORD},,Default,TAKEN,5,,1,,,,`,
      `bad-attr,Bad ${WORD} Attr,,Default,,5,,1,,,novalue,`,
      "",
    ].join("\r\n");
    const job = await startCatalogImport(store, { fileName: "catalog.csv", format: "csv", text: csv });
    assert.deepEqual([job.status, job.total], ["running", 7]);
    await runCatalogImport(job.id);
    const progress = await getCatalogImport(store, { importId: job.id });
    assert.deepEqual(
      [progress.status, progress.total, progress.processed, progress.created],
      ["done", 7, 7, 2],
    );
    // the admin's page reads it through the operations table, as the store's staff or owner
    assert.deepEqual(
      await runStoreAdminOp(owner, store.slug, "getCatalogImport", { importId: job.id }),
      progress,
    );
    assert.deepEqual(
      progress.rejected.map((r) => [r.row, r.field]),
      [
        [5, "price"],
        [6, "title"],
        [7, "image_urls"],
        [8, "sku"],
        [9, "attributes"],
      ],
    );
    assert.match(progress.rejected[0]!.message, /USD has 2 decimals/);
    const db = await getDb();
    const tee = await db.product.findFirstOrThrow({
      where: { storeId: store.id, handle: `tee-${WORD}` },
      include: { variants: { orderBy: { position: "asc" } } },
    });
    assert.equal(tee.descriptionText, 'Soft "organic" cotton\r\nline two');
    assert.deepEqual(
      tee.variants.map((v) => [v.title, v.sku, v.priceMinor, v.inventory]),
      [
        ["Small", "T-S", 1900, 3],
        ["Large", "T-L", 1900, 4],
      ],
    );
    // no half-written product: the clashing row left no product behind
    assert.equal(await db.product.count({ where: { storeId: store.id, handle: "clash" } }), 0);
    assert.deepEqual(await searchTitles(store, WORD), [`Desk ${WORD} Lamp`, `Tee ${WORD}`]);
    // running it again (a second instance, a retry) writes nothing twice
    await runCatalogImport(job.id);
    assert.equal(await db.product.count({ where: { storeId: store.id } }), 3);
  });

  test("JSON imports use the same schema; unreadable files are refused whole", async () => {
    const owner = await account("Jsoner");
    const store = await newStore(owner.id);
    const job = await startCatalogImport(store, {
      fileName: "catalog.json",
      format: "json",
      text: JSON.stringify([
        { title: "Json Mug", variants: [{ title: "Default", price: 9.5, inventory: 2 }] },
        { title: "Json Cup", variants: [{ title: "Default", price: "9.555", inventory: 2 }] },
      ]),
    });
    await runCatalogImport(job.id);
    const progress = await getCatalogImport(store, { importId: job.id });
    assert.equal(progress.created, 1);
    assert.deepEqual(
      progress.rejected.map((r) => [r.row, r.field]),
      [[2, "variants[0].price"]],
    );
    for (const [format, text, pattern] of [
      ["csv", 'title,price\n"never closed', /not a readable CSV/],
      ["csv", "title,price,colour\nA,1,red", /Unknown column "colour"/],
      ["csv", "title\nA", /no "price" column/],
      ["json", "{", /not a readable JSON/],
      ["json", "[]", /no products/],
    ] as const) {
      await rejects(
        startCatalogImport(store, { fileName: `f.${format}`, format, text }),
        "invalid_request",
        "$.file",
        pattern,
      );
    }
    assert.equal((await listProducts(store, {})).total, 1);
  });
});

describe("store settings", () => {
  test("name, tax and currency change; slug, live without keys and a locked currency are refused and change nothing", async () => {
    const owner = await account("Settler");
    const store = await newStore(owner.id);
    const updated = await updateStoreSettings(store, {
      name: "Renamed",
      currency: "EUR",
      mode: "test",
      taxRate: "8.25",
      slug: store.slug,
    });
    assert.deepEqual([updated.name, updated.currency, updated.taxRateBps], ["Renamed", "EUR", 825]);
    const before = await snapshot(updated);
    const base = { name: "Other", currency: "EUR", mode: "test", taxRate: "5" };
    await rejects(updateStoreSettings(updated, { ...base, slug: "new-slug" }), "slug_immutable", "$.slug");
    await rejects(
      updateStoreSettings(updated, { ...base, mode: "live" }),
      "live_requirements_missing",
      "$.mode",
      /live Stripe secret key/,
    );
    await rejects(
      updateStoreSettings(updated, { ...base, taxRate: "8.255" }),
      "invalid_request",
      "$.taxRate",
    );
    await rejects(updateStoreSettings(updated, { ...base, taxRate: "101" }), "invalid_request", "$.taxRate");
    await rejects(
      updateStoreSettings(updated, { ...base, currency: "XYZ" }),
      "invalid_request",
      "$.currency",
    );
    await createProduct(updated, {
      title: "Priced",
      variants: [{ title: "Default", price: "10.00", inventory: 1 }],
    });
    const withProduct = await snapshot(updated);
    // EUR → JPY would turn 10.00 € (1000) into ¥1000
    await rejects(
      updateStoreSettings(updated, { ...base, currency: "JPY" }),
      "currency_locked",
      "$.currency",
      /decimals/,
    );
    assert.notEqual(withProduct, before);
    assert.equal(await snapshot(updated), withProduct);

    // with live keys (set by the same operation as the payments page and the CLI) the switch goes through
    const db = await getDb();
    await setStripeKeys(store.slug, {
      secretKey: "sk_live_abcdefgh12",
      publishableKey: "pk_live_abcdefgh12",
    });
    const keyed = await db.store.findUniqueOrThrow({ where: { id: store.id } });
    assert.equal((await updateStoreSettings(keyed, { ...base, currency: "USD", mode: "live" })).mode, "live");
  });

  test("one order fixes the currency", async () => {
    const owner = await account("Seller");
    const store = await newStore(owner.id);
    const db = await getDb();
    const checkoutId = newId("checkout");
    await db.checkoutSession.create({
      data: {
        id: checkoutId,
        storeId: store.id,
        principalId: "anon",
        currency: "USD",
        expiresAt: new Date(Date.now() + 3_600_000),
      },
    });
    await db.order.create({
      data: { id: newId("order"), storeId: store.id, checkoutId, principalId: "anon", currency: "USD" },
    });
    await rejects(
      updateStoreSettings(store, { name: "X", currency: "EUR", mode: "test", taxRate: "0" }),
      "currency_locked",
      "$.currency",
      /has orders in USD/,
    );
    assert.equal((await db.store.findUniqueOrThrow({ where: { id: store.id } })).currency, "USD");
  });

  test("shipping rates with a free-shipping threshold and locations, in minor units and micro-degrees", async () => {
    const owner = await account("Shipper");
    const store = await newStore(owner.id);
    const rate = await createShippingRate(store, {
      code: "Standard",
      title: "Standard",
      country: "us",
      region: "ca",
      price: "5.99",
      freeOver: "50",
      freeForTag: "  Gift Wrap ",
      minDays: "2",
      maxDays: "5",
    });
    assert.deepEqual(
      [rate.code, rate.country, rate.region, rate.priceMinor, rate.freeOverMinor, rate.freeForTag],
      ["standard", "US", "CA", 599, 5000, "gift wrap"],
    );
    // a blank tag field (the admin form's empty input) is no tag
    const untagged = await createShippingRate(store, {
      code: "plain",
      title: "Plain",
      country: "US",
      price: "1",
      freeForTag: "  ",
    });
    assert.equal(untagged.freeForTag, null);
    const before = await snapshot(store);
    await rejects(
      createShippingRate(store, { code: "x", title: "X", country: "US", price: "5.999" }),
      "invalid_request",
      "$.price",
    );
    await rejects(
      createShippingRate(store, { code: "x", title: "X", country: "*", region: "CA", price: "1" }),
      "invalid_request",
      "$.region",
    );
    await rejects(
      createShippingRate(store, {
        code: "x",
        title: "X",
        country: "US",
        price: "1",
        freeForTag: "t".repeat(201),
      }),
      "invalid_request",
      "$.freeForTag",
    );
    await rejects(
      createShippingRate(store, {
        code: "x",
        title: "X",
        country: "US",
        price: "1",
        minDays: "5",
        maxDays: "2",
      }),
      "invalid_request",
      "$.maxDays",
    );
    await rejects(
      createLocation(store, {
        name: "Shop",
        streetAddress: "1 Main St",
        locality: "Town",
        country: "US",
        latitude: "91",
        longitude: "0",
      }),
      "invalid_request",
      "$.latitude",
    );
    assert.equal(await snapshot(store), before);
    const location = await createLocation(store, {
      name: "Shop",
      streetAddress: "1 Main St",
      locality: "Town",
      country: "us",
      latitude: "37.774929",
      longitude: "-122.4194",
      services: ["pickup"],
    });
    assert.deepEqual(
      [location.latitudeE6, location.longitudeE6, location.services],
      [37774929, -122419400, ["pickup"]],
    );
    assert.equal((await listShippingRates(store)).length, 2);
  });
});

describe("who may do what", () => {
  test("staff are refused every owner action; an account of another store is refused every action; nothing changes", async () => {
    const owner = await account("OwnerA");
    const staff = await account("StaffA");
    const stranger = await account("OwnerB");
    const storeA = await newStore(owner.id);
    await newStore(stranger.id);
    await grantStoreRole(staff.id, storeA.id, "staff");
    const before = await snapshot(storeA);
    const ownerOnly = Object.entries(STORE_ADMIN_OPS)
      .filter(([, op]) => op.need === "owner")
      .map(([name]) => name);
    assert.deepEqual(ownerOnly.sort(), [
      "createLocation",
      "createShippingRate",
      "deleteLocation",
      "deleteShippingRate",
      "forgetSavedAddresses",
      "updateAgentRequests",
      "updateSettings",
    ]);
    for (const name of Object.keys(STORE_ADMIN_OPS) as StoreAdminOpName[]) {
      await rejects(runStoreAdminOp(stranger, storeA.slug, name, {}), "store_not_found", "$.store_slug");
      if (STORE_ADMIN_OPS[name].need === "owner") {
        await rejects(
          runStoreAdminOp(staff, storeA.slug, name, {
            name: "Staff rename",
            currency: "USD",
            mode: "test",
            taxRate: "1",
          }),
          "owner_required",
        );
      } else {
        // staff get past the access check (the empty input may still be refused by the operation itself)
        await runStoreAdminOp(staff, storeA.slug, name, {}).catch((error: unknown) => {
          assert.ok(error instanceof AppError);
          assert.ok(!["owner_required", "store_not_found"].includes(error.code), `${name}: ${error.code}`);
        });
      }
    }
    assert.equal(await snapshot(storeA), before);
    const made = await runStoreAdminOp(staff, storeA.slug, "createProduct", {
      title: "By staff",
      variants: [{ title: "Default", price: "2", inventory: 1 }],
    });
    assert.equal(made.storeId, storeA.id);
    assert.equal(
      (
        await runStoreAdminOp(owner, storeA.slug, "updateSettings", {
          name: "Owned",
          currency: "USD",
          mode: "test",
          taxRate: "0",
        })
      ).name,
      "Owned",
    );
  });
});
