import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { setTimeout } from "node:timers/promises";

import type { JWK } from "jose";
import Stripe from "stripe";

import { whileCharging } from "@/lib/checkout/completion/charges-under-way";
import { getDb, getDbHandle } from "@/lib/config/db";
import { getEnv } from "@/lib/config/env";
import type { Store } from "@/lib/generated/prisma/client";
import { parseServerTiming, STAGES } from "@/lib/ops/server-timing";
import { SANDBOX_WEBHOOK_SECRET } from "@/lib/payments/card/sandbox-client";
import { SANDBOX_SECRET_KEY, stripeSandbox } from "@/sandbox/stripe/server";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { profileServer } from "../../helpers/agent-profile-server";
import { callApp, mcpCall, rest } from "../../helpers/app-client";
import { cardCompletionBody } from "../../helpers/card-completion";
import { statementsOf } from "../../helpers/sql-statements";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { BUYER, SEED_ADDRESS, type Checkout } from "../checkout/helpers";

// What one request costs: the Server-Timing header on every API surface (lib/ops/server-timing.ts) and the SQL
// statement budget of each main operation (lib/config/sql-observer.ts counts the statements one call sends; a
// change that adds round trips fails here, with the statements listed).

// the longest staleness bound, so the cached rows of a warm-up are still there for the call measured after it
process.env.ROW_CACHE_TTL_MS = "5000";

let store: Store;
let key: string;
let signedProfile: string;
let agentKey: { kid: string; privateJwk: JWK };
let sock: { id: string };

before(async () => {
  await prepareTestDatabase();
  assert.equal(getEnv().ROW_CACHE_TTL_MS, 5000);
  const profiles = await profileServer();
  signedProfile = profiles.url("signed");
  agentKey = profiles.agentKey as never;
  store = await seedStore({ taxRateBps: 1000 });
  sock = (await seedProduct(store, { title: "Wool Sock", variants: [{ priceMinor: 1450, inventory: 1000 }] }))
    .variants[0]!;
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 500 }]);
  key = (await seedPlatformKey(["purchase:complete"])).key;
});
after(closeTestDatabase);

const headers = (extra: Record<string, string> = {}) => ({
  "x-api-key": key,
  "ucp-agent": `profile="${signedProfile}"`,
  "idempotency-key": randomUUID(),
  ...extra,
});
const checkouts = () => `/s/${store.slug}/checkout-sessions`;
const createCheckout = () =>
  rest<Checkout>("POST", checkouts(), {
    headers: headers(),
    body: { line_items: [{ item: { id: sock.id }, quantity: 1 }] },
  });
const updateCheckout = (id: string) =>
  rest<Checkout>("PUT", `${checkouts()}/${id}`, {
    headers: headers(),
    body: { buyer: BUYER, shipping_address: SEED_ADDRESS, shipping_method_id: "standard" },
  });
const getCheckout = (id: string) =>
  rest<Checkout>("GET", `${checkouts()}/${id}`, { headers: headers({ "idempotency-key": "" }) });
const completeCheckout = async (checkout: Checkout) =>
  rest<Checkout>("POST", `${checkouts()}/${checkout.id}/complete`, {
    headers: headers(),
    body: await cardCompletionBody(checkout, store.slug, agentKey, "pm_card_visa"),
  });

/** The stages of an answer's Server-Timing header, checked against the documented names. */
const timingOf = (response: { headers: Headers }) => {
  const value = response.headers.get("server-timing");
  assert.ok(value, "Server-Timing header present");
  const stages = parseServerTiming(value);
  for (const [name, { dur }] of stages) {
    assert.ok((STAGES as readonly string[]).includes(name), `documented stage name: ${name}`);
    assert.ok(Number.isFinite(dur) && dur >= 0, `${name} has a duration (${value})`);
  }
  assert.ok(stages.has("total"), `total present (${value})`);
  return stages;
};

describe("Server-Timing", () => {
  test("REST: create → update → get → complete each say where their time went", async () => {
    const created = await createCheckout();
    assert.equal(created.status, 201, created.text);
    const onCreate = timingOf(created);
    for (const stage of ["envelope", "store", "auth", "app", "db", "render"]) {
      assert.ok(onCreate.has(stage), `create has ${stage}`);
    }
    assert.ok(Number(onCreate.get("db")!.desc) > 0, "db names its statement count");
    const total = onCreate.get("total")!.dur;
    assert.ok(onCreate.get("app")!.dur <= total, "a stage never exceeds the total");

    const updated = await updateCheckout(created.body.id);
    assert.equal(updated.body.status, "ready_for_complete", updated.text);
    timingOf(updated);
    const read = await getCheckout(created.body.id);
    assert.ok(timingOf(read).has("profile"), "the agent profile negotiation is its own stage");

    const completed = await completeCheckout(read.body);
    assert.equal(completed.body.status, "completed", completed.text);
    const onComplete = timingOf(completed);
    assert.ok(
      onComplete.has("psp"),
      `the card provider's calls are the psp stage (${completed.headers.get("server-timing")})`,
    );
    assert.ok(Number(onComplete.get("psp")!.desc) >= 1);
  });

  test("errors, MCP and the bridge carry it too", async () => {
    const unknownStore = await rest(
      "GET",
      `/s/no-such-store-${randomUUID().slice(0, 8)}/checkout-sessions/x`,
      {
        headers: { "x-api-key": key },
      },
    );
    assert.equal(unknownStore.status, 404);
    timingOf(unknownStore);

    const mcp = await mcpCall(
      `/s/${store.slug}/mcp`,
      "get_checkout",
      { id: "chk_missing" },
      {
        headers: { "x-api-key": key },
      },
    );
    assert.equal(mcp.status, 200, mcp.text);
    assert.ok(timingOf(mcp).has("auth"));

    const bridge = await callApp("POST", "/bridge/mcp", {
      headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
      body: { jsonrpc: "2.0", id: 1, method: "ping" },
    });
    timingOf(bridge);
  });
});

// ── SQL statement budgets ────────────────────────────────────────────────────────────────────────────────────

const withinBudget = (label: string, sql: string[], budget: number) => {
  assert.ok(
    sql.length <= budget,
    `${label}: ${sql.length} SQL statements, budget ${budget}:\n${sql.map((s) => `  ${s.slice(0, 160)}`).join("\n")}`,
  );
};

let warmCheckoutId = "";

/**
 * Steady traffic, made deterministic: the in-memory rows (stores, keys, signing keys) dropped and read again now
 * (a no-op write to each table empties the caches), and the key's last-use stamp (written at most once a minute)
 * already written, so the call measured next sees what a call in steady traffic sees.
 */
const warm = async () => {
  warmCheckoutId ||= (await createCheckout()).body.id;
  const db = await getDb();
  await db.$executeRawUnsafe("UPDATE stores SET slug = slug WHERE false");
  await db.$executeRawUnsafe("UPDATE platform_api_keys SET prefix = prefix WHERE false");
  await db.$executeRawUnsafe("UPDATE store_signing_keys SET kid = kid WHERE false");
  for (let i = 0; i < 2; i++) {
    const read = await rest("GET", `${checkouts()}/${warmCheckoutId}`, {
      headers: headers({ "idempotency-key": "" }),
    });
    assert.equal(read.status, 200, read.text);
  }
};

/**
 * Budgets per call, warm (see `warm`), as measured when they were set; before the in-memory rows they were
 * 11, 11, 7, 62 (checkout create, update, get, complete), 7 (search), 11, 13, 5, 9 (cart create, update, get,
 * cancel); then 9, 9, 5, 60, 6, 10, 12, 4, 8 before the idempotency claim became one statement, the order's
 * transaction stopped reading back what it had just written, reads took the store from the cache and a search
 * page's products loaded in one statement instead of Prisma's three, and before a read with `include` became one
 * statement (Prisma's relationJoins); create was 8 and complete 36 before a new session and its lines became one
 * statement and the card-payment record one claim, and complete 35 before the order's stock decrement answered
 * its lines' titles, a paid order's two events became one statement and a payment the provider just created
 * stopped being looked up before it is recorded; get was 3 and complete 32 before a read and a frozen session's
 * answer took the shipping rates from the row cache. Search is 3 here because this small
 * catalog's title matches do not fill the page, so the body-only matches are ranked in a second statement; it was 4
 * before a page of known words checked the vocabulary itself instead of a statement of its own. A search of several
 * known words that all match is the page and the products (2); it was 4 with the vocabulary and the check that all
 * words match somewhere.
 * Creating and updating a checkout or a cart were one more (5, 9, 10; updating a checkout two more, 7) before they
 * took the store (and an update the shipping rates) from the cache; the Stripe webhook of a completed payment was 6
 * before it read the attempt once; complete was 31 before a new attempt's transaction demoted the current one with
 * UPDATE … RETURNING instead of reading it first; update, get and complete were 5, 2 and 28 before a session's
 * read brought its lines' variants for pricing (a statement fewer per read); complete was 26 before the finisher's
 * look for an order and its two writes of a success became one statement, and 24 before the completion's fresh
 * shipping rates came with its read of the session, and 22 before a new attempt's demotion of the current one and
 * its insert became one statement instead of a four-statement transaction, and 19 before the order's transaction read the spend ledger only when an allowance reserved for the checkout, and 18 before the order's move of the checkout answered the completed checkout for the completion's answer instead of it being read again, and 14 before the card payment's note of the provider's answer went into the statement that records the attempt; creating and updating a checkout were 4 each before their one write stored the call's idempotency answer too (no claim before, no record after: lib/idempotency/with-idempotency.ts, "in-write"), and completing one 13 before a platform's card purchase claimed its key with the hold, and 12 before the completion read its store fresh with its session and a first card hold created the card payment in its statement. Lower one when a change saves
 * statements; raising one needs a reason (docs/performance.md). A call that moves money reads its store fresh: a
 * store's mode decides where money goes (lib/stores/get-store-or-throw.ts).
 */
const BUDGET = {
  createCheckout: 2,
  updateCheckout: 2,
  getCheckout: 1,
  completeCheckout: 10,
  stripeWebhook: 4,
  stripeWebhookDuringCharge: 1,
  search: 3,
  searchWords: 2,
  createCart: 8,
  updateCart: 9,
  getCart: 2,
  cancelCart: 6,
} as const;

describe("SQL statement budgets", () => {
  test("checkout over MCP: create, update, get, complete within the REST calls' budgets (the store from the row cache as REST takes it)", async () => {
    const mcp = <T>(tool: string, args: Record<string, unknown>, mutates: boolean) =>
      mcpCall<{ result?: { structuredContent?: T; isError?: boolean } }>(`/s/${store.slug}/mcp`, tool, args, {
        headers: { "x-api-key": key },
        meta: {
          "ucp-agent": { profile: signedProfile },
          ...(mutates ? { "idempotency-key": randomUUID() } : {}),
        },
      });
    const answer = <T>(r: { text: string; body: { result?: { structuredContent?: T } } }) => {
      assert.ok(r.body.result?.structuredContent, r.text);
      return r.body.result.structuredContent;
    };
    await warm();
    const created = await statementsOf(() =>
      mcp<Checkout>(
        "create_checkout",
        { checkout: { line_items: [{ item: { id: sock.id }, quantity: 1 }] } },
        true,
      ),
    );
    const { id } = answer(created.result);
    withinBudget("create checkout (MCP)", created.sql, BUDGET.createCheckout);
    await warm();
    const updated = await statementsOf(() =>
      mcp<Checkout>(
        "update_checkout",
        { id, checkout: { buyer: BUYER, shipping_address: SEED_ADDRESS, shipping_method_id: "standard" } },
        true,
      ),
    );
    assert.equal(answer(updated.result).status, "ready_for_complete", updated.result.text);
    withinBudget("update checkout (MCP)", updated.sql, BUDGET.updateCheckout);
    await warm();
    const read = await statementsOf(() => mcp<Checkout>("get_checkout", { id }, false));
    withinBudget("get checkout (MCP)", read.sql, BUDGET.getCheckout);
    const body = await cardCompletionBody(answer(read.result), store.slug, agentKey, "pm_card_visa");
    await warm();
    const completed = await statementsOf(() =>
      mcp<Checkout>("complete_checkout", { id, checkout: body }, true),
    );
    assert.equal(answer(completed.result).status, "completed", completed.result.text);
    withinBudget("complete checkout (MCP)", completed.sql, BUDGET.completeCheckout);
  });

  test("checkout: create, update, get, complete", async () => {
    // warm: one full flow first
    const first = await createCheckout();
    warmCheckoutId = first.body.id;
    await completeCheckout((await updateCheckout(first.body.id)).body);

    await warm();
    const created = await statementsOf(createCheckout);
    assert.equal(created.result.status, 201, created.result.text);
    withinBudget("create checkout", created.sql, BUDGET.createCheckout);
    // the statements sent without Prisma's client (lib/config/sql.ts) are counted too; the call's idempotency answer
    // goes with the session's insert
    assert.ok(
      created.sql.some(
        (s) => s.includes("INSERT INTO checkout_sessions") && s.includes("INSERT INTO idempotency_records"),
      ) && created.sql.some((s) => s.includes("FROM variants v JOIN products p")),
      created.sql.join("\n"),
    );
    const id = created.result.body.id;
    await warm();
    const updated = await statementsOf(() => updateCheckout(id));
    assert.equal(updated.result.body.status, "ready_for_complete", updated.result.text);
    withinBudget("update checkout", updated.sql, BUDGET.updateCheckout);
    await warm();
    const read = await statementsOf(() => getCheckout(id));
    assert.equal(read.result.status, 200);
    withinBudget("get checkout", read.sql, BUDGET.getCheckout);
    const mandated = read.result.body;
    await warm();
    const completed = await statementsOf(() => completeCheckout(mandated));
    assert.equal(completed.result.body.status, "completed", completed.result.text);
    withinBudget("complete checkout", completed.sql, BUDGET.completeCheckout);
    // the store read fresh with the session (no read of its own), and the card payment created with the hold
    assert.ok(
      completed.sql.some((s) => s.includes("FROM checkout_sessions c") && s.includes("FROM stores s")) &&
        !completed.sql.some((s) => /FROM stores WHERE slug/.test(s)),
      completed.sql.join("\n"),
    );
    assert.ok(
      completed.sql.some(
        (s) => s.includes("UPDATE checkout_sessions") && s.includes("INSERT INTO card_payments"),
      ),
      completed.sql.join("\n"),
    );

    // the provider's payment_intent.succeeded for the payment the completion just finished (a new event id, as
    // Stripe sends one per delivery attempt): acknowledged, nothing placed twice
    const intent = (await stripeSandbox()).paymentIntents().find((p) => p.metadata.checkout_id === id)!;
    assert.equal(intent.status, "succeeded");
    const payload = JSON.stringify({
      id: `evt_${randomUUID().replaceAll("-", "")}`,
      object: "event",
      type: "payment_intent.succeeded",
      api_version: "2026-01-28",
      created: 1,
      data: { object: intent },
    });
    const signature = new Stripe(SANDBOX_SECRET_KEY).webhooks.generateTestHeaderString({
      payload,
      secret: SANDBOX_WEBHOOK_SECRET,
    });
    await warm();
    const webhook = await statementsOf(() =>
      callApp("POST", `/s/${store.slug}/stripe/webhook`, {
        headers: { "content-type": "application/json", "stripe-signature": signature },
        rawBody: payload,
      }),
    );
    assert.equal(webhook.result.status, 200);
    assert.deepEqual(await webhook.result.json(), { received: true });
    withinBudget("stripe webhook", webhook.sql, BUDGET.stripeWebhook);

    // the usual case: the event arrives while this process's completion is finishing the payment it names, and
    // that completion places the order with it (its charge registered as under way, as complete_checkout does):
    // the webhook acknowledges it with its event's claim alone, the store from the row cache
    const during = JSON.stringify({ ...JSON.parse(payload), id: `evt_${randomUUID().replaceAll("-", "")}` });
    let finishCharge!: () => void;
    const charging = whileCharging(id, async (placed) => {
      await new Promise<void>((resolve) => (finishCharge = resolve));
      placed({ storeId: store.id, paymentRef: intent.id });
    });
    await warm();
    const acknowledged = statementsOf(() =>
      callApp("POST", `/s/${store.slug}/stripe/webhook`, {
        headers: {
          "content-type": "application/json",
          "stripe-signature": new Stripe(SANDBOX_SECRET_KEY).webhooks.generateTestHeaderString({
            payload: during,
            secret: SANDBOX_WEBHOOK_SECRET,
          }),
        },
        rawBody: during,
      }),
    );
    await setTimeout(20);
    finishCharge();
    await charging;
    const duringCharge = await acknowledged;
    assert.equal(duringCharge.result.status, 200);
    withinBudget("stripe webhook during its charge", duringCharge.sql, BUDGET.stripeWebhookDuringCharge);
    const db = await getDb();
    assert.equal(await db.order.count({ where: { checkoutId: id } }), 1);
    console.log(
      `statements: create ${created.sql.length}, update ${updated.sql.length}, get ${read.sql.length}, complete ${completed.sql.length}, stripe webhook ${webhook.sql.length} (${duringCharge.sql.length} during its charge)`,
    );
  });

  test("catalog search", async () => {
    const search = () =>
      rest("POST", `/s/${store.slug}/catalog/search`, {
        headers: headers({ "idempotency-key": "" }),
        body: { query: "sock" },
      });
    await search();
    await warm();
    const searched = await statementsOf(search);
    assert.equal(searched.result.status, 200, searched.result.text);
    withinBudget("search", searched.sql, BUDGET.search);
    const searchWords = () =>
      rest<{ products: { title: string }[] }>("POST", `/s/${store.slug}/catalog/search`, {
        headers: headers({ "idempotency-key": "" }),
        body: { query: "wool sock" },
      });
    await searchWords(); // its total_count and facets, kept for the next pages
    const words = await statementsOf(searchWords);
    assert.equal(words.result.status, 200, words.result.text);
    assert.deepEqual(
      words.result.body.products.map((p) => p.title),
      ["Wool Sock"],
    );
    withinBudget("search of two words", words.sql, BUDGET.searchWords);
    console.log(`statements: search ${searched.sql.length}, two words ${words.sql.length}`);
  });

  test("carts: create, update, get, cancel", async () => {
    const carts = `/s/${store.slug}/carts`;
    const createCart = () =>
      rest<{ id: string }>("POST", carts, {
        headers: headers(),
        body: { line_items: [{ item: { id: sock.id }, quantity: 1 }] },
      });
    await createCart();
    await warm();
    const created = await statementsOf(createCart);
    assert.equal(created.result.status, 201, created.result.text);
    withinBudget("create cart", created.sql, BUDGET.createCart);
    const id = created.result.body.id;
    await warm();
    const updated = await statementsOf(() =>
      rest("PUT", `${carts}/${id}`, {
        headers: headers(),
        body: { line_items: [{ item: { id: sock.id }, quantity: 2 }] },
      }),
    );
    assert.equal(updated.result.status, 200, updated.result.text);
    withinBudget("update cart", updated.sql, BUDGET.updateCart);
    await warm();
    const read = await statementsOf(() =>
      rest("GET", `${carts}/${id}`, { headers: headers({ "idempotency-key": "" }) }),
    );
    assert.equal(read.result.status, 200, read.result.text);
    withinBudget("get cart", read.sql, BUDGET.getCart);
    await warm();
    const cancelled = await statementsOf(() => rest("POST", `${carts}/${id}/cancel`, { headers: headers() }));
    assert.equal(cancelled.result.status, 200, cancelled.result.text);
    withinBudget("cancel cart", cancelled.sql, BUDGET.cancelCart);
    console.log(
      `statements: cart create ${created.sql.length}, update ${updated.sql.length}, get ${read.sql.length}, cancel ${cancelled.sql.length}`,
    );
  });
});

describe("prepared statements", () => {
  test("a statement the app repeats is prepared once, under one name, on PostgreSQL's connection and in PGlite", async () => {
    const { client: db } = await getDbHandle();
    // one transaction: every statement on one pool connection, so its prepared statements are the ones read
    const prepared = await db.$transaction(async (tx) => {
      for (let i = 0; i < 2; i++) {
        const row = await tx.store.findUnique({ where: { id: store.id }, select: { id: true, slug: true } });
        assert.equal(row?.slug, store.slug);
      }
      const all = await tx.$queryRaw<{ name: string; statement: string }[]>`
        SELECT name, statement FROM pg_prepared_statements`;
      return all.filter((p) =>
        p.statement.startsWith('SELECT "t0"."id", "t0"."slug" FROM "public"."stores"'),
      );
    });
    assert.equal(prepared.length, 1, `the store read prepared once: ${JSON.stringify(prepared)}`);
    assert.match(prepared[0]!.name, /^acs_[0-9a-z]+$/);
  });
});
