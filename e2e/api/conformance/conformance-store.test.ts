import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";

import { mandateTerms, signCheckoutMandate } from "@agent-commerce/agent-kit/mandate";

import { getDb } from "@/lib/config/db";
import { disableConformanceMode, enableConformanceMode } from "@/lib/conformance/mode";
import { seedConformanceStore } from "@/lib/conformance/seed";
import type { Store } from "@/lib/generated/prisma/client";
import { webhookWorkerStep } from "@/lib/webhooks/worker";
import { stripeSandbox } from "@/sandbox/stripe/server";

import { seedPlatformKey, seedStore } from "../../factories";
import { profileServer } from "../../helpers/agent-profile-server";
import { rest } from "../../helpers/app-client";
import { agentProfile0111 } from "../../helpers/older-agent-profiles";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The conformance store (docs/conformance.md) as the official UCP conformance suite meets it, in-process: its seed
// (the flower shop), conformance mode (keyless calls as the store's own platform key, for that store only, and
// only while the mode is on), its base URL /s/<slug>/conformance (the 2026-01-11 profile with the suite's payment
// handlers, the order read, simulate-shipping behind its secret), the suite's test tokens paying through the card
// sandbox, and the behaviours the suite checks that the seed allows — every answer checked against the 2026-01-11
// schemas. No request here carries a key or a bearer unless it says so.

type Json = Record<string, unknown>;
type Total = { type: string; amount: number };

const SECRET = "conformance-secret-for-tests";
const CHECKOUT_REFS = [
  "shopping/fulfillment.json#/$defs/checkout",
  "shopping/discount.json#/$defs/checkout",
  "shopping/buyer_consent.json#/$defs/checkout",
];
const assertCheckout0111 = (body: unknown) => {
  for (const ref of CHECKOUT_REFS) assertUcpSchema(ref, body, "2026-01-11");
  assert.equal((body as { ucp: { version: string } }).ucp.version, "2026-01-11");
};

let store: Store;
let platformKeyId: string;
let platformKey: string;
let other: Store;
let receiver: WebhookReceiver;
const servers = await profileServer();
/**
 * `suite`: the suite's own agent profile (order only); `shopper`: one declaring checkout, its extensions and AP2;
 * `narrow`: one declaring checkout alone.
 */
const profileUrl: Record<"suite" | "shopper" | "narrow", string> = { suite: "", shopper: "", narrow: "" };
const profileHost = createServer((req, res) => {
  const base = `http://127.0.0.1:${(profileHost.address() as AddressInfo).port}`;
  const webhookUrl = receiver.url("/platform");
  const body =
    req.url === "/suite"
      ? {
          ucp: {
            version: "2026-01-11",
            capabilities: [
              {
                name: "dev.ucp.shopping.order",
                version: "2026-01-11",
                spec: "https://ucp.dev/specs/shopping/order",
                schema: "https://ucp.dev/schemas/shopping/order.json",
                config: { webhook_url: webhookUrl },
              },
            ],
          },
        }
      : req.url === "/narrow"
        ? {
            ucp: {
              version: "2026-01-11",
              capabilities: [
                {
                  name: "dev.ucp.shopping.checkout",
                  version: "2026-01-11",
                  spec: "https://ucp.dev/specs/shopping/checkout",
                  schema: "https://ucp.dev/schemas/shopping/checkout.json",
                },
              ],
            },
          }
        : agentProfile0111(base, "2026-01-11", { mandateKey: servers.agentKey.publicJwk, webhookUrl });
  res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=300" });
  res.end(JSON.stringify(body));
});

before(async () => {
  await prepareTestDatabase();
  receiver = await startWebhookReceiver();
  receiver.setMode("ok");
  await new Promise<void>((resolve) => profileHost.listen(0, "127.0.0.1", resolve));
  profileHost.unref();
  const port = (profileHost.address() as AddressInfo).port;
  profileUrl.suite = `http://127.0.0.1:${port}/suite`;
  profileUrl.shopper = `http://127.0.0.1:${port}/shopper`;
  profileUrl.narrow = `http://127.0.0.1:${port}/narrow`;
  const seeded = await seedConformanceStore(`flower-shop-${randomUUID().slice(0, 8)}`);
  store = seeded.store;
  platformKeyId = seeded.platformKeyId;
  platformKey = seeded.platformKey;
  enableConformanceMode({ storeSlug: store.slug, platformKey, simulationSecret: SECRET });
  other = await seedStore();
  const signingKey = await (await getDb()).storeSigningKey.findFirstOrThrow({ where: { storeId: store.id } });
  receiver.trust({ ...(signingKey.publicJwk as object), kid: signingKey.kid });
});
after(async () => {
  disableConformanceMode();
  profileHost.close();
  await receiver.close();
  await closeTestDatabase();
});

/** A keyless call as the suite makes it: UCP-Agent, Request-Id, Idempotency-Key on writes, nothing else. */
const keyless = (
  method: string,
  path: string,
  {
    body,
    as = "shopper",
    slug = store.slug,
    headers = {},
  }: {
    body?: unknown;
    as?: "suite" | "shopper" | "narrow";
    slug?: string;
    headers?: Record<string, string>;
  } = {},
) =>
  rest<Json>(method, `/s/${slug}${path}`, {
    headers: {
      "ucp-agent": `profile="${profileUrl[as]}"`,
      "request-signature": "test",
      ...(method === "GET" ? {} : { "idempotency-key": randomUUID() }),
      ...headers,
    },
    ...(body === undefined ? {} : { body }),
  });

const ADDRESS = {
  street_address: "123 Main St",
  address_locality: "Springfield",
  address_region: "IL",
  postal_code: "62704",
  address_country: "US",
};

/** The suite's create request (2026-01-11), with a buyer and a whole address (our preflight needs both). */
const createBody = (items: [string, number][], extra: Json = {}) => ({
  id: randomUUID(),
  currency: "USD",
  line_items: items.map(([id, quantity]) => ({ item: { id, title: id }, quantity })),
  buyer: { full_name: "John Doe", email: "john.doe@example.com" },
  payment: { instruments: [], selected_instrument_id: "instr_1", handlers: [] },
  fulfillment: {
    methods: [
      {
        type: "shipping",
        destinations: [{ id: "dest_1", ...ADDRESS }],
        selected_destination_id: "dest_1",
        groups: [{ selected_option_id: "std-ship" }],
      },
    ],
  },
  ...extra,
});

const totalOf = (body: Json, type: string) => (body.totals as Total[]).find((t) => t.type === type)?.amount;

const optionsOf = (body: Json) =>
  (body.fulfillment as { methods: { groups: { options: { id: string; totals: Total[] }[] }[] }[] })
    .methods[0]!.groups[0]!.options;

describe("discovery at the conformance base URL", () => {
  test("answers the store's 2026-01-11 profile with the suite's handlers, each handler document resolving", async () => {
    const res = await rest<Json>("GET", `/s/${store.slug}/conformance/.well-known/ucp`);
    assert.equal(res.status, 200, res.text);
    assertUcpSchema("discovery/profile.json", res.body, "2026-01-11");
    const ucp = res.body.ucp as { version: string; capabilities: { name: string }[]; services: Json };
    assert.equal(ucp.version, "2026-01-11");
    const names = new Set(ucp.capabilities.map((c) => c.name));
    for (const name of ["checkout", "order", "discount", "fulfillment", "buyer_consent"]) {
      assert.ok(names.has(`dev.ucp.shopping.${name}`), name);
    }
    const shopping = ucp.services["dev.ucp.shopping"] as { version: string; rest: { endpoint: string } };
    assert.equal(shopping.version, "2026-01-11");
    assert.equal(new URL(shopping.rest.endpoint).pathname, `/s/${store.slug}`);
    const handlers = (res.body.payment as { handlers: Json[] }).handlers;
    const ids = handlers.map((h) => h.id);
    for (const id of ["mock_payment_handler", "google_pay", "shop_pay", "svc.card"])
      assert.ok(ids.includes(id), id);
    const shopPay = handlers.find((h) => h.id === "shop_pay")!;
    assert.equal(shopPay.name, "com.shopify.shop_pay");
    assert.equal((shopPay.config as Json).shop_id, store.slug);
    for (const h of handlers) {
      for (const doc of [h.spec, h.config_schema, ...(h.instrument_schemas as string[])]) {
        const answer = await rest("GET", new URL(doc as string).pathname);
        assert.equal(answer.status, 200, `${String(doc)}: ${answer.text}`);
      }
    }
    // the store's own profile stays the current one, without the test handlers' names changing anything else
    const current = await rest<Json>("GET", `/s/${store.slug}/.well-known/ucp`);
    assert.equal((current.body.ucp as { version: string }).version, "2026-04-08");
  });
});

describe("identity in conformance mode", () => {
  test("a keyless call to the conformance store is its platform key's: the key's budget, its call, its checkout", async () => {
    const created = await keyless("POST", "/checkout-sessions", { body: createBody([["bouquet_roses", 1]]) });
    assert.equal(created.status, 201, created.text);
    assertCheckout0111(created.body);
    assert.match(created.headers.get("ratelimit-policy") ?? "", /"key"/);
    const row = await (
      await getDb()
    ).checkoutSession.findUniqueOrThrow({ where: { id: created.body.id as string } });
    assert.equal(row.principalId, `key:${platformKeyId}`);
  });

  test("the suite's own profile names only the order capability: at 2026-01-11 checkout gets the whole offer, and the completion still needs the mandate", async () => {
    // 2026-01-11 defines no refusal for a call outside the intersection; a profile that does not name checkout at
    // all is not narrowed (docs/decisions.md "The conformance store" 4)
    const created = await keyless("POST", "/checkout-sessions", {
      as: "suite",
      body: createBody([["bouquet_roses", 1]]),
    });
    assert.equal(created.status, 201, created.text);
    assertCheckout0111(created.body);
    const names = (created.body.ucp as { capabilities: { name: string }[] }).capabilities.map((c) => c.name);
    for (const name of ["checkout", "fulfillment", "discount", "buyer_consent"]) {
      assert.ok(names.includes(`dev.ucp.shopping.${name}`), `${name} in ${names.join(", ")}`);
    }
    assert.equal(created.body.status, "ready_for_complete", created.text);
    // AP2 is then active, and the seed's rule holds: no card completion without a checkout mandate
    const completed = await keyless("POST", `/checkout-sessions/${created.body.id as string}/complete`, {
      as: "suite",
      body: {
        payment_data: {
          id: "instr_1",
          handler_id: "mock_payment_handler",
          type: "card",
          credential: { type: "token", token: "success_token" },
        },
      },
    });
    assert.notEqual(completed.body.status, "completed", completed.text);
    assert.match(completed.text, /mandate_required/);
    const db = await getDb();
    assert.equal(await db.order.count({ where: { checkoutId: created.body.id as string } }), 0);
    const intents = (await stripeSandbox())
      .paymentIntents()
      .filter((p) => p.metadata.checkout_id === created.body.id);
    assert.equal(intents.length, 0, "nothing charged");
  });

  test("a 2026-01-11 profile that names checkout but not its extensions narrows what is active to checkout", async () => {
    const created = await keyless("POST", "/checkout-sessions", {
      as: "narrow",
      body: createBody([["bouquet_roses", 1]]),
    });
    assert.equal(created.status, 201, created.text);
    const names = (created.body.ucp as { capabilities: { name: string }[] }).capabilities.map((c) => c.name);
    assert.deepEqual(names, ["dev.ucp.shopping.checkout"]);
  });

  test("a keyless call to any other store is refused as before", async () => {
    const res = await keyless("POST", "/checkout-sessions", {
      slug: other.slug,
      body: createBody([["x", 1]]),
    });
    assert.ok(res.status === 401 || res.status === 403, res.text);
    assert.notEqual(res.body.code, "capabilities_incompatible");
  });

  test("with the mode off, the conformance store refuses keyless calls and its base URL does not exist", async () => {
    disableConformanceMode();
    try {
      const res = await keyless("POST", "/checkout-sessions", { body: createBody([["bouquet_roses", 1]]) });
      assert.ok(res.status === 401 || res.status === 403, res.text);
      for (const path of ["/conformance/.well-known/ucp", "/conformance/orders/ord_x"]) {
        const gone = await keyless("GET", path);
        assert.equal(gone.status, 404, gone.text);
        assert.equal(gone.body.code, "route_not_found");
      }
      const ship = await keyless("POST", "/conformance/testing/simulate-shipping/ord_x", {
        headers: { "simulation-secret": SECRET },
      });
      assert.equal(ship.body.code, "route_not_found");
      const profile = await rest<Json>("GET", `/s/${store.slug}/.well-known/ucp/2026-01-11`);
      const ids = (profile.body.payment as { handlers: Json[] }).handlers.map((h) => h.id);
      assert.deepEqual(ids, ["svc.card"], "no test handler outside the mode");
    } finally {
      enableConformanceMode({ storeSlug: store.slug, platformKey, simulationSecret: SECRET });
    }
  });
});

describe("the flower shop's rules", () => {
  test("shipping: three rates by destination, standard free from a 100.00 goods subtotal", async () => {
    const us = await keyless("POST", "/checkout-sessions", { body: createBody([["bouquet_tulips", 1]]) });
    assertCheckout0111(us.body);
    assert.deepEqual(
      optionsOf(us.body).map((o) => [o.id, o.totals.find((t) => t.type === "total")?.amount]),
      [
        ["std-ship", 500],
        ["exp-ship-us", 1500],
        ["exp-ship-intl", 2500],
      ],
    );
    const ca = createBody([["bouquet_tulips", 1]]);
    (ca.fulfillment.methods[0]!.destinations[0] as Json).address_country = "CA";
    (ca.fulfillment.methods[0]!.destinations[0] as Json).address_region = "ON";
    const abroad = await keyless("POST", "/checkout-sessions", { body: ca });
    assert.deepEqual(
      optionsOf(abroad.body).map((o) => o.id),
      ["std-ship", "exp-ship-intl"],
    );
    // 4 × 30.00 = 120.00 ≥ 100.00: standard shipping is free
    const big = await keyless("POST", "/checkout-sessions", { body: createBody([["bouquet_tulips", 4]]) });
    assertCheckout0111(big.body);
    assert.equal(
      optionsOf(big.body)
        .find((o) => o.id === "std-ship")
        ?.totals.find((t) => t.type === "total")?.amount,
      0,
    );
    assert.equal(totalOf(big.body, "total"), 12_000);
    const free = optionsOf(big.body).find((o) => o.id === "std-ship") as unknown as { title: string };
    assert.equal(free.title, "Free Standard Shipping");
  });

  test("shipping: standard is free for rose bouquets at any subtotal (their free-shipping tag), not for a cart with something else", async () => {
    const standard = (body: Json) => {
      const option = optionsOf(body).find((o) => o.id === "std-ship") as unknown as {
        title: string;
        totals: Total[];
      };
      return [option.title, option.totals.find((t) => t.type === "total")?.amount];
    };
    const roses = await keyless("POST", "/checkout-sessions", { body: createBody([["bouquet_roses", 1]]) });
    assertCheckout0111(roses.body);
    assert.deepEqual(standard(roses.body), ["Free Standard Shipping", 0]);
    assert.equal(totalOf(roses.body, "fulfillment"), 0);
    assert.equal(totalOf(roses.body, "total"), 3500);
    // the express rates have no such rule
    assert.equal(
      optionsOf(roses.body)
        .find((o) => o.id === "exp-ship-us")
        ?.totals.find((t) => t.type === "total")?.amount,
      1500,
    );
    const mixed = await keyless("POST", "/checkout-sessions", {
      body: createBody([
        ["bouquet_roses", 1],
        ["pot_ceramic", 1],
      ]),
    });
    assertCheckout0111(mixed.body);
    assert.deepEqual(standard(mixed.body), ["Standard Shipping", 500]);
    assert.equal(totalOf(mixed.body, "total"), 3500 + 1500 + 500);
  });

  test("a checkout with no address yet has no destinations (absent at 2026-01-11, not an empty list)", async () => {
    // Jane Doe is a known customer without a saved address
    const { fulfillment: _f, ...john } = createBody([["bouquet_roses", 1]]);
    const withoutAddress = { ...john, buyer: { full_name: "Jane Doe", email: "jane.doe@example.com" } };
    const created = await keyless("POST", "/checkout-sessions", { body: withoutAddress });
    assert.equal(created.status, 201, created.text);
    const updated = await keyless("PUT", `/checkout-sessions/${created.body.id as string}`, {
      body: { ...withoutAddress, id: created.body.id, fulfillment: { methods: [{ type: "shipping" }] } },
    });
    assert.equal(updated.status, 200, updated.text);
    assertCheckout0111(updated.body);
    const method = (updated.body.fulfillment as { methods: Json[] }).methods[0]!;
    assert.equal(Object.hasOwn(method, "destinations"), false, updated.text);
    assert.equal(Object.hasOwn(method, "selected_destination_id"), false, updated.text);
    assert.notEqual(updated.body.status, "ready_for_complete", "nowhere to ship yet");
  });

  test("discount codes: 10OFF and WELCOME20 by percentage, FIXED500 by amount, an unknown code applies nothing", async () => {
    const cases: [string[], number][] = [
      [["10OFF"], 300],
      [["WELCOME20"], 600],
      [["FIXED500"], 500],
      [["NOPE"], 0],
    ];
    for (const [codes, off] of cases) {
      const res = await keyless("POST", "/checkout-sessions", {
        body: createBody([["bouquet_tulips", 1]], { discounts: { codes } }),
      });
      assert.equal(res.status, 201, res.text);
      assertCheckout0111(res.body);
      assert.equal(totalOf(res.body, "discount") ?? 0, off, codes.join());
      assert.equal(totalOf(res.body, "total"), 3000 - off + 500, codes.join());
    }
  });

  test("gardenias are out of stock and pink_wumpus is not sold: refused with a message, no checkout for it", async () => {
    const gardenias = await keyless("POST", "/checkout-sessions", { body: createBody([["gardenias", 1]]) });
    assert.notEqual(gardenias.body.status, "ready_for_complete", gardenias.text);
    assert.ok(
      JSON.stringify(gardenias.body.messages ?? []).match(/out_of_stock|item_unavailable|insufficient/),
      gardenias.text,
    );
    const unknown = await keyless("POST", "/checkout-sessions", { body: createBody([["pink_wumpus", 1]]) });
    assert.equal(unknown.status, 400, unknown.text);
    assert.equal(unknown.body.code, "item_unavailable", unknown.text);
    assert.match(String(unknown.body.content), /^Variant "pink_wumpus" not found/);
  });

  test("idempotency: the same key and body replays the same answer; the same key with another body is 409", async () => {
    const headers = { "idempotency-key": randomUUID() };
    const body = createBody([["bouquet_tulips", 1]]);
    const first = await keyless("POST", "/checkout-sessions", { body, headers });
    const again = await keyless("POST", "/checkout-sessions", { body, headers });
    assert.equal(first.status, 201, first.text);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.equal(again.text, first.text);
    const changed = await keyless("POST", "/checkout-sessions", {
      body: { ...body, line_items: [{ item: { id: "bouquet_tulips" }, quantity: 2 }] },
      headers,
    });
    assert.equal(changed.status, 409, changed.text);
    // another currency is refused at the version's edge, but under a used key the key's conflict comes first
    const sessions = await (await getDb()).checkoutSession.count({ where: { storeId: store.id } });
    const euros = await keyless("POST", "/checkout-sessions", {
      body: { ...body, currency: "EUR" },
      headers,
    });
    assert.equal(euros.status, 409, euros.text);
    const fresh = await keyless("POST", "/checkout-sessions", { body: { ...body, currency: "EUR" } });
    assert.equal(fresh.status, 400, fresh.text);
    assert.match(fresh.text, /currency/);
    assert.equal(await (await getDb()).checkoutSession.count({ where: { storeId: store.id } }), sessions);
  });
});

describe("the suite's known customers: addresses saved under the store's conformance key", () => {
  const bare = (email: string) => {
    const { fulfillment: _f, ...withoutAddress } = createBody([["bouquet_tulips", 1]]);
    return { ...withoutAddress, buyer: { full_name: "John Doe", email } };
  };
  /** A checkout for `email` with no address, then asked for shipping without one: what it offers. */
  const offered = async (email: string, as: "suite" | "shopper" = "shopper") => {
    const created = await keyless("POST", "/checkout-sessions", { body: bare(email), as });
    assert.equal(created.status, 201, created.text);
    const updated = await keyless("PUT", `/checkout-sessions/${created.body.id as string}`, {
      body: { ...bare(email), id: created.body.id, fulfillment: { methods: [{ type: "shipping" }] } },
      as,
    });
    assert.equal(updated.status, 200, updated.text);
    assertCheckout0111(updated.body);
    return updated.body;
  };
  const methodOf = (body: Json) => (body.fulfillment as { methods: Json[] }).methods[0]!;
  const idsOf = (body: Json) => ((methodOf(body).destinations as Json[] | undefined) ?? []).map((d) => d.id);

  test("John Doe's two addresses are offered, none chosen; choosing addr_2 ships there", async () => {
    const body = await offered("john.doe@example.com");
    assert.deepEqual(idsOf(body), ["addr_1", "addr_2"]);
    assert.equal(methodOf(body).selected_destination_id ?? null, null);
    assert.notEqual(body.status, "ready_for_complete");
    assert.match(JSON.stringify(body.messages), /selected_destination_id: addr_1, addr_2/);
    const chosen = await keyless("PUT", `/checkout-sessions/${body.id as string}`, {
      body: {
        ...bare("john.doe@example.com"),
        id: body.id,
        fulfillment: { methods: [{ type: "shipping", selected_destination_id: "addr_2" }] },
      },
    });
    assert.equal(chosen.status, 200, chosen.text);
    assertCheckout0111(chosen.body);
    const method = methodOf(chosen.body);
    assert.equal(method.selected_destination_id, "addr_2");
    const destinations = method.destinations as Json[];
    assert.deepEqual(
      destinations.map((d) => d.id),
      ["addr_2", "addr_1"],
    );
    assert.equal(destinations[0]!.street_address, "456 Oak Ave");
    assert.equal(destinations[0]!.postal_code, "10012");
    // the shipment is priced for it: the options of a US address
    const options = ((method.groups as Json[])[0]!.options as Json[]).map((o) => o.id);
    assert.deepEqual(options, ["std-ship", "exp-ship-us", "exp-ship-intl"]);
  });

  test("the same address sent again reuses its saved id; an address with the agent's own id keeps that id", async () => {
    const created = await keyless("POST", "/checkout-sessions", { body: bare("JOHN.DOE@example.com") });
    const resent = await keyless("PUT", `/checkout-sessions/${created.body.id as string}`, {
      body: {
        ...bare("JOHN.DOE@example.com"),
        id: created.body.id,
        fulfillment: {
          methods: [
            {
              type: "shipping",
              destinations: [
                {
                  street_address: " 123 Main St ",
                  address_locality: "Springfield",
                  address_region: "IL",
                  postal_code: "62704",
                  address_country: "us",
                },
              ],
            },
          ],
        },
      },
    });
    assert.equal(resent.status, 200, resent.text);
    assert.deepEqual(idsOf(resent.body), ["addr_1"]);
    const own = await keyless("POST", "/checkout-sessions", {
      body: {
        ...bare("john.doe@example.com"),
        fulfillment: {
          methods: [
            {
              type: "shipping",
              destinations: [
                {
                  id: "dest_new",
                  street_address: "123 New St",
                  postal_code: "M5V 2H1",
                  address_country: "CA",
                },
              ],
              selected_destination_id: "dest_new",
            },
          ],
        },
      },
    });
    assert.equal(own.status, 201, own.text);
    assert.deepEqual(idsOf(own.body), ["dest_new"], "the agent's own list: nothing added to it");
  });

  test("a new buyer's address is saved with a new id and offered in their next checkout; unknown e-mails and other callers get none", async () => {
    const email = `new.user.${randomUUID()}@example.com`;
    assert.deepEqual(idsOf(await offered(email)), []);
    const db = await getDb();
    const created = await keyless("POST", "/checkout-sessions", {
      body: {
        ...bare(email),
        fulfillment: {
          methods: [
            {
              type: "shipping",
              destinations: [
                {
                  street_address: "789 Pine St",
                  address_locality: "Villagetown",
                  address_region: "NY",
                  postal_code: "10001",
                  address_country: "US",
                },
              ],
            },
          ],
        },
      },
    });
    assert.equal(created.status, 201, created.text);
    const [savedId] = idsOf(created.body) as string[];
    assert.match(savedId ?? "", /^addr_/);
    assert.equal(
      (await db.savedAddress.findUniqueOrThrow({ where: { id: savedId } })).principalId,
      `key:${platformKeyId}`,
    );
    assert.deepEqual(idsOf(await offered(email)), [savedId]);
    // the same e-mail from another caller (a platform key of its own): nothing of the conformance key's
    const foreign = await rest<Json>("POST", `/s/${store.slug}/checkout-sessions`, {
      headers: {
        "ucp-agent": `profile="${profileUrl.shopper}"`,
        "idempotency-key": randomUUID(),
        "x-api-key": (await seedPlatformKey()).key,
      },
      body: { ...bare("john.doe@example.com"), fulfillment: { methods: [{ type: "shipping" }] } },
    });
    assert.equal(foreign.status, 201, foreign.text);
    assert.deepEqual(idsOf(foreign.body), []);
  });
});

describe("paying with the suite's test handler, shipping by simulation", () => {
  /** A ready checkout, its mandate signed by the shopper's key, completed with `token` on mock_payment_handler. */
  /** A ready checkout and the suite's complete body for `token` on mock_payment_handler, with the mandate. */
  const readyCheckout = async () => {
    const created = await keyless("POST", "/checkout-sessions", { body: createBody([["orchid_white", 1]]) });
    assert.equal(created.body.status, "ready_for_complete", created.text);
    const mandate = await signCheckoutMandate(mandateTerms(created.body as never, store.slug), {
      privateJwk: servers.agentKey.privateJwk as never,
      kid: servers.agentKey.kid,
      exp: Math.floor(Date.now() / 1000) + 600,
    });
    const completeBody = (token: string) => ({
      payment_data: {
        id: "instr_1",
        handler_id: "mock_payment_handler",
        type: "card",
        brand: "Visa",
        last_digits: "1234",
        credential: { type: "token", token },
      },
      risk_signals: {},
      ap2: { checkout_mandate: mandate },
    });
    const intents = async () =>
      (await stripeSandbox()).paymentIntents().filter((p) => p.metadata.checkout_id === created.body.id);
    return { created, completeBody, intents };
  };

  const buy = async (token: string) => {
    const { created, completeBody, intents } = await readyCheckout();
    const completed = await keyless("POST", `/checkout-sessions/${created.body.id as string}/complete`, {
      body: completeBody(token),
    });
    return { created, completed, intents: await intents() };
  };

  test("two success_token completions at once (other keys): one order, charged once, net = the order total", async () => {
    const { created, completeBody, intents } = await readyCheckout();
    const path = `/checkout-sessions/${created.body.id as string}/complete`;
    const answers = await Promise.all([
      keyless("POST", path, { body: completeBody("success_token") }),
      keyless("POST", path, { body: completeBody("success_token") }),
    ]);
    const orders = await (await getDb()).order.findMany({ where: { checkoutId: created.body.id as string } });
    assert.equal(orders.length, 1, answers.map((a) => a.text).join("\n"));
    const total = (orders[0]!.totals as Total[]).find((t) => t.type === "total")!.amount;
    const charged = (await intents())
      .filter((p) => p.status === "succeeded")
      .reduce((sum, p) => sum + p.amount - p.amount_refunded, 0);
    assert.equal(charged, total);
  });

  test("success_token: completed through the card sandbox, net charged = the order total", async () => {
    const { completed, intents } = await buy("success_token");
    assert.equal(completed.status, 200, completed.text);
    assert.equal(completed.body.status, "completed", completed.text);
    assertUcpSchema(
      "shopping/ap2_mandate.json#/$defs/checkout_response_with_ap2",
      completed.body,
      "2026-01-11",
    );
    const total = totalOf(completed.body, "total");
    assert.equal(total, 4500 + 500);
    const charged = intents.filter((p) => p.status === "succeeded").reduce((sum, p) => sum + p.amount, 0);
    assert.equal(charged, total);
    assert.ok((completed.body.order as { id?: string }).id);
  });

  test("fail_token: declined by the sandbox, nothing charged, no order", async () => {
    const { completed, intents, created } = await buy("fail_token");
    assert.notEqual(completed.body.status, "completed", completed.text);
    assert.equal(intents.filter((p) => p.status === "succeeded").length, 0);
    const orders = await (await getDb()).order.count({ where: { checkoutId: created.body.id as string } });
    assert.equal(orders, 0);
  });

  test("any other token on a test handler is refused as an unknown handler: nothing charged, no order", async () => {
    const { completed, intents, created } = await buy("tok_visa");
    assert.notEqual(completed.body.status, "completed", completed.text);
    assert.match(completed.text, /mock_payment_handler/);
    assert.equal(intents.length, 0);
    const orders = await (await getDb()).order.count({ where: { checkoutId: created.body.id as string } });
    assert.equal(orders, 0);
  });

  test("simulate-shipping: 403 without the secret, 403 with another, 200 with it, and the shipped webhook", async () => {
    const { completed } = await buy("success_token");
    const orderId = (completed.body.order as { id: string }).id;
    const path = `/conformance/testing/simulate-shipping/${orderId}`;
    const none = await keyless("POST", path);
    assert.equal(none.status, 403, none.text);
    assert.equal(none.body.code, "simulation_secret_invalid");
    const wrong = await keyless("POST", path, {
      headers: { "simulation-secret": "for-sure-incorrect-secret" },
    });
    assert.equal(wrong.status, 403, wrong.text);
    const db = await getDb();
    assert.equal(
      (await db.order.findUniqueOrThrow({ where: { id: orderId } })).status,
      "paid",
      "refusals changed nothing",
    );
    const ok = await keyless("POST", path, { headers: { "simulation-secret": SECRET } });
    assert.equal(ok.status, 200, ok.text);
    assert.equal((await db.order.findUniqueOrThrow({ where: { id: orderId } })).status, "fulfilled");
    await webhookWorkerStep(new Date(), { storeId: store.id });
    const shipped = receiver.received
      .filter((r) => r.path === "/platform" && r.body.includes(orderId))
      .map((r) => JSON.parse(r.body) as { fulfillment?: { events?: { type: string }[] } });
    assert.ok(
      shipped.some((o) => o.fulfillment?.events?.some((e) => e.type === "shipped")),
      JSON.stringify(receiver.received.map((r) => r.path)),
    );
    for (const body of shipped) assertUcpSchema("shopping/order.json", body, "2026-01-11");
  });

  test("the order read under the base URL is the store's: at 2026-01-11 it does not exist (capabilities_incompatible)", async () => {
    const { completed } = await buy("success_token");
    const orderId = (completed.body.order as { id: string }).id;
    const res = await keyless("GET", `/conformance/orders/${orderId}`);
    assert.equal(res.body.code, "capabilities_incompatible", res.text);
    const direct = await keyless("GET", `/orders/${orderId}`);
    assert.equal(direct.text, res.text, "the same operation as /s/<slug>/orders/{id}");
  });
});
