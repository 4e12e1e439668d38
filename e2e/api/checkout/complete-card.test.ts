import assert from "node:assert/strict";
import { createHash, createPublicKey, randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import canonicalize from "canonicalize";
import { createVerifier, httpbis } from "http-message-signatures";
import { compactVerify, importJWK, type JWK } from "jose";

import { clearAgentProfileCache } from "@/lib/agents/agent-profile";
import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
import { mandateTerms } from "@/lib/mandates/mandate-terms";
import { signCheckoutMandate } from "@/lib/mandates/sign-checkout-mandate";
import { stripeSandbox } from "@/sandbox/stripe/server";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { makeAgentKey, profileServer } from "../../helpers/agent-profile-server";
import { rest } from "../../helpers/app-client";
import { connectMcpClient, type McpClient } from "../../helpers/mcp-client";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import {
  assertCheckoutSchema,
  BUYER,
  SEED_ADDRESS,
  totalOf,
  type Checkout,
  type ErrorEnvelope,
} from "./helpers";

// complete_checkout on the card rail over REST and MCP (official SDK client): AP2 checkout mandates
// signed by the agent key published in its profile, the Stripe adapter against the sandbox PSP (a local HTTP
// test double of the Stripe API reached through the SDK's host/port/protocol), escalation, declines, refusals
// that place no order and charge nothing, and exactly-once under retries and races.

let store: Store;
let twoRails: Store;
let key: string;
let noScopeKey: string;
let signedProfile: string;
let agentKey: { kid: string; privateJwk: JWK };
let sock: { id: string };
let cup: { id: string };
let client: McpClient;

const agentHeader = () => `profile="${signedProfile}"`;
const headers = (extra: Record<string, string> = {}) => ({
  "x-api-key": key,
  "ucp-agent": agentHeader(),
  "idempotency-key": randomUUID(),
  ...extra,
});

before(async () => {
  await prepareTestDatabase();
  const profiles = await profileServer();
  signedProfile = profiles.url("signed");
  agentKey = profiles.agentKey as never;
  store = await seedStore({ taxRateBps: 1000 });
  twoRails = await seedStore({ cryptoEnabled: true });
  sock = (await seedProduct(store, { title: "Sock", variants: [{ priceMinor: 1450, inventory: 20 }] }))
    .variants[0]!;
  cup = (await seedProduct(twoRails, { title: "Cup", variants: [{ priceMinor: 900, inventory: 5 }] }))
    .variants[0]!;
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 500 }]);
  await seedShippingRates(twoRails, [{ code: "standard", title: "Standard", priceMinor: 0 }]);
  key = (await seedPlatformKey(["purchase:complete"])).key;
  noScopeKey = (await seedPlatformKey()).key;
  client = await connectMcpClient(`/s/${store.slug}/mcp`, { headers: { "x-api-key": key } });
});
after(async () => {
  await client.close();
  await closeTestDatabase();
});

/** A ready_for_complete checkout (buyer, address, shipping chosen). */
const readyCheckout = async (s: Store = store, variantId = sock.id, quantity = 2, apiKey = key) => {
  const created = await rest<Checkout>("POST", `/s/${s.slug}/checkout-sessions`, {
    headers: headers({ "x-api-key": apiKey }),
    body: {
      line_items: [{ item: { id: variantId }, quantity }],
      buyer: BUYER,
      shipping_address: SEED_ADDRESS,
      shipping_method_id: "standard",
    },
  });
  assert.equal(created.status, 201, created.text);
  return created.body;
};

const mandateFor = (
  c: Checkout,
  s: Store = store,
  opts: { exp?: number; kid?: string; merchant?: string } = {},
) =>
  signCheckoutMandate(mandateTerms(c, opts.merchant ?? s.slug), {
    privateJwk: agentKey.privateJwk,
    kid: opts.kid ?? agentKey.kid,
    exp: opts.exp ?? Math.floor(Date.now() / 1000) + 600,
  });

const card = (token?: string) => ({
  instruments: [
    {
      id: "card-1",
      handler_id: "svc.card",
      type: "card",
      selected: true,
      ...(token ? { credential: { type: "stripe_token", token } } : {}),
    },
  ],
});

const complete = <T = Checkout>(s: Store, id: string, body: unknown, extra: Record<string, string> = {}) =>
  rest<T>("POST", `/s/${s.slug}/checkout-sessions/${id}/complete`, { headers: headers(extra), body });

const intentsFor = async (checkoutId: string) =>
  (await stripeSandbox()).paymentIntents().filter((pi) => pi.metadata.checkout_id === checkoutId);

const orderCount = async (checkoutId: string) => (await getDb()).order.count({ where: { checkoutId } });

const assertCompletedSchema = (body: unknown) => {
  assertCheckoutSchema(body);
  assertUcpSchema("shopping/ap2_mandate.json#/$defs/dev.ucp.shopping.checkout", body);
};

describe("REST POST /s/<slug>/checkout-sessions/<id>/complete", () => {
  test("card + valid mandate: charged once for the live total, order placed, stock taken; a retry returns it", async () => {
    const c = await readyCheckout();
    assert.equal(c.status, "ready_for_complete", JSON.stringify(c.messages));
    const before = await (await getDb()).variant.findUniqueOrThrow({ where: { id: sock.id } });
    const res = await complete(store, c.id, {
      payment: card("pm_card_visa"),
      ap2: { checkout_mandate: await mandateFor(c) },
    });
    assert.equal(res.status, 200, res.text);
    assertCompletedSchema(res.body);
    assert.equal(res.body.status, "completed", JSON.stringify(res.body.messages));
    assert.ok(res.body.order?.id.startsWith("ord_"));
    assert.equal(JSON.stringify(res.body).includes("pm_card_visa"), false, "the token is never echoed");
    const intents = await intentsFor(c.id);
    assert.equal(intents.length, 1);
    assert.equal(intents[0]!.status, "succeeded");
    // 2 × 1450 + 500 shipping = 3400, +10 % tax = 3740
    assert.equal(intents[0]!.amount, totalOf(c, "total"));
    assert.equal(intents[0]!.amount, 3740);
    assert.equal(intents[0]!.currency, "usd");
    const after = await (await getDb()).variant.findUniqueOrThrow({ where: { id: sock.id } });
    assert.equal(after.inventory, before.inventory - 2);
    const order = await (await getDb()).order.findUniqueOrThrow({ where: { checkoutId: c.id } });
    assert.equal(order.paymentRef, intents[0]!.id);
    assert.equal(order.handlerId, "svc.card");
    // retry with a new idempotency key: the same order, no new charge
    const again = await complete(store, c.id, {
      payment: card("pm_card_visa"),
      ap2: { checkout_mandate: "x..y" },
    });
    assert.equal(again.body.status, "completed");
    assert.equal(again.body.order?.id, res.body.order?.id);
    assert.equal((await intentsFor(c.id)).length, 1);
    assert.equal(await orderCount(c.id), 1);
  });

  test("a completed checkout keeps the totals it was charged: a later change of the shipping rate does not move them", async () => {
    const s = await seedStore({ taxRateBps: 1000 });
    const v = (await seedProduct(s, { variants: [{ priceMinor: 1450, inventory: 10 }] })).variants[0]!;
    await seedShippingRates(s, [{ code: "standard", title: "Standard", priceMinor: 500 }]);
    const c = await readyCheckout(s, v.id, 1);
    const res = await complete(s, c.id, {
      payment: card("pm_card_visa"),
      ap2: { checkout_mandate: await mandateFor(c, s) },
    });
    assert.equal(res.body.status, "completed", res.text);
    const [intent] = await intentsFor(c.id);
    // 1450 + 500 shipping = 1950, +10 % tax = 2145
    assert.equal(intent!.amount, 2145);
    assert.equal(totalOf(res.body, "total"), intent!.amount);
    const db = await getDb();
    await db.shippingRate.updateMany({ where: { storeId: s.id }, data: { priceMinor: 900 } });
    const read = await rest<Checkout>("GET", `/s/${s.slug}/checkout-sessions/${c.id}`, {
      headers: headers(),
    });
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body.totals, res.body.totals, "what get_checkout shows is what was charged");
    const shipping = read.body.fulfillment.methods[0]?.groups[0]?.options.find((o) => o.id === "standard");
    assert.equal(shipping?.totals.find((t) => t.type === "total")?.amount, 500, "the shipping charged");
    const mcp = await connectMcpClient(`/s/${s.slug}/mcp`, { headers: { "x-api-key": key } });
    try {
      const viaMcp = await mcp.callTool({
        name: "get_checkout",
        arguments: { meta: { "ucp-agent": { profile: signedProfile } }, id: c.id },
      });
      assert.deepEqual(
        (viaMcp.structuredContent as Checkout).totals,
        res.body.totals,
        JSON.stringify(viaMcp),
      );
    } finally {
      await mcp.close();
    }
    const order = await db.order.findUniqueOrThrow({ where: { checkoutId: c.id } });
    assert.equal(
      (order.totals as { type: string; amount: number }[]).find((t) => t.type === "total")?.amount,
      2145,
    );
  });

  test("the completion answer is signed by the store (RFC 9421 over @status, content-digest, content-type)", async () => {
    const c = await readyCheckout();
    const res = await complete(store, c.id, {
      payment: card("pm_card_visa"),
      ap2: { checkout_mandate: await mandateFor(c) },
    });
    assert.equal(res.body.status, "completed", res.text);
    const input = res.headers.get("signature-input") ?? "";
    assert.match(input, /^sig1=\("@status" "content-digest" "content-type"\);created=\d+;keyid="[^"]+"$/);
    const digest = createHash("sha256").update(res.text).digest("base64");
    assert.equal(res.headers.get("content-digest"), `sha-256=:${digest}:`);
    // verified independently, with the key the store profile publishes
    const profile = await rest<{ signing_keys: (JWK & { kid: string })[] }>(
      "GET",
      `/s/${store.slug}/.well-known/ucp`,
    );
    const kid = /keyid="([^"]+)"/.exec(input)?.[1];
    const jwk = profile.body.signing_keys.find((k) => k.kid === kid);
    assert.ok(jwk, "signed by a key in the store profile");
    const verify = (status: number) =>
      httpbis.verifyMessage(
        {
          keyLookup: async () => ({
            id: kid!,
            algs: ["ecdsa-p256-sha256"],
            verify: createVerifier(createPublicKey({ key: jwk, format: "jwk" }), "ecdsa-p256-sha256"),
          }),
        },
        { status, headers: Object.fromEntries(res.headers.entries()) },
      );
    assert.equal(await verify(200), true);
    assert.equal(await verify(201), false, "the status is covered");
  });

  test("two completions racing with different idempotency keys: one charge, one order", async () => {
    const c = await readyCheckout();
    const mandate = await mandateFor(c);
    const body = { payment: card("pm_card_visa"), ap2: { checkout_mandate: mandate } };
    const sandbox = await stripeSandbox();
    const executedBefore = sandbox.executed();
    const results = await Promise.all([1, 2, 3].map(() => complete(store, c.id, body)));
    for (const r of results) assert.equal(r.body.status, "completed", r.text);
    assert.equal(new Set(results.map((r) => r.body.order?.id)).size, 1);
    const intents = await intentsFor(c.id);
    assert.equal(intents.length, 1, "one PaymentIntent");
    assert.equal(sandbox.executed() - executedBefore, 1, "one confirmation ran at the provider");
    assert.equal(await orderCount(c.id), 1);
  });

  test("declined card: recoverable payment_failed with the provider's reason, session stays open; another card then succeeds", async () => {
    const c = await readyCheckout();
    const mandate = await mandateFor(c);
    const declined = await complete(store, c.id, {
      payment: card("pm_card_chargeDeclined"),
      ap2: { checkout_mandate: mandate },
    });
    assert.equal(declined.status, 200, declined.text);
    assertCheckoutSchema(declined.body);
    assert.equal(declined.body.status, "ready_for_complete");
    const message = declined.body.messages.find((m) => m.code === "payment_failed");
    assert.equal(message?.severity, "recoverable");
    // B18: the provider's reason is in the message
    assert.match(message?.content ?? "", /declined/i);
    assert.equal(
      declined.body.messages.some((m) => m.code === "payment_declined"),
      false,
    );
    assert.equal(await orderCount(c.id), 0);
    const paid = await complete(store, c.id, {
      payment: card("pm_card_visa"),
      ap2: { checkout_mandate: mandate },
    });
    assert.equal(paid.body.status, "completed", paid.text);
    const intents = await intentsFor(c.id);
    assert.deepEqual(intents.map((i) => i.status).sort(), ["requires_payment_method", "succeeded"]);
    assert.equal(await orderCount(c.id), 1);
  });

  test("3-DS required or no card token → requires_escalation with continue_url and a requires_buyer_input error", async () => {
    const c = await readyCheckout();
    const res = await complete(store, c.id, {
      payment: card("pm_card_threeDSecure2Required"),
      ap2: { checkout_mandate: await mandateFor(c) },
    });
    assertCheckoutSchema(res.body);
    const body = res.body as Checkout & { continue_url?: string };
    assert.equal(body.status, "requires_escalation", res.text);
    assert.match(body.continue_url ?? "", new RegExp(`/s/${store.slug}/pay/[A-Za-z0-9_-]{20,}$`));
    const m = body.messages.find((x) => x.code === "requires_3ds");
    assert.equal(m?.severity, "requires_buyer_input");
    assert.equal(await orderCount(c.id), 0);
    // get_checkout shows the same link while escalated
    const read = await rest<Checkout & { continue_url?: string }>(
      "GET",
      `/s/${store.slug}/checkout-sessions/${c.id}`,
      {
        headers: { "x-api-key": key },
      },
    );
    assert.equal(read.body.continue_url, body.continue_url);

    const noToken = await readyCheckout();
    const res2 = await complete(store, noToken.id, {
      payment: card(),
      ap2: { checkout_mandate: await mandateFor(noToken) },
    });
    assert.equal(res2.body.status, "requires_escalation", res2.text);
    assert.equal(
      res2.body.messages.find((x) => x.code === "payment_required")?.severity,
      "requires_buyer_input",
    );
    assert.equal((await intentsFor(noToken.id))[0]?.status, "requires_payment_method");
  });

  test("3-DS completions racing: one PaymentIntent whose return link is the one every answer and the checkout show", async () => {
    const c = await readyCheckout();
    const body = {
      payment: card("pm_card_threeDSecure2Required"),
      ap2: { checkout_mandate: await mandateFor(c) },
    };
    const results = await Promise.all([1, 2, 3, 4].map(() => complete(store, c.id, body)));
    const links = new Set<string>();
    for (const r of results) {
      // a loser that found the session changed goes round again; a bounded conflict is the only other answer
      if (r.body.status === "requires_escalation") {
        links.add((r.body as Checkout & { continue_url?: string }).continue_url ?? "");
      } else assert.equal((r.body as unknown as { code?: string }).code, "conflict", r.text);
    }
    assert.equal(links.size, 1, `one link: ${[...links].join(", ")}`);
    const [link] = [...links];
    const intents = await intentsFor(c.id);
    assert.equal(intents.length, 1, "one PaymentIntent");
    // the provider returns the buyer to the link the agent was given (the same session token)
    const pi = intents[0] as unknown as { return_url: string | null };
    assert.equal(pi.return_url?.split("/pay/")[1], link!.split("/pay/")[1]);
    const read = await rest<Checkout & { continue_url?: string }>(
      "GET",
      `/s/${store.slug}/checkout-sessions/${c.id}`,
      { headers: { "x-api-key": key } },
    );
    assert.equal(read.body.continue_url, link);
    assert.equal(await orderCount(c.id), 0);
  });

  test("mandate refusals: each its own code, no order, no charge", async () => {
    const c = await readyCheckout();
    const code = async (ap2: unknown, extra: Record<string, string> = {}) => {
      const r = await complete<ErrorEnvelope>(store, c.id, { payment: card("pm_card_visa"), ap2 }, extra);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.ucp.status, "error", r.text);
      return [r.body.messages[0]?.code, r.body.messages[0]?.path];
    };
    const P = "$.ap2.checkout_mandate";
    assert.deepEqual(await code(undefined), ["mandate_required", P]);
    assert.deepEqual(await code({ checkout_mandate: "abc" }), ["mandate_invalid_signature", P]);
    assert.deepEqual(await code({ checkout_mandate: await mandateFor(c, store, { exp: 1_000_000 }) }), [
      "mandate_expired",
      P,
    ]);
    assert.deepEqual(
      await code({ checkout_mandate: await mandateFor(c, store, { merchant: twoRails.slug }) }),
      ["mandate_scope_mismatch", P],
    );
    assert.deepEqual(await code({ checkout_mandate: await mandateFor(c, store, { kid: "not-published" }) }), [
      "agent_missing_key",
      P,
    ]);
    // a profile that negotiates AP2 but publishes no signing keys at all
    const noKeys = (await profileServer()).publish("agent-ap2-no-keys", [], { ap2: true });
    assert.deepEqual(
      await code({ checkout_mandate: await mandateFor(c) }, { "ucp-agent": `profile="${noKeys}"` }),
      ["agent_missing_key", P],
    );
    // the "ok" profile does not negotiate dev.ucp.shopping.ap2_mandate: told which capability to declare
    const okProfile = (await profileServer()).url("ok");
    const undeclared = await complete<ErrorEnvelope>(
      store,
      c.id,
      { payment: card("pm_card_visa"), ap2: { checkout_mandate: await mandateFor(c) } },
      { "ucp-agent": `profile="${okProfile}"` },
    );
    assert.equal(undeclared.status, 200, undeclared.text);
    assert.equal(undeclared.body.messages[0]?.code, "capabilities_incompatible");
    assert.match(undeclared.body.messages[0]?.content ?? "", /declare dev\.ucp\.shopping\.ap2_mandate/);
    // stale prices: signed, then the merchant raises the price
    const mandate = await mandateFor(c);
    await (await getDb()).variant.update({ where: { id: sock.id }, data: { priceMinor: 1500 } });
    try {
      assert.deepEqual(await code({ checkout_mandate: mandate }), ["mandate_invalid_signature", P]);
    } finally {
      await (await getDb()).variant.update({ where: { id: sock.id }, data: { priceMinor: 1450 } });
    }
    assert.equal((await intentsFor(c.id)).length, 0);
    assert.equal(await orderCount(c.id), 0);
    const read = await rest<Checkout>("GET", `/s/${store.slug}/checkout-sessions/${c.id}`, {
      headers: { "x-api-key": key },
    });
    assert.equal(read.body.status, "ready_for_complete");
  });

  test("mandate key rotation: a rotated-in key pays on first use; a removed key is refused, nothing charged", async () => {
    // unknown-kid refetches are limited per origin, and every profile of the double shares one: start afresh
    clearAgentProfileCache();
    const profiles = await profileServer();
    const oldKey = makeAgentKey("mandate-old");
    const newKey = makeAgentKey("mandate-new");
    const url = profiles.publish("agent-mandate-rotation", [oldKey.publicJwk], { ap2: true });
    const agent = { "ucp-agent": `profile="${url}"` };
    const signWith = (c: Checkout, k: typeof oldKey) =>
      signCheckoutMandate(mandateTerms(c, store.slug), {
        privateJwk: k.privateJwk as JWK,
        kid: k.kid,
        exp: Math.floor(Date.now() / 1000) + 600,
      });
    // the profile is cached (max-age=3600) by a first completion with the old key
    const first = await readyCheckout();
    const paid = await complete(
      store,
      first.id,
      { payment: card("pm_card_visa"), ap2: { checkout_mandate: await signWith(first, oldKey) } },
      agent,
    );
    assert.equal(paid.body.status, "completed", paid.text);
    // the agent rotates: the new key completes at once (one refetch), the removed one is refused
    profiles.publish("agent-mandate-rotation", [newKey.publicJwk], { ap2: true });
    const second = await readyCheckout();
    const rotated = await complete(
      store,
      second.id,
      { payment: card("pm_card_visa"), ap2: { checkout_mandate: await signWith(second, newKey) } },
      agent,
    );
    assert.equal(rotated.body.status, "completed", rotated.text);
    const third = await readyCheckout();
    const removed = await complete<ErrorEnvelope>(
      store,
      third.id,
      { payment: card("pm_card_visa"), ap2: { checkout_mandate: await signWith(third, oldKey) } },
      agent,
    );
    assert.equal(removed.body.messages[0]?.code, "agent_missing_key", removed.text);
    assert.equal(await orderCount(third.id), 0);
    assert.equal((await intentsFor(third.id)).length, 0, "no charge with a removed key");
  });

  test("an agent profile that times out or is too big: a clear profile error, no charge", async () => {
    const c = await readyCheckout();
    const slow = (await profileServer()).url("slow");
    const r = await complete<ErrorEnvelope>(
      store,
      c.id,
      { payment: card("pm_card_visa"), ap2: { checkout_mandate: await mandateFor(c) } },
      { "ucp-agent": `profile="${slow}"` },
    );
    assert.notEqual(r.status, 500, r.text);
    assert.equal(JSON.stringify(r.body).includes("profile_unreachable"), true, r.text);
    // a profile over the size cap
    const big = (await profileServer()).url("big");
    const r2 = await complete<ErrorEnvelope>(
      store,
      c.id,
      { payment: card("pm_card_visa"), ap2: { checkout_mandate: await mandateFor(c) } },
      { "ucp-agent": `profile="${big}"` },
    );
    assert.notEqual(r2.status, 500, r2.text);
    assert.equal(JSON.stringify(r2.body).includes("profile_malformed"), true, r2.text);
    assert.equal((await intentsFor(c.id)).length, 0);
    assert.equal(await orderCount(c.id), 0);
  });

  test("instrument refusals: registry key, several selected, none on a two-rail store, crypto, malformed", async () => {
    const c = await readyCheckout();
    const mandate = await mandateFor(c);
    const code = async (payment: unknown, s: Store = store, id = c.id) => {
      const r = await complete<ErrorEnvelope>(s, id, { payment, ap2: { checkout_mandate: mandate } });
      assert.notEqual(r.status, 500, r.text);
      return [r.body.messages[0]?.code, r.body.messages[0]?.path];
    };
    assert.deepEqual(await code({ instruments: [{ handler_id: "sh.svc.card", selected: true }] }), [
      "unknown_payment_handler",
      "$.payment.instruments[0].handler_id",
    ]);
    assert.deepEqual(await code({ instruments: [{ handler_id: "com.example.pay" }] }), [
      "unknown_payment_handler",
      "$.payment.instruments[0].handler_id",
    ]);
    assert.deepEqual(
      await code({
        instruments: [{ handler_id: "svc.card" }, { handler_id: "svc.card" }].map((i) => ({
          ...i,
          selected: true,
        })),
      }),
      ["multiple_payment_selections", "$.payment.instruments[1].selected"],
    );
    const bad = await complete<ErrorEnvelope>(store, c.id, {
      payment: { instruments: [{ selected: true }] },
    });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.messages[0]?.path, "$.payment.instruments[0].handler_id");

    const c2 = await readyCheckout(twoRails, cup.id, 1);
    assert.deepEqual(await code({ instruments: [] }, twoRails, c2.id), [
      "payment_selection_required",
      "$.payment.instruments",
    ]);
    assert.deepEqual(
      await code({ instruments: [{ handler_id: "svc.crypto", selected: true }] }, twoRails, c2.id),
      ["rail_not_available", "$.payment.instruments[0].handler_id"],
    );
    assert.equal((await intentsFor(c.id)).length + (await intentsFor(c2.id)).length, 0);
    assert.equal((await orderCount(c.id)) + (await orderCount(c2.id)), 0);
  });

  test("two-rail store: ready_for_complete without an instrument (info message); complete without a selection is payment_selection_required, with svc.card it completes", async () => {
    const c = await readyCheckout(twoRails, cup.id, 1);
    assert.equal(c.status, "ready_for_complete", JSON.stringify(c.messages));
    assert.deepEqual(
      c.messages.filter((m) => m.type === "info").map((m) => m.code),
      ["payment_selection_required"],
    );
    const mandate = await mandateFor(c, twoRails);
    const none = await complete<ErrorEnvelope>(twoRails, c.id, { ap2: { checkout_mandate: mandate } });
    assert.equal(none.status, 200, none.text);
    assert.equal(none.body.messages[0]?.code, "payment_selection_required");
    assert.equal(await orderCount(c.id), 0);
    assert.equal((await intentsFor(c.id)).length, 0);
    const paid = await complete(twoRails, c.id, {
      payment: card("pm_card_visa"),
      ap2: { checkout_mandate: mandate },
    });
    assert.equal(paid.body.status, "completed", paid.text);
    assert.equal(await orderCount(c.id), 1);
  });

  test("canceled session, missing permission", async () => {
    const c = await readyCheckout();
    await rest("POST", `/s/${store.slug}/checkout-sessions/${c.id}/cancel`, { headers: headers() });
    const r = await complete<ErrorEnvelope>(store, c.id, {
      payment: card("pm_card_visa"),
      ap2: { checkout_mandate: await mandateFor(c) },
    });
    assert.equal(r.body.messages[0]?.code, "checkout_not_modifiable");
    const mine = await readyCheckout(store, sock.id, 1, noScopeKey);
    const denied = await complete<ErrorEnvelope>(
      store,
      mine.id,
      { payment: card("pm_card_visa") },
      { "x-api-key": noScopeKey },
    );
    assert.equal(denied.status, 403, denied.text);
    assert.equal(denied.body.messages[0]?.code, "insufficient_scope");
    assert.equal((await intentsFor(c.id)).length + (await intentsFor(mine.id)).length, 0);
  });
});

describe("MCP complete_checkout (official SDK client)", () => {
  const meta = () => ({ "ucp-agent": { profile: signedProfile }, "idempotency-key": randomUUID() });

  test("tools/list advertises complete_checkout with top-level id and the checkout namespace", async () => {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === "complete_checkout");
    assert.ok(tool);
    assert.deepEqual(Object.keys(tool.inputSchema.properties ?? {}).sort(), ["checkout", "id", "meta"]);
  });

  test("a purchase by card end to end; a bad mandate is refused with its code and places nothing", async () => {
    const c = await readyCheckout();
    const refused = await client.callTool({
      name: "complete_checkout",
      arguments: {
        meta: meta(),
        id: c.id,
        checkout: {
          payment: card("pm_card_visa"),
          ap2: { checkout_mandate: await mandateFor(c, store, { exp: 5 }) },
        },
      },
    });
    const refusedBody = refused.structuredContent as ErrorEnvelope;
    assert.equal(refusedBody.ucp.status, "error", JSON.stringify(refused));
    assert.equal(refusedBody.messages[0]?.code, "mandate_expired");
    assert.equal((await intentsFor(c.id)).length, 0);

    const result = await client.callTool({
      name: "complete_checkout",
      arguments: {
        meta: meta(),
        id: c.id,
        checkout: { payment: card("pm_card_visa"), ap2: { checkout_mandate: await mandateFor(c) } },
      },
    });
    assert.ok(!result.isError, JSON.stringify(result));
    const body = result.structuredContent as Checkout;
    assertCompletedSchema(body);
    assert.equal(body.status, "completed");
    assert.ok(body.order?.id);
    assert.equal(await orderCount(c.id), 1);
    assert.equal((await intentsFor(c.id)).length, 1);
  });

  test("decline, then success, then a retry returns the same order; instrument errors carry their codes", async () => {
    const c = await readyCheckout();
    const mandate = await mandateFor(c);
    const callComplete = async (payment: unknown) =>
      (
        await client.callTool({
          name: "complete_checkout",
          arguments: { meta: meta(), id: c.id, checkout: { payment, ap2: { checkout_mandate: mandate } } },
        })
      ).structuredContent as Checkout & ErrorEnvelope;
    const registry = await callComplete({ instruments: [{ handler_id: "sh.svc.card", selected: true }] });
    assert.equal(registry.messages[0]?.code, "unknown_payment_handler");
    assert.equal(registry.messages[0]?.path, "$.payment.instruments[0].handler_id");
    const declined = await callComplete(card("pm_card_chargeDeclined"));
    assert.equal(declined.status, "ready_for_complete");
    assert.equal(declined.messages.find((m) => m.code === "payment_failed")?.severity, "recoverable");
    const paid = await callComplete(card("pm_card_visa"));
    assert.equal(paid.status, "completed");
    const again = await callComplete(card("pm_card_visa"));
    assert.equal(again.order?.id, paid.order?.id);
    assert.equal(await orderCount(c.id), 1);
    assert.equal((await intentsFor(c.id)).filter((i) => i.status === "succeeded").length, 1);
  });

  test("two-rail store without a selection over MCP: payment_selection_required, nothing placed", async () => {
    const c = await readyCheckout(twoRails, cup.id, 1);
    const twoRailClient = await connectMcpClient(`/s/${twoRails.slug}/mcp`, {
      headers: { "x-api-key": key },
    });
    try {
      const result = await twoRailClient.callTool({
        name: "complete_checkout",
        arguments: {
          meta: meta(),
          id: c.id,
          checkout: {
            payment: { instruments: [] },
            ap2: { checkout_mandate: await mandateFor(c, twoRails) },
          },
        },
      });
      const body = result.structuredContent as ErrorEnvelope;
      assert.equal(body.messages[0]?.code, "payment_selection_required");
      assert.equal(await orderCount(c.id), 0);
    } finally {
      await twoRailClient.close();
    }
  });

  test("3-DS over MCP: requires_escalation with continue_url", async () => {
    const c = await readyCheckout();
    const result = await client.callTool({
      name: "complete_checkout",
      arguments: {
        meta: meta(),
        id: c.id,
        checkout: {
          payment: card("pm_card_threeDSecure2Required"),
          ap2: { checkout_mandate: await mandateFor(c) },
        },
      },
    });
    const body = result.structuredContent as Checkout & { continue_url?: string };
    assert.equal(body.status, "requires_escalation", JSON.stringify(result));
    assert.ok(body.continue_url);
    assertCheckoutSchema(body);
  });
});

describe("last units", () => {
  test("two checkouts racing for the last unit: one order; a charge without an order is refunded", async () => {
    const last = (
      await seedProduct(store, { title: "Last One", variants: [{ priceMinor: 700, inventory: 1 }] })
    ).variants[0]!;
    const a = await readyCheckout(store, last.id, 1);
    const b = await readyCheckout(store, last.id, 1);
    const results = await Promise.all(
      [a, b].map(async (c) =>
        complete<Checkout & ErrorEnvelope>(store, c.id, {
          payment: card("pm_card_visa"),
          ap2: { checkout_mandate: await mandateFor(c) },
        }),
      ),
    );
    const completed = results.filter((r) => r.body.status === "completed");
    assert.equal(completed.length, 1, results.map((r) => r.text).join("\n"));
    const loser = results.find((r) => r.body.status !== "completed")!;
    assert.equal(
      loser.body.messages.some((m) => m.code === "out_of_stock"),
      true,
      loser.text,
    );
    const db = await getDb();
    assert.equal((await db.variant.findUniqueOrThrow({ where: { id: last.id } })).inventory, 0);
    assert.equal(await db.order.count({ where: { checkoutId: { in: [a.id, b.id] } } }), 1);
    // invariant: every succeeded charge has an order or was refunded in full (whichever way the race went)
    const intents = [...(await intentsFor(a.id)), ...(await intentsFor(b.id))].filter(
      (i) => i.status === "succeeded",
    );
    for (const pi of intents) {
      const order = await db.order.findFirst({ where: { paymentRef: pi.id } });
      assert.ok(order || pi.amount_refunded === pi.amount, `${pi.id}: order or refund`);
    }
  });
});

describe("ap2.merchant_authorization (UCP AP2 extension)", () => {
  test("only when the platform negotiates dev.ucp.shopping.ap2_mandate; verifies with the store's published key", async () => {
    const c = await readyCheckout();
    const okProfile = (await profileServer()).url("ok");
    const plain = await rest<Record<string, unknown>>("GET", `/s/${store.slug}/checkout-sessions/${c.id}`, {
      headers: { "x-api-key": key, "ucp-agent": `profile="${okProfile}"` },
    });
    assert.equal(plain.body.ap2, undefined);
    const ap2Profile = (await profileServer()).url("ap2");
    const read = await rest<Record<string, unknown> & { ap2?: { merchant_authorization: string } }>(
      "GET",
      `/s/${store.slug}/checkout-sessions/${c.id}`,
      { headers: { "x-api-key": key, "ucp-agent": `profile="${ap2Profile}"` } },
    );
    assertUcpSchema("shopping/ap2_mandate.json#/$defs/dev.ucp.shopping.checkout", read.body);
    const jws = read.body.ap2?.merchant_authorization ?? "";
    assert.match(jws, /^[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+$/);
    assert.ok(
      (read.body.ucp as { capabilities: object }).capabilities.hasOwnProperty("dev.ucp.shopping.ap2_mandate"),
    );
    const profile = await rest<{ signing_keys: { kid: string }[] }>(
      "GET",
      `/s/${store.slug}/.well-known/ucp`,
    );
    const [h, sig] = jws.split("..");
    const { kid } = JSON.parse(Buffer.from(h!, "base64url").toString()) as { kid: string };
    const jwk = profile.body.signing_keys.find((k) => k.kid === kid);
    assert.ok(jwk, "signed by a key in the store profile");
    const { ap2: _drop, ...unsigned } = read.body;
    void _drop;
    const payload = Buffer.from(canonicalize(unsigned) ?? "").toString("base64url");
    await compactVerify(`${h}.${payload}.${sig}`, await importJWK(jwk as JWK, "ES256"));
    // a tampered body does not verify
    const tampered = Buffer.from(canonicalize({ ...unsigned, currency: "EUR" }) ?? "").toString("base64url");
    await assert.rejects(compactVerify(`${h}.${tampered}.${sig}`, await importJWK(jwk as JWK, "ES256")));
    // the completion response carries it too
    const done = await complete<Record<string, unknown> & { ap2?: object; status: string }>(
      store,
      c.id,
      { payment: card("pm_card_visa"), ap2: { checkout_mandate: await mandateFor(c) } },
      { "ucp-agent": `profile="${ap2Profile}"` },
    );
    assert.equal(done.body.status, "completed", done.text);
    assertCompletedSchema(done.body);
    assert.ok(done.body.ap2);
  });
});
