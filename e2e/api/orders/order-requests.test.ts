import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
import { decideOrderRequest } from "@/lib/orders/order-requests";
import { recordFulfillmentEvent } from "@/lib/orders/record-fulfillment";
import { stripeSandbox } from "@/sandbox/stripe/server";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { rest } from "../../helpers/app-client";
import { cardCompletionBody } from "../../helpers/card-completion";
import { startCimdServer, type CimdServer } from "../../helpers/cimd-server";
import {
  ADDRESS,
  bearerHeaders,
  linkBuyerAgent,
  newWallet,
  signedProfile,
} from "../../helpers/crypto-purchase";
import { connectMcpClient, toolMeta } from "../../helpers/mcp-client";
import { completeCardOrder, newPlatformSigner, type PlatformSigner } from "../../helpers/paid-order";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import {
  servePlatformProfile,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../../helpers/webhook-receiver";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import type { Checkout } from "../checkout/helpers";

// An agent asks to cancel or refund an order it placed (REST, MCP; the bridge in e2e/api/bridge). Orders are paid
// by the real card completion against the Stripe sandbox (a local test double of Stripe's API), so "net charged" is
// read from the sandbox's PaymentIntent: amount − amount_refunded. Checked: each store policy (automatic, review),
// the merchant's approval and decline, who may ask (key permission, buyer bearer, someone else's order), refusals
// that store nothing, and races on one order (a request against a shipment, two requests at once): one outcome.

type Request = {
  id: string;
  type: string;
  status: string;
  amount?: number;
  reason: string;
  decline_reason?: string;
  adjustment_id?: string;
};
type WireOrder = {
  id: string;
  line_items: { id: string; quantity: { original: number; total: number; fulfilled: number } }[];
  adjustments?: { id: string; type: string; status: string; totals: { type: string; amount: number }[] }[];
  requests?: Request[];
};
type ErrorBody = { messages?: { code: string; path?: string; content: string }[] };

let receiver: WebhookReceiver;
let closeProfile: () => void;
let profileUrl: string;
let signer: PlatformSigner;
let store: Store;
let variantId: string;
let key: string;
let readOnlyKey: string;
let otherKey: string;
let cimd: CimdServer;

before(async () => {
  await prepareTestDatabase();
  receiver = await startWebhookReceiver();
  receiver.setMode("ok");
  signer = newPlatformSigner();
  const profile = await servePlatformProfile(receiver.url("/platform"), { signingKeys: [signer.publicJwk] });
  profileUrl = profile.url;
  closeProfile = profile.close;
  cimd = await startCimdServer();
  store = await seedStore();
  await seedShippingRates(store, [{ code: "standard", priceMinor: 500 }]);
  variantId = (await seedProduct(store, { variants: [{ priceMinor: 2500, inventory: 1000 }] })).variants[0]!
    .id;
  key = (await seedPlatformKey(["orders:read", "purchase:complete", "orders:request"])).key;
  readOnlyKey = (await seedPlatformKey(["orders:read", "purchase:complete"])).key;
  otherKey = (await seedPlatformKey(["orders:read", "purchase:complete", "orders:request"])).key;
});
after(async () => {
  closeProfile();
  await receiver.close();
  await cimd.close();
  await closeTestDatabase();
});

const setPolicy = async (agentCancellations: "automatic" | "review", agentRefundAutoMinor: number) =>
  (await getDb()).store.update({
    where: { id: store.id },
    data: { agentCancellations, agentRefundAutoMinor },
  });

const paidOrder = (apiKey = key, quantity = 2) =>
  completeCardOrder(store, { apiKey, profileUrl, signer, lines: [{ variantId, quantity }] });

const ship = (orderId: string) =>
  recordFulfillmentEvent(store.slug, orderId, { type: "shipped", carrier: "UPS", trackingNumber: "1Z999" });

/** Ships `quantity` units of the order's first line. */
const shipSome = async (orderId: string, quantity: number) => {
  const line = await (await getDb()).orderLineItem.findFirstOrThrow({ where: { orderId } });
  return recordFulfillmentEvent(store.slug, orderId, {
    type: "shipped",
    carrier: "UPS",
    trackingNumber: "1Z999",
    lineItems: [{ id: line.id, quantity }],
  });
};

const netCharged = async (checkoutId: string) => {
  const pi = (await stripeSandbox()).paymentIntents().find((p) => p.metadata.checkout_id === checkoutId);
  assert.ok(pi, "the completion charged through the sandbox");
  return pi.amount - pi.amount_refunded;
};

const headers = (apiKey = key) => ({
  "x-api-key": apiKey,
  "ucp-agent": `profile="${profileUrl}"`,
  "idempotency-key": randomUUID(),
});

const askCancel = (
  orderId: string,
  body: Record<string, unknown> = { reason: "Ordered twice" },
  apiKey = key,
) =>
  rest<WireOrder & ErrorBody>("POST", `/s/${store.slug}/orders/${orderId}/cancellation-requests`, {
    headers: headers(apiKey),
    body,
  });

const askRefund = (orderId: string, body: Record<string, unknown>, apiKey = key) =>
  rest<WireOrder & ErrorBody>("POST", `/s/${store.slug}/orders/${orderId}/refund-requests`, {
    headers: headers(apiKey),
    body,
  });

const stored = async (orderId: string) => {
  const db = await getDb();
  return {
    requests: await db.orderRequest.count({ where: { orderId } }),
    adjustments: await db.orderAdjustment.count({ where: { orderId } }),
    events: await db.orderEvent.count({ where: { orderId } }),
    order: await db.order.findUniqueOrThrow({ where: { id: orderId }, select: { status: true } }),
  };
};

const eventKinds = async (orderId: string) =>
  (await (await getDb()).orderEvent.findMany({ where: { orderId }, orderBy: { sequence: "asc" } })).map(
    (e) => e.kind,
  );

const codeOf = (body: ErrorBody) => body.messages?.[0]?.code;

describe("request_order_cancellation", () => {
  test("automatic policy over REST: canceled at once, stock back, the whole charge refunded in the sandbox, the request approved in the order and its event", async () => {
    await setPolicy("automatic", 0);
    const { orderId, checkoutId, total } = await paidOrder();
    const asked = await askCancel(orderId);
    assert.equal(asked.status, 201, asked.text);
    assertUcpSchema("shopping/order.json", asked.body);
    const [request] = asked.body.requests ?? [];
    assert.equal(request?.type, "cancellation");
    assert.equal(request?.status, "approved");
    assert.equal(request?.amount, total);
    assert.equal(request?.reason, "Ordered twice");
    assert.equal(asked.body.line_items[0]?.quantity.total, 0, "the lines are removed");
    const adjustment = asked.body.adjustments?.find((a) => a.id === request?.adjustment_id);
    assert.equal(adjustment?.type, "cancellation");
    assert.equal(adjustment?.status, "completed");
    assert.equal(await netCharged(checkoutId), 0, "net charged = total − refunded = 0");
    assert.deepEqual(await eventKinds(orderId), [
      "order.placed",
      "order.paid",
      "order.canceled",
      "order.refunded",
    ]);
    const canceledEvent = await (
      await getDb()
    ).orderEvent.findFirstOrThrow({
      where: { orderId, kind: "order.canceled" },
    });
    assert.equal(
      (canceledEvent.payload as WireOrder).requests?.[0]?.status,
      "approved",
      "the event shows it answered",
    );

    // asked again (a new call, not a retry): the order is already canceled, nothing more happens
    const again = await askCancel(orderId);
    assert.equal(again.status, 409, again.text);
    assert.equal(codeOf(again.body), "conflict");
    assert.equal((await stored(orderId)).requests, 1);
  });

  test("a request retried with its idempotency key is answered again and stored once; the same key with another body is refused", async () => {
    await setPolicy("review", 0);
    const { orderId } = await paidOrder();
    const sameKey = headers();
    const send = (reason: string) =>
      rest<WireOrder & ErrorBody>("POST", `/s/${store.slug}/orders/${orderId}/cancellation-requests`, {
        headers: sameKey,
        body: { reason },
      });
    const first = await send("Ordered twice");
    assert.equal(first.status, 201, first.text);
    const retried = await send("Ordered twice");
    assert.equal(retried.status, 201, retried.text);
    assert.equal(retried.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(retried.body.requests, first.body.requests);
    const reused = await send("Something else");
    assert.equal(reused.status, 409, reused.text);
    assert.equal(codeOf(reused.body), "idempotency_key_reused");
    assert.equal((await stored(orderId)).requests, 1);
  });

  test("review policy over MCP: pending with its event; a second request refused; the merchant declines with a reason the agent reads; nothing refunded", async () => {
    await setPolicy("review", 0);
    const { orderId, checkoutId, total } = await paidOrder();
    const client = await connectMcpClient(`/s/${store.slug}/mcp`, { headers: { "x-api-key": key } });
    try {
      const asked = await client.callTool({
        name: "request_order_cancellation",
        arguments: { meta: toolMeta(randomUUID()), id: orderId, request: { reason: "Found it cheaper" } },
      });
      assert.ok(!asked.isError, JSON.stringify(asked.content));
      const order = asked.structuredContent as WireOrder;
      assertUcpSchema("shopping/order.json", order);
      assert.equal(order.requests?.[0]?.status, "pending");
      assert.equal(order.line_items[0]?.quantity.total, 2, "nothing canceled yet");

      await assert.rejects(
        client.callTool({
          name: "request_order_cancellation",
          arguments: { meta: toolMeta(randomUUID()), id: orderId, request: { reason: "Please" } },
        }),
        /already has a cancellation request/,
      );
      assert.equal((await stored(orderId)).requests, 1, "one request waits per order");

      const requestId = order.requests![0]!.id;
      await assert.rejects(
        decideOrderRequest(store, requestId, { approve: false, reason: " " }, "merchant"),
        /reason/,
      );
      await decideOrderRequest(store, requestId, { approve: false, reason: "Already packed" }, "merchant");
      await assert.rejects(
        decideOrderRequest(store, requestId, { approve: true }, "merchant"),
        /already declined/,
        "a decided request is decided once",
      );
      const read = await client.callTool({ name: "get_order", arguments: { meta: toolMeta(), id: orderId } });
      const after = read.structuredContent as WireOrder;
      assert.equal(after.requests?.[0]?.status, "declined");
      assert.equal(after.requests?.[0]?.decline_reason, "Already packed");
      assert.equal(await netCharged(checkoutId), total, "nothing went back");
      assert.deepEqual(await eventKinds(orderId), [
        "order.placed",
        "order.paid",
        "order.cancellation_requested",
        "order.request_declined",
      ]);
    } finally {
      await client.close();
    }
  });

  test("review policy: the merchant approves; shipping first instead answers the waiting request as declined", async () => {
    await setPolicy("review", 0);
    const approved = await paidOrder();
    const asked = await askCancel(approved.orderId);
    const requestId = asked.body.requests![0]!.id;
    await decideOrderRequest(store, requestId, { approve: true }, "merchant");
    assert.equal(await netCharged(approved.checkoutId), 0);
    assert.equal((await stored(approved.orderId)).order.status, "canceled");

    const shipped = await paidOrder();
    const waiting = await askCancel(shipped.orderId);
    await ship(shipped.orderId);
    const request = await (
      await getDb()
    ).orderRequest.findUniqueOrThrow({ where: { id: waiting.body.requests![0]!.id } });
    assert.equal(request.status, "declined");
    assert.match(request.declineReason ?? "", /refund/);
    await assert.rejects(
      decideOrderRequest(store, request.id, { approve: true }, "merchant"),
      /already declined/,
    );
    assert.equal(await netCharged(shipped.checkoutId), shipped.total);
  });

  test("refusals store nothing: no reason, a shipped order, a key without orders:request, another key's order, an unknown order", async () => {
    await setPolicy("automatic", 0);
    const { orderId } = await paidOrder();
    const before = await stored(orderId);
    const noReason = await askCancel(orderId, {});
    assert.equal(noReason.status, 400, noReason.text);
    const tooLong = await askCancel(orderId, { reason: "x".repeat(501) });
    assert.equal(tooLong.status, 400, tooLong.text);
    const noPermission = await askCancel(orderId, { reason: "r" }, readOnlyKey);
    assert.equal(noPermission.status, 403, noPermission.text);
    assert.equal(codeOf(noPermission.body), "insufficient_scope");
    const notTheirs = await askCancel(orderId, { reason: "r" }, otherKey);
    assert.equal(codeOf(notTheirs.body), "not_found", notTheirs.text);
    const unknown = await askCancel("ord_unknown", { reason: "r" });
    assert.equal(codeOf(unknown.body), "not_found", unknown.text);
    assert.deepEqual(await stored(orderId), before);

    await shipSome(orderId, 1);
    const shippedBefore = await stored(orderId);
    const late = await askCancel(orderId);
    assert.equal(late.status, 409, late.text);
    assert.match(late.body.messages?.[0]?.content ?? "", /request_order_refund/);
    assert.deepEqual(await stored(orderId), shippedBefore);
  });
});

describe("request_order_refund", () => {
  test("nothing shipped, above what was paid, another currency: refused, nothing stored; within the automatic limit: paid back at once", async () => {
    await setPolicy("automatic", 1000);
    const { orderId, checkoutId, total } = await paidOrder();
    const early = await askRefund(orderId, { reason: "Broken" });
    assert.equal(early.status, 409, early.text);
    assert.match(early.body.messages?.[0]?.content ?? "", /request_order_cancellation/);

    await shipSome(orderId, 1);
    const before = await stored(orderId);
    const tooMuch = await askRefund(orderId, { reason: "Broken", amount: total + 1 });
    assert.equal(tooMuch.status, 400, tooMuch.text);
    assert.equal(tooMuch.body.messages?.[0]?.path, "$.request.amount");
    const euros = await askRefund(orderId, { reason: "Broken", amount: 500, currency: "EUR" });
    assert.equal(euros.status, 400, euros.text);
    const fractional = await askRefund(orderId, { reason: "Broken", amount: 1.5 });
    assert.equal(fractional.status, 400, fractional.text);
    assert.deepEqual(await stored(orderId), before);

    const small = await askRefund(orderId, {
      reason: "One arrived scratched",
      amount: 1000,
      currency: "USD",
    });
    assert.equal(small.status, 201, small.text);
    assertUcpSchema("shopping/order.json", small.body);
    assert.equal(small.body.requests?.[0]?.status, "approved");
    assert.equal(await netCharged(checkoutId), total - 1000);
    assert.notEqual(
      (await stored(orderId)).order.status,
      "refunded",
      "a partial refund leaves the order as it was",
    );
  });

  test("above the limit it waits; the merchant approves the amount asked; the rest can be asked for after, and no more", async () => {
    await setPolicy("automatic", 1000);
    const { orderId, checkoutId, total } = await paidOrder();
    await ship(orderId);
    const asked = await askRefund(orderId, { reason: "Both arrived broken", amount: 3000 });
    assert.equal(asked.status, 201, asked.text);
    const request = asked.body.requests![0]!;
    assert.equal(request.status, "pending");
    assert.equal(request.amount, 3000);
    assert.equal(await netCharged(checkoutId), total, "nothing moved while it waits");
    assert.deepEqual((await eventKinds(orderId)).slice(-1), ["order.refund_requested"]);

    await decideOrderRequest(store, request.id, { approve: true }, "merchant");
    assert.equal(await netCharged(checkoutId), total - 3000);

    const rest = await askRefund(orderId, { reason: "Shipping too" });
    assert.equal(rest.status, 201, rest.text);
    assert.equal(rest.body.requests?.[1]?.amount, total - 3000, "default: everything left");
    await decideOrderRequest(store, rest.body.requests![1]!.id, { approve: true }, "merchant");
    assert.equal(await netCharged(checkoutId), 0);
    assert.equal((await stored(orderId)).order.status, "refunded");
    const more = await askRefund(orderId, { reason: "Again" });
    assert.equal(more.status, 409, more.text);
  });

  test("the buyer's bearer with purchase:complete asks for its own order; not for the platform key's", async () => {
    await setPolicy("automatic", 100_000);
    const agent = await linkBuyerAgent(cimd, await newWallet());
    const created = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
      headers: await bearerHeaders(agent.bearer),
      body: {
        line_items: [{ item: { id: variantId }, quantity: 1 }],
        buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
        shipping_address: ADDRESS,
        shipping_method_id: "standard",
      },
    });
    assert.equal(created.body.status, "ready_for_complete", created.text);
    const done = await rest<Checkout & { order?: { id: string } }>(
      "POST",
      `/s/${store.slug}/checkout-sessions/${created.body.id}/complete`,
      {
        headers: await bearerHeaders(agent.bearer),
        body: await cardCompletionBody(
          created.body,
          store.slug,
          (await signedProfile()).signer,
          "pm_card_visa",
        ),
      },
    );
    assert.equal(done.body.status, "completed", done.text);
    const orderId = done.body.order!.id;
    const mine = await rest<WireOrder & ErrorBody>(
      "POST",
      `/s/${store.slug}/orders/${orderId}/cancellation-requests`,
      {
        headers: await bearerHeaders(agent.bearer),
        body: { reason: "Changed my mind" },
      },
    );
    assert.equal(mine.status, 201, mine.text);
    assert.equal(mine.body.requests?.[0]?.status, "approved");
    assert.equal(await netCharged(created.body.id), 0);

    const { orderId: keyOrder } = await paidOrder();
    const notMine = await rest<ErrorBody>(
      "POST",
      `/s/${store.slug}/orders/${keyOrder}/cancellation-requests`,
      {
        headers: await bearerHeaders(agent.bearer),
        body: { reason: "Changed my mind" },
      },
    );
    assert.equal(codeOf(notMine.body), "not_found", notMine.text);
  });
});

describe("races on one order", () => {
  test("a cancellation request against a shipment, five rounds: either canceled with nothing shipped and all paid back, or shipped with the request refused and nothing paid back", async () => {
    await setPolicy("automatic", 0);
    const outcomes = new Set<string>();
    for (let round = 0; round < 5; round++) {
      const { orderId, checkoutId, total } = await paidOrder();
      const [asked, shipped] = await Promise.allSettled([askCancel(orderId), ship(orderId)]);
      const db = await getDb();
      const order = await db.order.findUniqueOrThrow({
        where: { id: orderId },
        include: { lineItems: true },
      });
      const shippedUnits = order.lineItems.reduce((s, l) => s + l.quantityFulfilled, 0);
      const requests = await db.orderRequest.count({ where: { orderId } });
      if (order.status === "canceled") {
        assert.equal(asked.status === "fulfilled" && asked.value.status, 201);
        assert.equal(shipped.status, "rejected", "the shipment of a canceled order is refused");
        assert.equal(shippedUnits, 0);
        assert.equal(await netCharged(checkoutId), 0);
        outcomes.add("canceled");
      } else {
        assert.equal(shipped.status, "fulfilled");
        assert.equal(asked.status === "fulfilled" && asked.value.status, 409);
        assert.equal(shippedUnits, 2);
        assert.equal(requests, 0, "the refused request stored nothing");
        assert.equal(await netCharged(checkoutId), total);
        outcomes.add("shipped");
      }
    }
    assert.ok(outcomes.size >= 1);
  });

  test("two refund requests at once that together exceed what was paid, granted and waiting, three rounds each: one request, one refund at most, net charged = total − refunded", async () => {
    for (const limit of [100_000, 0]) {
      await setPolicy("automatic", limit);
      for (let round = 0; round < 3; round++) {
        const { orderId, checkoutId, total } = await paidOrder();
        await ship(orderId);
        const answers = await Promise.all([
          askRefund(orderId, { reason: "Broken", amount: 4000 }),
          askRefund(orderId, { reason: "Broken (again)", amount: 4000 }),
        ]);
        const texts = answers.map((a) => a.text).join("\n");
        assert.equal(answers.filter((a) => a.status === 201).length, 1, texts);
        // the other is refused: a request waiting, a refund in progress, or (once the first is paid) too much
        const refused = answers.find((a) => a.status !== 201)!;
        assert.ok([400, 409].includes(refused.status), texts);
        const db = await getDb();
        const requests = await db.orderRequest.findMany({ where: { orderId } });
        assert.equal(requests.length, 1, "the refused request stored nothing");
        const refunded = (await db.orderAdjustment.findMany({ where: { orderId } })).reduce(
          (sum, a) => sum + a.refundMinor,
          0,
        );
        assert.equal(refunded, limit > 0 ? 4000 : 0);
        assert.equal(await netCharged(checkoutId), total - refunded);
      }
    }
  });

  test("the merchant's approval against a second approval and the merchant's own refund: one refund", async () => {
    await setPolicy("automatic", 0);
    const { orderId, checkoutId, total } = await paidOrder();
    await ship(orderId);
    const asked = await askRefund(orderId, { reason: "Broken", amount: 2000 });
    const requestId = asked.body.requests![0]!.id;
    const settled = await Promise.allSettled([
      decideOrderRequest(store, requestId, { approve: true }, "merchant"),
      decideOrderRequest(store, requestId, { approve: true }, "merchant"),
    ]);
    assert.deepEqual(settled.map((s) => s.status).sort(), ["fulfilled", "rejected"]);
    assert.equal(await netCharged(checkoutId), total - 2000);
  });
});
