import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";

import { startAgentProfileServer, type AgentProfileServer } from "@agent-commerce/agent-kit";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

import type { BridgeOptions } from "@/lib/bridge/http";
import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import type { Store } from "@/lib/generated/prisma/client";
import { recordFulfillmentEvent } from "@/lib/orders/record-fulfillment";
import { stripeSandbox } from "@/sandbox/stripe/server";

import { seedCatalogProduct, seedPlatformKey, seedShippingRates, seedStore } from "../../factories";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import {
  connectBridge,
  resultJson,
  serviceFetch,
  TEST_BASE_URL,
  toolError,
  type SeenRequest,
} from "./helpers";

// A card purchase through the bridge only (issue "The bridge": done when an end-to-end test buys with a card in
// one store through the bridge): the official SDK client calls flat tools in major units; the bridge reaches the
// service over HTTP with its own agent profile and key (a stand-alone bridge's --agent-profile-url and
// --key-file), signs the checkout mandate over the live terms and completes. Money invariants under retries: an
// answer lost on the way back is retried with the same idempotency key and charges once; calling confirm_purchase
// again finishes only what is left; several rails and no choice completes nothing.

let store: Store;
let twoRails: Store;
let agent: AgentProfileServer;
let key: string;
let variantId: string;
let cupId: string;
let sleeveId: string;
let client: Client;
const seen: SeenRequest[] = [];

const options = (extra: Partial<BridgeOptions> = {}): BridgeOptions => ({
  baseUrl: TEST_BASE_URL,
  agentProfileUrl: agent.profileUrl,
  key: agent.key,
  fetch: serviceFetch(seen),
  retry: { baseDelayMs: 1, sleep: async () => {} },
  ...extra,
});

before(async () => {
  await prepareTestDatabase();
  agent = await startAgentProfileServer();
  store = await seedStore({ taxRateBps: 1000 });
  twoRails = await seedStore({ cryptoEnabled: true });
  const lantern = await seedCatalogProduct(store, {
    title: "Bridge Storm Lantern",
    variants: [{ priceMinor: 2450, inventory: 50 }],
  });
  variantId = (await (await getDb()).variant.findFirstOrThrow({ where: { productId: lantern.id } })).id;
  const cup = await seedCatalogProduct(twoRails, {
    title: "Bridge Enamel Cup",
    variants: [{ priceMinor: 900, inventory: 20 }],
  });
  cupId = (await (await getDb()).variant.findFirstOrThrow({ where: { productId: cup.id } })).id;
  // tagged to ship free on the standard rate (the lantern is not)
  const sleeve = await seedCatalogProduct(store, {
    title: "Bridge Gift Sleeve",
    tags: ["Ships-Free"],
    variants: [{ priceMinor: 1200, inventory: 50 }],
  });
  sleeveId = (await (await getDb()).variant.findFirstOrThrow({ where: { productId: sleeve.id } })).id;
  await seedShippingRates(store, [
    { code: "standard", title: "Standard", priceMinor: 500, freeForTag: "ships-free" },
  ]);
  await seedShippingRates(twoRails, [{ code: "standard", title: "Standard", priceMinor: 0 }]);
  key = (await seedPlatformKey(["purchase:complete", "orders:read", "orders:request"])).key;
  client = await connectBridge(options(), { "x-api-key": key });
});
after(async () => {
  await client.close();
  await agent.close();
  await closeTestDatabase();
});

const ADDRESS = {
  street_address: "1 Market St",
  address_locality: "San Francisco",
  address_region: "CA",
  postal_code: "94105",
  address_country: "US",
};

const call = async (name: string, args: Record<string, unknown>, c: Client = client) =>
  c.callTool({ name, arguments: args });

/** A ready checkout made with the bridge's flat tools; returns its id. */
const readyCheckout = async (s: Store = store, id = variantId, c: Client = client) => {
  const created = resultJson(
    await call(
      "create_checkout",
      {
        store_slug: s.slug,
        items: [{ id, quantity: 2 }],
        buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
        shipping_address: ADDRESS,
      },
      c,
    ),
  ) as { id: string; fulfillment: { methods: { groups: { options: { id: string }[] }[] }[] } };
  const option = created.fulfillment.methods[0]?.groups[0]?.options[0]?.id;
  assert.equal(option, "standard", JSON.stringify(created));
  const ready = resultJson(
    await call("update_checkout", { store_slug: s.slug, id: created.id, shipping_method_id: option }, c),
  ) as { id: string; status: string; messages?: unknown };
  assert.equal(ready.status, "ready_for_complete", JSON.stringify(ready.messages));
  return ready.id;
};

const succeededCharges = async (checkoutId: string) =>
  (await stripeSandbox())
    .paymentIntents()
    .filter((pi) => pi.metadata.checkout_id === checkoutId && pi.status === "succeeded").length;
const orderCount = async (checkoutId: string) => (await getDb()).order.count({ where: { checkoutId } });

test("bridge: search in major units → checkout → confirm_purchase (card) → get_order, money formatted", async () => {
  const found = resultJson(
    await call("search_products", {
      query: "storm lantern",
      filters: { price: { max: "25", currency: "usd" } },
    }),
  ) as {
    products: { title: string; variants: { id: string; price: { amount: number; formatted: string } }[] }[];
  };
  const product = found.products.find((p) => p.title === "Bridge Storm Lantern");
  assert.ok(product, JSON.stringify(found));
  assert.deepEqual(
    { amount: product.variants[0]?.price.amount, formatted: product.variants[0]?.price.formatted },
    { amount: 2450, formatted: "$24.50" },
  );
  // the filter really is in major units: 24.49 USD excludes the 24.50 lantern
  const cheaper = resultJson(
    await call("search_products", {
      query: "storm lantern",
      filters: { price: { max: 24.49, currency: "USD" } },
    }),
  ) as { products: { title: string }[] };
  assert.equal(
    cheaper.products.some((p) => p.title === "Bridge Storm Lantern"),
    false,
  );

  const checkoutId = await readyCheckout();
  const confirmed = resultJson(
    await call("confirm_purchase", {
      checkouts: [{ store_slug: store.slug, checkout_id: checkoutId }],
      payment_method: "card",
      pay_with: "pm_card_visa",
    }),
  ) as {
    status: string;
    results: { status: string; order?: { id: string }; total?: { amount: number; formatted: string } }[];
  };
  assert.equal(confirmed.status, "completed", JSON.stringify(confirmed));
  const result = confirmed.results[0]!;
  // 2 × 24.50 + 5.00 shipping + 10 % tax on both
  assert.deepEqual(result.total, { amount: 4900 + 500 + 540, currency: "USD", formatted: "$59.40" });
  const orderId = result.order?.id;
  assert.ok(orderId);
  const order = resultJson(await call("get_order", { store_slug: store.slug, id: orderId })) as {
    id: string;
    totals: { type: string; amount: number; formatted?: string }[];
  };
  assert.equal(order.id, orderId);
  const orderTotal = order.totals.find((t) => t.type === "total");
  assert.deepEqual([orderTotal?.amount, orderTotal?.formatted], [5940, "$59.40"]);
  assert.equal(await orderCount(checkoutId), 1);
  assert.equal(await succeededCharges(checkoutId), 1);

  // the bridge signed with its own key (the mandate verified against its profile) and sent the key only
  const completes = seen.filter((r) => r.body?.includes('"complete_checkout"'));
  assert.ok(completes.length >= 1);
  for (const r of completes) {
    assert.equal(r.headers["x-api-key"], key);
    assert.equal(r.headers.authorization, undefined);
    assert.equal(r.headers["ucp-agent"], `profile="${agent.profileUrl}"`);
  }

  // confirming again is safe: the order is reported, nothing is charged twice
  const again = resultJson(
    await call("confirm_purchase", {
      checkouts: [{ store_slug: store.slug, checkout_id: checkoutId }],
      payment_method: "card",
      pay_with: "pm_card_visa",
    }),
  ) as { status: string; results: { already_completed?: boolean; order?: { id: string } }[] };
  assert.equal(again.status, "completed");
  assert.equal(again.results[0]?.already_completed, true);
  assert.equal(again.results[0]?.order?.id, orderId);
  assert.equal(await orderCount(checkoutId), 1);
  assert.equal(await succeededCharges(checkoutId), 1);
});

test("bridge: the first complete_checkout answer is lost → the retry reuses the key; one order, one charge", async () => {
  const checkoutId = await readyCheckout();
  const keys: string[] = [];
  let dropped = 0;
  const inner = serviceFetch();
  const lossy = await connectBridge(
    options({
      fetch: async (url, init) => {
        const body = typeof init.body === "string" ? init.body : "";
        const isComplete = body.includes('"complete_checkout"');
        if (isComplete) {
          const meta = (JSON.parse(body) as { params: { arguments: { meta: Record<string, string> } } })
            .params.arguments.meta;
          keys.push(meta["idempotency-key"]!);
        }
        const response = await inner(url, init);
        if (isComplete && dropped === 0) {
          // the service did the work; its answer never reaches the bridge
          dropped++;
          await response.text();
          throw new TypeError("fetch failed: socket hang up");
        }
        return response;
      },
    }),
    { "x-api-key": key },
  );
  try {
    const confirmed = resultJson(
      await call(
        "confirm_purchase",
        {
          checkouts: [{ store_slug: store.slug, checkout_id: checkoutId }],
          payment_method: "card",
          pay_with: "pm_card_visa",
        },
        lossy,
      ),
    ) as { status: string; results: { order?: { id: string } }[] };
    assert.equal(confirmed.status, "completed", JSON.stringify(confirmed));
    assert.equal(keys.length, 2, "one retry");
    assert.equal(keys[0], keys[1], "the retry carries the same idempotency key");
    assert.equal(await orderCount(checkoutId), 1);
    assert.equal(await succeededCharges(checkoutId), 1);
  } finally {
    await lossy.close();
  }
});

test("bridge: two confirm_purchase calls on one checkout at once → one order, one charge", async () => {
  const checkoutId = await readyCheckout();
  const args = {
    checkouts: [{ store_slug: store.slug, checkout_id: checkoutId }],
    payment_method: "card",
    pay_with: "pm_card_visa",
  };
  const [a, b] = await Promise.all([call("confirm_purchase", args), call("confirm_purchase", args)]);
  const outcomes = [a, b].map(
    (r) => resultJson(r) as { results?: { status: string; order?: { id: string } }[] },
  );
  const orders = outcomes.flatMap((o) => o.results ?? []).flatMap((r) => (r.order ? [r.order.id] : []));
  assert.ok(orders.length >= 1, JSON.stringify(outcomes));
  assert.equal(new Set(orders).size, 1, "both calls name the same order");
  assert.equal(await orderCount(checkoutId), 1);
  assert.equal(await succeededCharges(checkoutId), 1);
});

test("bridge: a declined card fails that checkout with payment_failed and no order; another card then completes it", async () => {
  const checkoutId = await readyCheckout();
  const ref = [{ store_slug: store.slug, checkout_id: checkoutId }];
  const declined = resultJson(
    await call("confirm_purchase", {
      checkouts: ref,
      payment_method: "card",
      pay_with: "pm_card_chargeDeclined",
    }),
  ) as { status: string; results: { status: string; error?: { code: string; message: string } }[] };
  assert.equal(declined.status, "failed", JSON.stringify(declined));
  assert.equal(declined.results[0]?.error?.code, "payment_failed", JSON.stringify(declined.results[0]));
  assert.equal(await orderCount(checkoutId), 0);
  assert.equal(await succeededCharges(checkoutId), 0);
  const paid = resultJson(
    await call("confirm_purchase", { checkouts: ref, payment_method: "card", pay_with: "pm_card_visa" }),
  ) as { status: string };
  assert.equal(paid.status, "completed", JSON.stringify(paid));
  assert.equal(await orderCount(checkoutId), 1);
  assert.equal(await succeededCharges(checkoutId), 1);
  // 0 or 6 checkouts are refused before anything is sent
  for (const checkouts of [
    [],
    Array.from({ length: 6 }, (_, i) => ({ store_slug: store.slug, checkout_id: `chk_${i}` })),
  ]) {
    const error = toolError(await call("confirm_purchase", { checkouts, payment_method: "card" }));
    assert.deepEqual([error.code, error.path], ["invalid_request", "$.checkouts"]);
  }
});

test("bridge: no card token → requires_buyer_action with the payment link and no order; a token later charges once", async () => {
  const checkoutId = await readyCheckout();
  const ref = [{ store_slug: store.slug, checkout_id: checkoutId }];
  const waiting = resultJson(await call("confirm_purchase", { checkouts: ref, payment_method: "card" })) as {
    status: string;
    results: { status: string; continue_url?: string }[];
  };
  assert.equal(waiting.status, "requires_buyer_action", JSON.stringify(waiting));
  assert.match(waiting.results[0]?.continue_url ?? "", new RegExp(`/s/${store.slug}/pay/`));
  assert.equal(await orderCount(checkoutId), 0);
  const paid = resultJson(
    await call("confirm_purchase", { checkouts: ref, payment_method: "card", pay_with: "pm_card_visa" }),
  ) as { status: string };
  assert.equal(paid.status, "completed", JSON.stringify(paid));
  assert.equal(await orderCount(checkoutId), 1);
  assert.equal(await succeededCharges(checkoutId), 1);
});

test("bridge: two checkouts, one not ready → partial; after the fix a second call completes only the other", async () => {
  const ready = await readyCheckout();
  const unready = resultJson(
    await call("create_checkout", { store_slug: store.slug, items: [{ id: variantId, quantity: 1 }] }),
  ) as { id: string };
  const both = {
    checkouts: [
      { store_slug: store.slug, checkout_id: ready },
      { store_slug: store.slug, checkout_id: unready.id },
    ],
    payment_method: "card",
    pay_with: "pm_card_visa",
  };
  const first = resultJson(await call("confirm_purchase", both)) as {
    status: string;
    results: { status: string; error?: { code: string } }[];
  };
  assert.equal(first.status, "partial", JSON.stringify(first));
  assert.equal(first.results[0]?.status, "completed");
  assert.equal(first.results[1]?.status, "failed");
  assert.ok(first.results[1]?.error?.code, JSON.stringify(first.results[1]));
  assert.equal(await orderCount(unready.id), 0);

  await call("update_checkout", {
    store_slug: store.slug,
    id: unready.id,
    buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
    shipping_address: ADDRESS,
  });
  await call("update_checkout", { store_slug: store.slug, id: unready.id, shipping_method_id: "standard" });
  const second = resultJson(await call("confirm_purchase", both)) as {
    status: string;
    results: { status: string; already_completed?: boolean }[];
  };
  assert.equal(second.status, "completed", JSON.stringify(second));
  assert.equal(second.results[0]?.already_completed, true);
  assert.equal(second.results[1]?.already_completed, undefined);
  for (const id of [ready, unready.id]) {
    assert.equal(await orderCount(id), 1);
    assert.equal(await succeededCharges(id), 1);
  }
});

test("bridge: several rails and no payment_method → payment_selection_required with the rails, no order", async () => {
  const checkoutId = await readyCheckout(twoRails, cupId);
  const answer = resultJson(
    await call("confirm_purchase", {
      checkouts: [{ store_slug: twoRails.slug, checkout_id: checkoutId }],
      pay_with: "pm_card_visa",
    }),
  ) as { status: string; results: { status: string; rails?: string[] }[] };
  assert.equal(answer.status, "payment_selection_required", JSON.stringify(answer));
  assert.deepEqual(answer.results[0]?.rails?.sort(), ["svc.card", "svc.crypto"]);
  assert.equal(await orderCount(checkoutId), 0);
  assert.equal(
    seen.some((r) => r.body?.includes(checkoutId) && r.body.includes('"complete_checkout"')),
    false,
  );
  // crypto without the digest of a submitted transaction: a clear refusal, nothing charged
  const crypto = toolError(
    await call("confirm_purchase", {
      checkouts: [{ store_slug: twoRails.slug, checkout_id: checkoutId }],
      payment_method: "crypto",
    }),
  );
  assert.deepEqual([crypto.code, crypto.path], ["transaction_digest_required", "$.transaction_digest"]);
  assert.equal(await orderCount(checkoutId), 0);
});

test("bridge: bad money inputs are refused with a code and the argument's JSONPath; nothing reaches the service", async () => {
  const before = seen.length;
  const refusal = async (price: Record<string, unknown>) =>
    toolError(await call("search_products", { query: "lantern", filters: { price } }));
  const cases: [Record<string, unknown>, string, string][] = [
    [{ max: "1e3", currency: "USD" }, "invalid_amount", "$.filters.price.max"],
    [{ max: 1e21, currency: "USD" }, "invalid_amount", "$.filters.price.max"],
    [{ max: 12.345, currency: "USD" }, "invalid_amount", "$.filters.price.max"],
    [{ min: "12.5", currency: "JPY" }, "invalid_amount", "$.filters.price.min"],
    [{ min: -1, currency: "USD" }, "invalid_amount", "$.filters.price.min"],
    [{ min: "ten", currency: "USD" }, "invalid_amount", "$.filters.price.min"],
    [{ max: "99999999999", currency: "USD" }, "invalid_amount", "$.filters.price.max"],
    [{ max: 10 }, "currency_required", "$.filters.price.currency"],
    [{ max: 10, currency: "XYZ" }, "invalid_currency", "$.filters.price.currency"],
    [{ min: 20, max: 10, currency: "USD" }, "invalid_amount", "$.filters.price.min"],
  ];
  for (const [price, code, path] of cases) {
    const error = await refusal(price);
    assert.deepEqual([error.code, error.path], [code, path], `${JSON.stringify(price)}: ${error.message}`);
  }
  const quantity = toolError(
    await call("create_cart", { store_slug: store.slug, items: [{ id: variantId, quantity: 0 }] }),
  );
  assert.deepEqual([quantity.code, quantity.path], ["invalid_request", "$.items[0].quantity"]);
  assert.equal(seen.length, before, "no bad input reached the service");
  // the service's own refusals come back as tool errors too, with its code
  const unknown = toolError(await call("get_cart", { store_slug: "no-such-store-xyz", id: "cart_none" }));
  assert.deepEqual(
    [unknown.code, unknown.path],
    ["store_not_found", "$.store_slug"],
    JSON.stringify(unknown),
  );
});

test("bridge: every other shopping tool answers within its output schema (the SDK client validates each)", async () => {
  const db = await getDb();
  const locationId = newId("location");
  await db.location.create({
    data: {
      id: locationId,
      storeId: store.id,
      name: "Bridge Depot",
      address: {
        street_address: "9 Dock St",
        address_locality: "Oakland",
        postal_code: "94607",
        address_country: "US",
      },
      latitudeE6: 37_800_000,
      longitudeE6: -122_270_000,
      services: ["pickup"],
      openingHours: [{ day: 1, open: "09:00", close: "18:00" }],
    },
  });
  const ok = async (name: string, args: Record<string, unknown>) => {
    const result = await call(name, args);
    assert.notEqual(result.isError, true, `${name}: ${JSON.stringify(result.content)}`);
    return resultJson(result);
  };
  const product = (await ok("lookup_products", { ids: [variantId] })) as { products: { id: string }[] };
  const productId = product.products[0]?.id;
  assert.ok(productId, JSON.stringify(product));
  const global = (await ok("get_product", { id: productId })) as {
    product: { variants: { price: { formatted: string } }[] };
  };
  assert.equal(global.product.variants[0]?.price.formatted, "$24.50");
  await ok("get_product", { id: productId, store_slug: store.slug });
  const found = (await ok("search_locations", { store_slug: store.slug, serves: ["pickup"] })) as {
    locations: { id: string }[];
  };
  assert.deepEqual(
    found.locations.map((l) => l.id),
    [locationId],
  );
  await ok("lookup_locations", { store_slug: store.slug, ids: [locationId] });
  const cart = (await ok("create_cart", {
    store_slug: store.slug,
    items: [{ id: variantId, quantity: 1 }],
  })) as {
    id: string;
  };
  const updated = (await ok("update_cart", {
    store_slug: store.slug,
    id: cart.id,
    items: [{ id: variantId, quantity: 3 }],
  })) as { line_items: { quantity: number }[] };
  assert.equal(updated.line_items[0]?.quantity, 3);
  await ok("get_cart", { store_slug: store.slug, id: cart.id });
  const fromCart = (await ok("create_checkout", { store_slug: store.slug, cart_id: cart.id })) as {
    id: string;
    line_items: { quantity: number }[];
  };
  assert.equal(fromCart.line_items[0]?.quantity, 3);
  await ok("cancel_cart", { store_slug: store.slug, id: cart.id });
  const canceled = (await ok("cancel_checkout", { store_slug: store.slug, id: fromCart.id })) as {
    status: string;
  };
  assert.equal(canceled.status, "canceled");
  // a canceled checkout is reported as such by confirm_purchase, and nothing is charged
  const refused = resultJson(
    await call("confirm_purchase", {
      checkouts: [{ store_slug: store.slug, checkout_id: fromCart.id }],
      payment_method: "card",
      pay_with: "pm_card_visa",
    }),
  ) as { status: string; results: { error?: { code: string } }[] };
  assert.deepEqual([refused.status, refused.results[0]?.error?.code], ["failed", "checkout_canceled"]);
  assert.equal(await succeededCharges(fromCart.id), 0);
  // both and neither of cart_id / items are refused before anything is sent
  const both = toolError(
    await call("create_checkout", {
      store_slug: store.slug,
      cart_id: cart.id,
      items: [{ id: variantId, quantity: 1 }],
    }),
  );
  assert.deepEqual([both.code, both.path], ["invalid_request", "$.cart_id"]);
});

test("bridge: request_order_refund in major units after shipping, request_order_cancellation before; net charged from the sandbox", async () => {
  const db = await getDb();
  await db.store.update({
    where: { id: store.id },
    data: { agentCancellations: "automatic", agentRefundAutoMinor: 1000 },
  });
  const buy = async () => {
    const checkoutId = await readyCheckout();
    const confirmed = resultJson(
      await call("confirm_purchase", {
        checkouts: [{ store_slug: store.slug, checkout_id: checkoutId }],
        payment_method: "card",
        pay_with: "pm_card_visa",
      }),
    ) as { status: string; results: { order?: { id: string }; total?: { amount: number } }[] };
    assert.equal(confirmed.status, "completed", JSON.stringify(confirmed));
    return {
      checkoutId,
      orderId: confirmed.results[0]!.order!.id,
      total: confirmed.results[0]!.total!.amount,
    };
  };
  const net = async (checkoutId: string) => {
    const pi = (await stripeSandbox()).paymentIntents().find((p) => p.metadata.checkout_id === checkoutId)!;
    return pi.amount - pi.amount_refunded;
  };
  type Answer = { requests?: { type: string; status: string; amount?: number }[] };

  const shipped = await buy();
  await recordFulfillmentEvent(store.slug, shipped.orderId, {
    type: "shipped",
    carrier: "UPS",
    trackingNumber: "1Z",
  });
  const noCurrency = toolError(
    await call("request_order_refund", {
      store_slug: store.slug,
      id: shipped.orderId,
      reason: "Dented",
      amount: 7.5,
    }),
  );
  assert.equal(noCurrency.code, "invalid_request");
  const tooPrecise = toolError(
    await call("request_order_refund", {
      store_slug: store.slug,
      id: shipped.orderId,
      reason: "Dented",
      amount: 7.555,
      currency: "USD",
    }),
  );
  assert.equal(tooPrecise.path, "$.amount");
  assert.equal(
    await db.orderRequest.count({ where: { orderId: shipped.orderId } }),
    0,
    "refusals store nothing",
  );
  const refund = resultJson(
    await call("request_order_refund", {
      store_slug: store.slug,
      id: shipped.orderId,
      reason: "Dented",
      amount: 7.5,
      currency: "usd",
    }),
  ) as Answer;
  assert.deepEqual(
    refund.requests?.map((r) => [r.type, r.status, r.amount]),
    [["refund", "approved", 750]],
  );
  assert.equal(await net(shipped.checkoutId), shipped.total - 750);

  const unshipped = await buy();
  const cancel = resultJson(
    await call("request_order_cancellation", {
      store_slug: store.slug,
      id: unshipped.orderId,
      reason: "Twice",
    }),
  ) as Answer;
  assert.deepEqual(
    cancel.requests?.map((r) => [r.type, r.status]),
    [["cancellation", "approved"]],
  );
  assert.equal(await net(unshipped.checkoutId), 0);
});

test("bridge: an item tagged for free shipping ships free on that rate (the charge is the order total); with an untagged item it pays", async () => {
  type Option = { id: string; title: string; totals: { type: string; amount: number; formatted?: string }[] };
  const standardOf = (checkout: unknown) => {
    const options = (checkout as { fulfillment: { methods: { groups: { options: Option[] }[] }[] } })
      .fulfillment.methods[0]!.groups[0]!.options;
    const option = options.find((o) => o.id === "standard")!;
    const total = option.totals.find((t) => t.type === "total");
    return [option.title, total?.amount, total?.formatted];
  };
  const checkoutOf = async (items: { id: string; quantity: number }[]) => {
    const created = resultJson(
      await call("create_checkout", {
        store_slug: store.slug,
        items,
        buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
        shipping_address: ADDRESS,
      }),
    ) as { id: string };
    return resultJson(
      await call("update_checkout", {
        store_slug: store.slug,
        id: created.id,
        shipping_method_id: "standard",
      }),
    ) as { id: string; status: string; messages?: unknown };
  };
  const mixed = await checkoutOf([
    { id: sleeveId, quantity: 1 },
    { id: variantId, quantity: 1 },
  ]);
  assert.deepEqual(standardOf(mixed), ["Standard", 500, "$5.00"]);

  const free = await checkoutOf([{ id: sleeveId, quantity: 2 }]);
  assert.equal(free.status, "ready_for_complete", JSON.stringify(free.messages));
  assert.deepEqual(standardOf(free), ["Free Standard", 0, "$0.00"]);
  const confirmed = resultJson(
    await call("confirm_purchase", {
      checkouts: [{ store_slug: store.slug, checkout_id: free.id }],
      payment_method: "card",
      pay_with: "pm_card_visa",
    }),
  ) as { status: string; results: { total?: { amount: number; formatted: string } }[] };
  assert.equal(confirmed.status, "completed", JSON.stringify(confirmed));
  // 2 × 12.00, no shipping, 10 % tax
  assert.deepEqual(confirmed.results[0]?.total, { amount: 2400 + 240, currency: "USD", formatted: "$26.40" });
  const charged = (await stripeSandbox())
    .paymentIntents()
    .filter((pi) => pi.metadata.checkout_id === free.id && pi.status === "succeeded");
  assert.deepEqual(
    charged.map((pi) => pi.amount),
    [2640],
  );
  const order = await (await getDb()).order.findFirstOrThrow({ where: { checkoutId: free.id } });
  assert.deepEqual(
    (order.totals as { type: string; amount: number }[]).map((t) => [t.type, t.amount]),
    [
      ["subtotal", 2400],
      ["fulfillment", 0],
      ["tax", 240],
      ["total", 2640],
    ],
  );
});

test("bridge: in a store that keeps addresses, the one sent before is offered for the same buyer and chosen through fulfillment; the charge is the order total", async () => {
  const db = await getDb();
  const keeper = await db.store.update({
    where: { id: (await seedStore({ taxRateBps: 1000 })).id },
    data: { rememberAddresses: true },
  });
  const product = await seedCatalogProduct(keeper, {
    title: "Bridge Keeper Mug",
    variants: [{ priceMinor: 1500, inventory: 20 }],
  });
  const mugId = (await db.variant.findFirstOrThrow({ where: { productId: product.id } })).id;
  await seedShippingRates(keeper, [{ code: "standard", title: "Standard", priceMinor: 500 }]);
  const buyer = { email: `ada.${randomUUID()}@example.com`, first_name: "Ada", last_name: "Lovelace" };
  type Destinations = {
    fulfillment: { methods: { destinations: { id: string; street_address: string }[] }[] };
  };
  const first = resultJson(
    await call("create_checkout", {
      store_slug: keeper.slug,
      items: [{ id: mugId, quantity: 1 }],
      buyer,
      shipping_address: ADDRESS,
    }),
  ) as Destinations;
  const savedId = first.fulfillment.methods[0]!.destinations[0]!.id;
  assert.match(savedId, /^addr_/);

  const second = resultJson(
    await call("create_checkout", {
      store_slug: keeper.slug,
      items: [{ id: mugId, quantity: 1 }],
      buyer,
      fulfillment: { methods: [{ type: "shipping" }] },
    }),
  ) as Destinations & { id: string };
  assert.deepEqual(
    second.fulfillment.methods[0]!.destinations.map((d) => [d.id, d.street_address]),
    [[savedId, ADDRESS.street_address]],
  );
  const ready = resultJson(
    await call("update_checkout", {
      store_slug: keeper.slug,
      id: second.id,
      fulfillment: {
        methods: [
          {
            type: "shipping",
            selected_destination_id: savedId,
            groups: [{ selected_option_id: "standard" }],
          },
        ],
      },
    }),
  ) as { status: string; messages?: unknown };
  assert.equal(ready.status, "ready_for_complete", JSON.stringify(ready.messages));
  const confirmed = resultJson(
    await call("confirm_purchase", {
      checkouts: [{ store_slug: keeper.slug, checkout_id: second.id }],
      payment_method: "card",
      pay_with: "pm_card_visa",
    }),
  ) as { status: string; results: { total?: { amount: number } }[] };
  assert.equal(confirmed.status, "completed", JSON.stringify(confirmed));
  // 15.00 + 5.00 shipping + 10 % tax
  assert.equal(confirmed.results[0]?.total?.amount, 2200);
  const charged = (await stripeSandbox())
    .paymentIntents()
    .filter((pi) => pi.metadata.checkout_id === second.id && pi.status === "succeeded")
    .map((pi) => pi.amount);
  assert.deepEqual(charged, [2200]);
  const order = await db.order.findFirstOrThrow({ where: { checkoutId: second.id } });
  assert.equal(
    (order.fulfillment as { destination: { street_address: string } }).destination.street_address,
    ADDRESS.street_address,
  );
});
