import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";

import {
  seedDiscountCodes,
  seedPlatformKey,
  seedProduct,
  seedShippingRates,
  seedStore,
} from "../../factories";
import { rest } from "../../helpers/app-client";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import {
  assertCheckoutSchema,
  assertTotalsInvariant,
  BUYER,
  errorPaths,
  SEED_ADDRESS,
  totalOf,
  type Checkout,
  type ErrorEnvelope,
} from "./helpers";

// Checkout sessions over REST (seed §4 paths; UCP checkout + fulfillment, discount and buyer-consent extensions):
// the preflight, totals, fulfillment, discounts, cart → checkout, the status machine, bad input, idempotency,
// concurrency and isolation.

let store: Store; // card only, 8.25 % tax
let twoRails: Store; // card + crypto
let otherStore: Store;
let boots: { id: string };
let socks: { id: string };
let lowStock: { id: string };
let foreign: { id: string };
let key: string;

const base = () => `/s/${store.slug}/checkout-sessions`;
const h = (extra: Record<string, string> = {}) => ({
  "x-api-key": key,
  "idempotency-key": randomUUID(),
  ...extra,
});
const create = (body: unknown, s: Store = store) =>
  rest<Checkout>("POST", `/s/${s.slug}/checkout-sessions`, { headers: h(), body });
const update = (id: string, body: unknown, s: Store = store) =>
  rest<Checkout>("PUT", `/s/${s.slug}/checkout-sessions/${id}`, { headers: h(), body });
const read = (id: string, s: Store = store) =>
  rest<Checkout>("GET", `/s/${s.slug}/checkout-sessions/${id}`, { headers: { "x-api-key": key } });
const cancel = (id: string, s: Store = store) =>
  rest<Checkout>("POST", `/s/${s.slug}/checkout-sessions/${id}/cancel`, { headers: h() });

before(async () => {
  await prepareTestDatabase();
  store = await seedStore({ taxRateBps: 825 });
  twoRails = await seedStore({ cryptoEnabled: true });
  otherStore = await seedStore();
  boots = (
    await seedProduct(store, {
      title: "Trail Boot",
      variants: [{ priceMinor: 11999, inventory: 5, weightGrams: 1500 }],
    })
  ).variants[0]!;
  socks = (
    await seedProduct(store, {
      title: "Wool Socks",
      variants: [{ priceMinor: 1450, inventory: 100, weightGrams: 100 }],
    })
  ).variants[0]!;
  lowStock = (await seedProduct(store, { title: "Rare Hat", variants: [{ priceMinor: 3000, inventory: 1 }] }))
    .variants[0]!;
  foreign = (await seedProduct(otherStore, { variants: [{ priceMinor: 500 }] })).variants[0]!;
  await seedProduct(twoRails, { variants: [{ priceMinor: 1000 }] });
  await seedShippingRates(store, [
    { code: "standard", title: "Standard", priceMinor: 599, freeOverMinor: 10000, minDays: 3, maxDays: 5 },
    { code: "standard", title: "Standard (CA)", region: "CA", priceMinor: 799, freeOverMinor: 15000 },
    { code: "express", title: "Express", priceMinor: 1999, maxWeightGrams: 2000 },
    { code: "heavy", title: "Freight", priceMinor: 4999, minWeightGrams: 2000 },
    { code: "intl", title: "International", country: "*", priceMinor: 2500 },
  ]);
  await seedDiscountCodes(store, [
    { code: "SAVE10", kind: "percentage", value: 1000, title: "10% off" },
    { code: "FIVE", kind: "fixed_amount", value: 500, title: "$5 off" },
    { code: "OLD", kind: "fixed_amount", value: 500, expiresAt: new Date("2020-01-01T00:00:00Z") },
    { code: "LATER", kind: "fixed_amount", value: 500, startsAt: new Date("2999-01-01T00:00:00Z") },
    { code: "BIGSPEND", kind: "fixed_amount", value: 2000, minSubtotalMinor: 100000 },
  ]);
  key = (await seedPlatformKey()).key;
});
after(closeTestDatabase);

describe("POST /s/:slug/checkout-sessions — create and the preflight", () => {
  test("201, schema-valid, payment_handlers in ucp, and every blocker at once with JSONPaths", async () => {
    const res = await create({ line_items: [{ item: { id: socks.id }, quantity: 2 }] });
    assert.equal(res.status, 201, res.text);
    assertCheckoutSchema(res.body);
    const c = res.body;
    assert.equal(c.status, "incomplete");
    assert.ok("sh.svc.card" in c.ucp.payment_handlers);
    assert.deepEqual(Object.keys(c.ucp.capabilities).sort(), [
      "dev.ucp.shopping.buyer_consent",
      "dev.ucp.shopping.checkout",
      "dev.ucp.shopping.discount",
      "dev.ucp.shopping.fulfillment",
    ]);
    assert.deepEqual(errorPaths(c), [
      ["missing", "$.buyer.email"],
      ["missing", "$.buyer.first_name"],
      ["missing", "$.buyer.last_name"],
      ["missing", "$.fulfillment.methods[0].destinations"],
    ]);
    assert.ok(c.messages.every((m) => m.type !== "error" || m.severity === "recoverable"));
    assert.deepEqual(c.totals, [
      { type: "subtotal", amount: 2900, display_text: "Subtotal" },
      { type: "tax", amount: 239, display_text: "Tax (8.25%)" }, // 2900 × 8.25 % = 239.25 → 239
      { type: "total", amount: 3139, display_text: "Total" },
    ]);
    assert.deepEqual(c.line_items[0]?.totals, [
      { type: "subtotal", amount: 2900 },
      { type: "total", amount: 2900 },
    ]);
    assert.equal(c.fulfillment.methods[0]?.line_item_ids[0], c.line_items[0]?.id);
  });

  test("the stored session and its lines hold every field of the create, typed as the schema says", async () => {
    const before = new Date();
    const res = await create({
      line_items: [
        { item: { id: socks.id }, quantity: 2 },
        { item: { id: boots.id }, quantity: 1 },
      ],
      buyer: BUYER,
      shipping_address: SEED_ADDRESS,
      shipping_method_id: "standard",
      discounts: { codes: ["SAVE10", "FIVE"] },
      notes: "leave at the door",
      context: { locale: "en-US", nested: { n: 1 } },
      attribution: { utm_source: "agent" },
    });
    assert.equal(res.status, 201, res.text);
    const c = res.body;
    const row = await (
      await getDb()
    ).checkoutSession.findUniqueOrThrow({
      where: { id: c.id },
      include: { lineItems: { orderBy: { position: "asc" } } },
    });
    assert.equal(row.status, c.status);
    assert.equal(row.storeId, store.id);
    assert.equal(row.cartId, null);
    assert.equal(row.currency, store.currency);
    assert.deepEqual(row.discountCodes, ["SAVE10", "FIVE"]);
    assert.equal(row.notes, "leave at the door");
    assert.deepEqual(row.context, { locale: "en-US", nested: { n: 1 } });
    assert.deepEqual(row.attribution, { utm_source: "agent" });
    assert.equal((row.buyer as { email?: string }).email, BUYER.email);
    assert.deepEqual(
      row.totals,
      c.totals.map(({ type, amount, display_text }) => ({ type, amount, display_text })),
    );
    assert.equal((row.mandateTermsHistory as unknown[]).length, 1);
    assert.deepEqual(row.paymentInstruments, []);
    assert.equal(row.version, 0);
    assert.ok(
      row.createdAt >= new Date(before.getTime() - 1000) &&
        row.createdAt.getTime() === row.updatedAt.getTime(),
    );
    assert.equal(
      row.expiresAt.getTime(),
      new Date((c as Checkout & { expires_at: string }).expires_at).getTime(),
    );
    assert.deepEqual(
      row.lineItems.map((l) => [l.id, l.variantId, l.quantity, l.priceMinor, l.position]),
      [
        [c.line_items[0]!.id, socks.id, 2, 1450, 0],
        [c.line_items[1]!.id, boots.id, 1, 11999, 1],
      ],
    );
    // an empty context and no attribution store SQL NULL, as an absent optional field
    const bare = await create({ line_items: [{ item: { id: socks.id }, quantity: 1 }] });
    const bareRow = await (await getDb()).checkoutSession.findUniqueOrThrow({ where: { id: bare.body.id } });
    assert.equal(bareRow.context, null);
    assert.equal(bareRow.attribution, null);
    assert.equal(bareRow.buyer, null);
    assert.deepEqual(bareRow.discountCodes, []);
  });

  test("one update fixes every blocker (seed shipping_address + shipping_method_id) → ready_for_complete", async () => {
    const created = await create({ line_items: [{ item: { id: boots.id }, quantity: 1 }] });
    const res = await update(created.body.id, {
      buyer: BUYER,
      shipping_address: SEED_ADDRESS,
      shipping_method_id: "express",
    });
    assert.equal(res.status, 200, res.text);
    assertCheckoutSchema(res.body);
    const c = res.body;
    assert.equal(c.status, "ready_for_complete", JSON.stringify(c.messages));
    assert.deepEqual(c.messages, []);
    const method = c.fulfillment.methods[0]!;
    assert.deepEqual(method.destinations, [
      {
        id: "dest_1",
        street_address: "1 Market St",
        address_locality: "San Francisco",
        address_region: "CA",
        postal_code: "94105",
        address_country: "US",
      },
    ]);
    assert.equal(method.selected_destination_id, "dest_1");
    assert.equal(method.groups[0]?.selected_option_id, "express");
    // CA-specific standard rate replaces the country-wide one; freight needs ≥ 2 kg; intl matches any country
    assert.deepEqual(
      method.groups[0]?.options.map((o) => [o.id, o.title, o.totals.at(-1)?.amount]),
      [
        ["standard", "Standard (CA)", 799],
        ["express", "Express", 1999],
        ["intl", "International", 2500],
      ],
    );
    // tax on goods + shipping: (11999 + 1999) × 8.25 % = 1154.835 → 1155 (half up)
    assert.deepEqual(
      c.totals.map((t) => [t.type, t.amount]),
      [
        ["subtotal", 11999],
        ["fulfillment", 1999],
        ["tax", 1155],
        ["total", 15153],
      ],
    );
    assertTotalsInvariant(c);
    const again = await read(c.id);
    assert.deepEqual(again.body, c);
  });

  test("UCP fulfillment form: destinations + groups[0].selected_option_id; free shipping over the threshold", async () => {
    const created = await create({
      line_items: [{ item: { id: socks.id }, quantity: 8 }], // 11600 ≥ 10000 free threshold (non-CA)
      buyer: BUYER,
      fulfillment: {
        methods: [
          {
            type: "shipping",
            destinations: [
              {
                street_address: "5 Main St",
                address_locality: "Austin",
                address_region: "TX",
                postal_code: "73301",
                address_country: "us",
              },
            ],
          },
        ],
      },
    });
    assert.equal(created.status, 201, created.text);
    assertCheckoutSchema(created.body);
    const group = created.body.fulfillment.methods[0]!.groups[0]!;
    assert.equal(group.selected_option_id, null);
    assert.deepEqual(errorPaths(created.body), [
      ["missing", "$.fulfillment.methods[0].groups[0].selected_option_id"],
    ]);
    const standard = group.options.find((o) => o.id === "standard")!;
    assert.equal(standard.title, "Free Standard");
    assert.equal(standard.totals.at(-1)?.amount, 0);
    const updated = await update(created.body.id, {
      fulfillment: {
        methods: [{ id: "shipping", groups: [{ id: group.id, selected_option_id: "standard" }] }],
      },
    });
    assert.equal(updated.body.status, "ready_for_complete", JSON.stringify(updated.body.messages));
    assert.equal(totalOf(updated.body, "fulfillment"), 0);
    assert.equal(updated.body.fulfillment.methods[0]!.destinations[0]?.address_country, "US");
    assertTotalsInvariant(updated.body);
  });

  test("weight bands: a heavy order gets freight and loses express; an incomplete address names each field", async () => {
    const created = await create({
      line_items: [{ item: { id: boots.id }, quantity: 2 }], // 3000 g
      fulfillment: {
        methods: [{ type: "shipping", destinations: [{ address_country: "US", postal_code: "10001" }] }],
      },
    });
    assert.deepEqual(errorPaths(created.body).slice(3), [
      ["missing", "$.fulfillment.methods[0].destinations[0].street_address"],
      ["missing", "$.fulfillment.methods[0].destinations[0].address_locality"],
      ["missing", "$.fulfillment.methods[0].groups[0].selected_option_id"],
    ]);
    const updated = await update(created.body.id, {
      shipping_address: {
        line1: "9 Elm St",
        city: "New York",
        region: "NY",
        postal_code: "10001",
        country: "US",
      },
    });
    assert.deepEqual(
      updated.body.fulfillment.methods[0]!.groups[0]!.options.map((o) => o.id),
      ["standard", "heavy", "intl"],
    );
  });

  test("a destination nobody ships to → address_undeliverable; an option not offered there is reported", async () => {
    const noIntl = await seedStore();
    const v = (await seedProduct(noIntl, { variants: [{ priceMinor: 1000 }] })).variants[0]!;
    await seedShippingRates(noIntl, [{ code: "standard", priceMinor: 500 }]);
    const res = await create(
      {
        line_items: [{ item: { id: v.id }, quantity: 1 }],
        buyer: BUYER,
        shipping_address: { ...SEED_ADDRESS, country: "DE", region: undefined },
        shipping_method_id: "standard",
      },
      noIntl,
    );
    assertCheckoutSchema(res.body);
    assert.deepEqual(errorPaths(res.body), [
      ["address_undeliverable", "$.fulfillment.methods[0].destinations[0]"],
    ]);
    const us = await update(
      res.body.id,
      { shipping_address: SEED_ADDRESS, shipping_method_id: "overnight" },
      noIntl,
    );
    assert.deepEqual(errorPaths(us.body), [
      ["fulfillment_option_unavailable", "$.fulfillment.methods[0].groups[0].selected_option_id"],
    ]);
    assert.equal(us.body.status, "incomplete");
  });

  test("a store with two rails adds an info payment_selection_required until an instrument is selected (never an error); credentials are never echoed; a rail that cannot complete yet cannot be selected", async () => {
    const v = (await (await getDb()).variant.findFirst({ where: { storeId: twoRails.id } }))!;
    const created = await create({ line_items: [{ item: { id: v.id }, quantity: 1 }] }, twoRails);
    assert.ok(!errorPaths(created.body).some(([code]) => code === "payment_selection_required"));
    assert.deepEqual(
      created.body.messages.filter((m) => m.type === "info").map((m) => [m.code, m.path]),
      [["payment_selection_required", "$.payment.instruments"]],
    );
    assert.deepEqual(Object.keys(created.body.ucp.payment_handlers).sort(), ["sh.svc.card", "sh.svc.crypto"]);
    const updated = await update(
      created.body.id,
      {
        payment: {
          instruments: [
            {
              handler_id: "svc.card",
              selected: true,
              credential: { type: "token", token: "secret-digest" },
            },
          ],
        },
      },
      twoRails,
    );
    assertCheckoutSchema(updated.body);
    assert.ok(!errorPaths(updated.body).some(([code]) => code === "payment_selection_required"));
    assert.deepEqual(updated.body.payment.instruments, [
      { id: "pi_1", handler_id: "svc.card", type: "card", selected: true },
    ]);
    assert.ok(!updated.text.includes("secret-digest"));
    // A rail the store lists but that cannot complete a checkout is refused when selected, not at completion;
    // the stored selection is unchanged.
    const notYet = await update(
      created.body.id,
      { payment: { instruments: [{ handler_id: "svc.crypto", selected: true }] } },
      twoRails,
    );
    assert.deepEqual(
      (notYet.body as unknown as ErrorEnvelope).messages.map((m) => [m.code, m.path]),
      [["rail_not_available", "$.payment.instruments[0].handler_id"]],
      notYet.text,
    );
    assert.match((notYet.body as unknown as ErrorEnvelope).messages[0]!.content, /select svc\.card/);
    const after = await update(created.body.id, {}, twoRails);
    assert.deepEqual(after.body.payment.instruments, [
      { id: "pi_1", handler_id: "svc.card", type: "card", selected: true },
    ]);
    const unknown = await update(
      created.body.id,
      { payment: { instruments: [{ handler_id: "svc.paypal" }] } },
      twoRails,
    );
    assert.equal(unknown.status, 400);
    assert.equal(
      (unknown.body as unknown as ErrorEnvelope).messages[0]?.path,
      "$.payment.instruments[0].handler_id",
    );
  });
});

describe("discounts.codes", () => {
  test("codes apply in order, rejected ones are warnings with paths, the set is replaced and [] clears it", async () => {
    const created = await create({
      line_items: [
        { item: { id: boots.id }, quantity: 1 },
        { item: { id: socks.id }, quantity: 1 },
      ],
      discounts: { codes: ["save10", "NOPE", "old", "LATER", "BIGSPEND", "five", "SAVE10"] },
    });
    assertCheckoutSchema(created.body);
    const c = created.body;
    // 13449 goods: 10 % → 1344 (floor of 1344.9), then $5 on the rest
    assert.deepEqual(
      c.discounts.applied.map((a) => [a.code, a.amount]),
      [
        ["SAVE10", 1344],
        ["FIVE", 500],
      ],
    );
    for (const a of c.discounts.applied) {
      assert.equal(
        a.allocations.reduce((s, x) => s + x.amount, 0),
        a.amount,
      );
    }
    assert.deepEqual(c.discounts.codes, ["SAVE10", "NOPE", "OLD", "LATER", "BIGSPEND", "FIVE", "SAVE10"]);
    assert.deepEqual(
      c.messages.filter((m) => m.type === "warning").map((m) => [m.code, m.path]),
      [
        ["discount_code_invalid", "$.discounts.codes[1]"],
        ["discount_code_expired", "$.discounts.codes[2]"],
        ["discount_code_invalid", "$.discounts.codes[3]"],
        ["discount_code_minimum_not_met", "$.discounts.codes[4]"],
        ["discount_code_already_applied", "$.discounts.codes[6]"],
      ],
    );
    assert.equal(totalOf(c, "discount"), -1844);
    assertTotalsInvariant(c);
    const replaced = await update(c.id, { discounts: { codes: ["FIVE"] } });
    assert.deepEqual(
      replaced.body.discounts.applied.map((a) => a.code),
      ["FIVE"],
    );
    const cleared = await update(c.id, { discounts: { codes: [] } });
    assert.deepEqual(cleared.body.discounts, { codes: [], applied: [] });
    assert.equal(totalOf(cleared.body, "discount"), undefined);
    const untouched = await update(c.id, { notes: "leave at the door" });
    assert.deepEqual(untouched.body.discounts.codes, []);
    assert.equal(untouched.body.notes, "leave at the door");
  });
});

describe("cart → checkout", () => {
  const newCart = async (lines: { item: { id: string }; quantity: number }[], s: Store = store) =>
    (await rest<{ id: string }>("POST", `/s/${s.slug}/carts`, { headers: h(), body: { line_items: lines } }))
      .body.id;

  test("the cart's contents win, and a second create for the same cart returns the same open checkout", async () => {
    const cartId = await newCart([{ item: { id: socks.id }, quantity: 3 }]);
    const first = await create({ cart_id: cartId, line_items: [{ item: { id: boots.id }, quantity: 1 }] });
    assert.equal(first.status, 201, first.text);
    assertCheckoutSchema(first.body);
    assert.equal(first.body.cart_id, cartId);
    assert.deepEqual(
      first.body.line_items.map((l) => [l.item.id, l.quantity]),
      [[socks.id, 3]],
    );
    const second = await create({ cart_id: cartId });
    assert.equal(second.status, 200);
    assert.equal(second.body.id, first.body.id);
    await cancel(first.body.id);
    const third = await create({ cart_id: cartId });
    assert.equal(third.status, 201);
    assert.notEqual(third.body.id, first.body.id);
  });

  test('UCP\'s example body {"cart_id", "line_items": []} uses the cart\'s contents; repeated, the same checkout', async () => {
    const cartId = await newCart([{ item: { id: socks.id }, quantity: 2 }]);
    const first = await create({ cart_id: cartId, line_items: [] });
    assert.equal(first.status, 201, first.text);
    assert.deepEqual(
      first.body.line_items.map((l) => [l.item.id, l.quantity]),
      [[socks.id, 2]],
    );
    const again = await create({ cart_id: cartId, line_items: [] });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.id, first.body.id);
  });

  test("two first creates racing for one cart give one checkout: one 201, the other returns it", async () => {
    const cartId = await newCart([{ item: { id: socks.id }, quantity: 1 }]);
    const results = await Promise.all([1, 2, 3].map(() => create({ cart_id: cartId })));
    const ids = new Set(results.map((r) => r.body.id));
    assert.equal(ids.size, 1, JSON.stringify(results.map((r) => [r.status, r.body.id])));
    assert.deepEqual(results.map((r) => r.status).sort(), [200, 200, 201]);
    const db = await getDb();
    assert.equal(await db.checkoutSession.count({ where: { cartId } }), 1);
  });

  test("a canceled cart, another store's cart and an unknown cart are not_found on $.cart_id", async () => {
    const canceled = await newCart([{ item: { id: socks.id }, quantity: 1 }]);
    await rest("POST", `/s/${store.slug}/carts/${canceled}/cancel`, { headers: h() });
    const elsewhere = await newCart([{ item: { id: foreign.id }, quantity: 1 }], otherStore);
    for (const cartId of [canceled, elsewhere, "cart_unknown"]) {
      const res = await create({ cart_id: cartId });
      assert.equal(res.status, 200);
      assertUcpSchema("shopping/types/error_response.json", res.body);
      const [m] = (res.body as unknown as ErrorEnvelope).messages;
      assert.deepEqual([m?.code, m?.path], ["not_found", "$.cart_id"]);
    }
  });
});

describe("bad input: a clear code and JSONPath, and nothing stored changes", () => {
  const cases: [string, unknown, string][] = [
    ["zero quantity", { line_items: [{ item: { id: "x" }, quantity: 0 }] }, "$.line_items[0].quantity"],
    ["negative quantity", { line_items: [{ item: { id: "x" }, quantity: -2 }] }, "$.line_items[0].quantity"],
    [
      "fractional quantity",
      { line_items: [{ item: { id: "x" }, quantity: 1.5 }] },
      "$.line_items[0].quantity",
    ],
    ["huge quantity", { line_items: [{ item: { id: "x" }, quantity: 1e12 }] }, "$.line_items[0].quantity"],
    ["string quantity", { line_items: [{ item: { id: "x" }, quantity: "2" }] }, "$.line_items[0].quantity"],
    [
      "duplicate line items",
      {
        line_items: [
          { item: { id: "var_a" }, quantity: 1 },
          { item: { id: "var_a" }, quantity: 2 },
        ],
      },
      "$.line_items[1].item.id",
    ],
    ["invalid email", { buyer: { email: "not-an-email" } }, "$.buyer.email"],
    ["invalid phone", { buyer: { phone_number: "555-1234" } }, "$.buyer.phone_number"],
    [
      "unknown country (seed form)",
      { shipping_address: { ...SEED_ADDRESS, country: "XX" } },
      "$.shipping_address.country",
    ],
    [
      "unknown country (UCP form)",
      { fulfillment: { methods: [{ type: "shipping", destinations: [{ address_country: "ZZ" }] }] } },
      "$.fulfillment.methods[0].destinations[0].address_country",
    ],
    ["pickup", { fulfillment: { methods: [{ type: "pickup" }] } }, "$.fulfillment.methods[0].type"],
    ["notes not a string", { notes: 42 }, "$.notes"],
  ];

  for (const [name, body, path] of cases) {
    test(`update with ${name} → 400 invalid_request at ${path}; the session is unchanged`, async () => {
      const created = await create({ line_items: [{ item: { id: socks.id }, quantity: 1 }], buyer: BUYER });
      const res = await update(created.body.id, body);
      assert.equal(res.status, 400, res.text);
      const err = res.body as unknown as ErrorEnvelope;
      assert.equal(err.messages[0]?.code, "invalid_request");
      assert.equal(err.messages[0]?.path, path);
      const after = await read(created.body.id);
      assert.deepEqual(after.body, created.body);
    });
  }

  test("create with neither line_items nor cart_id, or with bad lines → 400 and no session", async () => {
    const db = await getDb();
    const before = await db.checkoutSession.count({ where: { storeId: store.id } });
    for (const body of [{}, { line_items: [] }, { line_items: [{ item: { id: socks.id }, quantity: 0 }] }]) {
      const res = await create(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(
        (res.body as unknown as ErrorEnvelope).messages[0]?.path,
        "$.line_items" + (body.line_items?.length ? "[0].quantity" : ""),
      );
    }
    assert.equal(await db.checkoutSession.count({ where: { storeId: store.id } }), before);
  });

  test("a variant of another store → item_unavailable envelope, no session; mixed lines keep the sellable one", async () => {
    const db = await getDb();
    const before = await db.checkoutSession.count({ where: { storeId: store.id } });
    const res = await create({ line_items: [{ item: { id: foreign.id }, quantity: 1 }] });
    assert.equal(res.status, 200);
    assertUcpSchema("shopping/types/error_response.json", res.body);
    assert.equal((res.body as unknown as ErrorEnvelope).messages[0]?.code, "item_unavailable");
    assert.equal(await db.checkoutSession.count({ where: { storeId: store.id } }), before);
    const mixed = await create({
      line_items: [
        { item: { id: foreign.id }, quantity: 1 },
        { item: { id: socks.id }, quantity: 1 },
      ],
    });
    assert.equal(mixed.status, 201);
    assert.deepEqual(
      mixed.body.line_items.map((l) => l.item.id),
      [socks.id],
    );
    assert.equal(mixed.body.messages[0]?.code, "item_unavailable");
  });

  test("a product id given as a line item: item_unavailable that names the product's variant ids, no session", async () => {
    const db = await getDb();
    const boots = await seedProduct(store, {
      title: "Trail Boots",
      variants: [
        { priceMinor: 9000, title: "Size 41" },
        { priceMinor: 9000, title: "Size 42" },
      ],
    });
    // this store's sessions only: on PostgreSQL other test files write to the same database meanwhile
    const before = await db.checkoutSession.count({ where: { storeId: store.id } });
    const res = await create({ line_items: [{ item: { id: boots.id }, quantity: 1 }] });
    assertUcpSchema("shopping/types/error_response.json", res.body);
    const message = (res.body as unknown as ErrorEnvelope).messages[0];
    assert.equal(message?.code, "item_unavailable");
    const variantIds = (await db.variant.findMany({ where: { productId: boots.id } })).map((v) => v.id);
    assert.equal(variantIds.length, 2);
    for (const id of variantIds) assert.ok(message?.content.includes(id), message?.content);
    assert.match(message?.content ?? "", /is a product \(Trail Boots\), not a variant/);
    assert.equal(await db.checkoutSession.count({ where: { storeId: store.id } }), before);
  });

  test("stock is checked at create and update: out_of_stock on the line's quantity blocks completion", async () => {
    const created = await create({
      line_items: [{ item: { id: lowStock.id }, quantity: 2 }],
      buyer: BUYER,
      shipping_address: SEED_ADDRESS,
      shipping_method_id: "standard",
    });
    assert.deepEqual(errorPaths(created.body), [["out_of_stock", "$.line_items[0].quantity"]]);
    assert.equal(created.body.status, "incomplete");
    const fixed = await update(created.body.id, { line_items: [{ item: { id: lowStock.id }, quantity: 1 }] });
    assert.equal(fixed.body.status, "ready_for_complete", JSON.stringify(fixed.body.messages));
    assert.equal(fixed.body.line_items[0]?.id, created.body.line_items[0]?.id, "the line keeps its id");
    await (await getDb()).variant.update({ where: { id: lowStock.id }, data: { inventory: 0 } });
    const reread = await read(created.body.id);
    assert.equal(reread.body.status, "incomplete");
    assert.deepEqual(errorPaths(reread.body), [["out_of_stock", "$.line_items[0].quantity"]]);
    await (await getDb()).variant.update({ where: { id: lowStock.id }, data: { inventory: 1 } });
  });
});

describe("status machine", () => {
  test("cancel → canceled (final); update and cancel afterwards → checkout_not_modifiable; get shows the final state", async () => {
    const created = await create({ line_items: [{ item: { id: socks.id }, quantity: 1 }] });
    const canceled = await cancel(created.body.id);
    assert.equal(canceled.status, 200, canceled.text);
    assertCheckoutSchema(canceled.body);
    assert.equal(canceled.body.status, "canceled");
    assert.deepEqual(canceled.body.messages, []);
    for (const res of [await update(created.body.id, { notes: "x" }), await cancel(created.body.id)]) {
      assert.equal(res.status, 200);
      assertUcpSchema("shopping/types/error_response.json", res.body);
      const [m] = (res.body as unknown as ErrorEnvelope).messages;
      assert.deepEqual([m?.code, m?.severity], ["checkout_not_modifiable", "unrecoverable"]);
    }
    const final = await read(created.body.id);
    assert.equal(final.body.status, "canceled");
    assert.equal(final.body.notes, undefined);
  });

  test("completed and complete_in_progress sessions refuse update and cancel; completed renders frozen prices", async () => {
    const db = await getDb();
    for (const status of ["completed", "complete_in_progress"] as const) {
      const created = await create({ line_items: [{ item: { id: socks.id }, quantity: 1 }] });
      await db.checkoutSession.update({ where: { id: created.body.id }, data: { status } });
      await db.variant.update({ where: { id: socks.id }, data: { priceMinor: 9999 } });
      try {
        for (const res of [await update(created.body.id, { buyer: BUYER }), await cancel(created.body.id)]) {
          assert.equal(
            (res.body as unknown as ErrorEnvelope).messages[0]?.code,
            "checkout_not_modifiable",
            status,
          );
        }
        const got = await read(created.body.id);
        assertCheckoutSchema(got.body);
        assert.equal(got.body.status, status);
        if (status === "completed") assert.equal(got.body.line_items[0]?.item.price, 1450);
      } finally {
        await db.variant.update({ where: { id: socks.id }, data: { priceMinor: 1450 } });
      }
    }
  });

  test("a session past expires_at is canceled when read", async () => {
    const created = await create({ line_items: [{ item: { id: socks.id }, quantity: 1 }] });
    await (
      await getDb()
    ).checkoutSession.update({
      where: { id: created.body.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    assert.equal((await read(created.body.id)).body.status, "canceled");
  });
});

describe("idempotency, concurrency and isolation", () => {
  test("the same Idempotency-Key replays byte for byte; with another body → 409 idempotency_key_reused", async () => {
    const created = await create({ line_items: [{ item: { id: socks.id }, quantity: 1 }] });
    const headers = h();
    const path = `${base()}/${created.body.id}`;
    const first = await rest("PUT", path, { headers, body: { notes: "one" } });
    const replay = await rest("PUT", path, { headers, body: { notes: "one" } });
    assert.equal(replay.text, first.text);
    assert.equal(replay.headers.get("idempotent-replayed"), "true");
    const reused = await rest("PUT", path, { headers, body: { notes: "two" } });
    assert.equal(reused.status, 409);
    assert.equal((reused.body as unknown as ErrorEnvelope).messages[0]?.code, "idempotency_key_reused");
    assert.equal((await read(created.body.id)).body.notes, "one");
  });

  test("parallel updates of different fields lose none of them (optimistic version check)", async () => {
    const created = await create({ line_items: [{ item: { id: socks.id }, quantity: 1 }] });
    const id = created.body.id;
    const results = await Promise.all([
      update(id, { buyer: { email: BUYER.email } }),
      update(id, { buyer: { first_name: BUYER.first_name } }),
      update(id, { buyer: { last_name: BUYER.last_name } }),
      update(id, { notes: "gift" }),
      update(id, { discounts: { codes: ["FIVE"] } }),
      update(id, { shipping_address: SEED_ADDRESS }),
      update(id, { shipping_method_id: "standard" }),
      update(id, { line_items: [{ item: { id: socks.id }, quantity: 4 }] }),
    ]);
    for (const r of results) assert.equal(r.status, 200, r.text);
    const final = (await read(id)).body;
    assert.deepEqual(final.buyer, BUYER);
    assert.equal(final.notes, "gift");
    assert.deepEqual(final.discounts.codes, ["FIVE"]);
    assert.equal(final.fulfillment.methods[0]?.destinations[0]?.postal_code, "94105");
    assert.equal(final.fulfillment.methods[0]?.groups[0]?.selected_option_id, "standard");
    assert.equal(final.line_items[0]?.quantity, 4);
    assert.equal(final.status, "ready_for_complete", JSON.stringify(final.messages));
    const row = await (await getDb()).checkoutSession.findUniqueOrThrow({ where: { id } });
    assert.equal(row.version, 8);
  });

  test("a cancel racing updates wins exactly once: the session ends canceled, later writes are refused", async () => {
    const created = await create({ line_items: [{ item: { id: socks.id }, quantity: 1 }] });
    const id = created.body.id;
    const [u1, c, u2] = await Promise.all([
      update(id, { notes: "first" }),
      cancel(id),
      update(id, { buyer: { email: BUYER.email } }),
    ]);
    assert.equal(c.status, 200, c.text);
    assert.equal(c.body.status, "canceled");
    for (const u of [u1, u2]) {
      const code = (u.body as unknown as ErrorEnvelope).messages?.[0]?.code;
      assert.ok(u.body.status === "incomplete" || code === "checkout_not_modifiable", u.text);
    }
    assert.equal((await read(id)).body.status, "canceled");
    const late = await update(id, { notes: "late" });
    assert.equal((late.body as unknown as ErrorEnvelope).messages[0]?.code, "checkout_not_modifiable");
  });

  test("another store's path and another platform's key see not_found; no credential → insufficient_trust", async () => {
    const created = await create({ line_items: [{ item: { id: socks.id }, quantity: 1 }] });
    const wrongStore = await read(created.body.id, otherStore);
    assert.equal((wrongStore.body as unknown as ErrorEnvelope).messages[0]?.code, "not_found");
    const other = await seedPlatformKey();
    for (const [method, path] of [
      ["GET", `${base()}/${created.body.id}`],
      ["PUT", `${base()}/${created.body.id}`],
      ["POST", `${base()}/${created.body.id}/cancel`],
    ] as const) {
      const res = await rest(method, path, {
        headers: { "x-api-key": other.key, "idempotency-key": randomUUID() },
        body: method === "PUT" ? { notes: "mine now" } : undefined,
      });
      assert.equal(
        (res.body as unknown as ErrorEnvelope).messages[0]?.code,
        "not_found",
        `${method} ${path}`,
      );
    }
    const anon = await rest("GET", `${base()}/${created.body.id}`);
    assert.equal(anon.status, 403);
    assert.equal((anon.body as unknown as ErrorEnvelope).messages[0]?.code, "insufficient_trust");
    assert.equal((await read(created.body.id)).body.status, "incomplete");
  });

  test("the wrong base path /checkouts is 404 (seed §4)", async () => {
    const res = await rest("POST", `/s/${store.slug}/checkouts`, { headers: h(), body: {} });
    assert.equal(res.status, 404);
  });
});
