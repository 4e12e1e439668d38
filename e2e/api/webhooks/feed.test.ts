import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import type { Store } from "@/lib/generated/prisma/client";
import { buildExampleAgentProfile } from "@/lib/ucp/example-agent-profile";
import { appendOrderEvent } from "@/lib/webhooks/append-order-event";
import { webhookWorkerStep } from "@/lib/webhooks/worker";

import { seedPlatformKey, seedStore } from "../../factories";
import { rest } from "../../helpers/app-client";
import { connectMcpClient, toolMeta, type McpClient } from "../../helpers/mcp-client";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The events-since-cursor feed, the delivery log and redelivery (issue #7 part 5) on REST and on the per-store
// MCP (official SDK client): orders:read required, a platform sees only the orders it originated, and of their
// webhook deliveries only those to its own webhook_url, without the receiver's answer body; the merchant's
// deliveries (to the store's URL) are neither listed nor re-sent for it.

type Event = { id: string; type: string; order_id: string; sequence: number; order: { status: string } };
type Feed = { events: Event[]; pagination: { has_next_page: boolean; cursor: string } };
type Delivery = {
  webhook_id: string;
  order_id: string;
  event_id: string;
  event_type: string;
  state: string;
  target: string;
  attempts: { status: number | null; response_snippet?: string }[];
};
type Log = { deliveries: Delivery[] };
type ErrorBody = { messages: { code: string; path?: string }[] };

let receiver: WebhookReceiver;
let store: Store;
let reader: { key: string; principalId: string };
let otherReader: { key: string };
let noScope: { key: string };
let orderA: string;
let orderB: string;
let foreignOrder: string;
let platformProfile: Server;
let profileUrl: string;

const seedOrder = async (principalId: string): Promise<string> => {
  const db = await getDb();
  const checkoutId = newId("checkout");
  await db.checkoutSession.create({
    data: {
      id: checkoutId,
      storeId: store.id,
      principalId,
      agentProfile: profileUrl,
      status: "completed",
      currency: "USD",
      expiresAt: new Date(Date.now() + 3600_000),
    },
  });
  const order = await db.order.create({
    data: { id: newId("order"), storeId: store.id, checkoutId, principalId, currency: "USD" },
  });
  return order.id;
};

const emit = async (orderId: string, status: string) => {
  const db = await getDb();
  await db.$transaction((tx) =>
    appendOrderEvent(tx, {
      storeId: store.id,
      orderId,
      kind: status === "placed" ? "order.placed" : "order.fulfilled",
      payload: { id: orderId, status },
    }),
  );
};

before(async () => {
  await prepareTestDatabase();
  receiver = await startWebhookReceiver();
  receiver.setMode("down");
  // the platform's profile declares its webhook_url (UCP order capability): the platform target of each order
  platformProfile = createServer((_req, res) => {
    const profile = buildExampleAgentProfile(profileUrl.replace("/.well-known/ucp", ""));
    const capabilities = {
      ...profile.ucp.capabilities,
      "dev.ucp.shopping.order": [{ version: profile.ucp.version, config: { webhook_url: receiver.url() } }],
    };
    res
      .writeHead(200, { "content-type": "application/json", "cache-control": "max-age=60" })
      .end(JSON.stringify({ ...profile, ucp: { ...profile.ucp, capabilities } }));
  });
  await new Promise<void>((resolve) => platformProfile.listen(0, "127.0.0.1", resolve));
  profileUrl = `http://127.0.0.1:${(platformProfile.address() as AddressInfo).port}/.well-known/ucp`;
  const db = await getDb();
  store = await seedStore();
  await db.store.update({ where: { id: store.id }, data: { webhookUrl: receiver.url() } });
  const readerKey = await seedPlatformKey(["orders:read"]);
  reader = { key: readerKey.key, principalId: `key:${readerKey.id}` };
  const otherKey = await seedPlatformKey(["orders:read"]);
  otherReader = { key: otherKey.key };
  noScope = { key: (await seedPlatformKey()).key };
  orderA = await seedOrder(reader.principalId);
  orderB = await seedOrder(reader.principalId);
  foreignOrder = await seedOrder(`key:${otherKey.id}`);
  await emit(orderA, "placed");
  await emit(foreignOrder, "placed");
  await emit(orderB, "placed");
  await emit(orderA, "fulfilled");
  await webhookWorkerStep(new Date(), { storeId: store.id }); // receiver down: one failed attempt each
});
after(async () => {
  platformProfile.close();
  await receiver.close();
  await closeTestDatabase();
});

const feedPath = (query = "") => `/s/${store.slug}/order-events${query}`;

describe("order events feed on REST", () => {
  test("oldest first, only the caller's orders, with a cursor that resumes (also on the last page)", async () => {
    const first = await rest<Feed>("GET", feedPath("?limit=2"), { headers: { "x-api-key": reader.key } });
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(
      first.body.events.map((e) => [e.order_id, e.sequence, e.type]),
      [
        [orderA, 1, "order.placed"],
        [orderB, 1, "order.placed"],
      ],
    );
    assert.equal(first.body.pagination.has_next_page, true);
    const second = await rest<Feed>("GET", feedPath(`?limit=2&cursor=${first.body.pagination.cursor}`), {
      headers: { "x-api-key": reader.key },
    });
    assert.deepEqual(
      second.body.events.map((e) => [e.order_id, e.sequence, e.order.status]),
      [[orderA, 2, "fulfilled"]],
    );
    assert.equal(second.body.pagination.has_next_page, false);

    // Nothing new yet: the same cursor comes back; a new event then appears from it.
    const idle = await rest<Feed>("GET", feedPath(`?cursor=${second.body.pagination.cursor}`), {
      headers: { "x-api-key": reader.key },
    });
    assert.deepEqual(idle.body.events, []);
    assert.equal(idle.body.pagination.cursor, second.body.pagination.cursor);
    await emit(orderB, "fulfilled");
    const later = await rest<Feed>("GET", feedPath(`?cursor=${idle.body.pagination.cursor}`), {
      headers: { "x-api-key": reader.key },
    });
    assert.deepEqual(
      later.body.events.map((e) => [e.order_id, e.sequence]),
      [[orderB, 2]],
    );
  });

  test("another platform sees only its own order's events", async () => {
    const res = await rest<Feed>("GET", feedPath(), { headers: { "x-api-key": otherReader.key } });
    assert.deepEqual(
      res.body.events.map((e) => e.order_id),
      [foreignOrder],
    );
  });

  test("without orders:read → 403 insufficient_scope; without a key → 403 insufficient_trust", async () => {
    const scoped = await rest<ErrorBody>("GET", feedPath(), { headers: { "x-api-key": noScope.key } });
    assert.equal(scoped.status, 403);
    assert.equal(scoped.body.messages[0]?.code, "insufficient_scope");
    const anonymous = await rest<ErrorBody>("GET", feedPath());
    assert.equal(anonymous.status, 403);
    assert.equal(anonymous.body.messages[0]?.code, "insufficient_trust");
  });

  test("a forged cursor or a bad limit → 400 invalid_request with its path", async () => {
    for (const [query, path] of [
      ["?cursor=oe1.bm90LWEtbnVtYmVy", "$.cursor"],
      ["?cursor=42", "$.cursor"],
      ["?limit=0", "$.limit"],
      ["?limit=100000", "$.limit"],
      ["?limit=abc", "$.limit"],
    ] as const) {
      const res = await rest<ErrorBody>("GET", feedPath(query), { headers: { "x-api-key": reader.key } });
      assert.equal(res.status, 400, query);
      assert.deepEqual([res.body.messages[0]?.code, res.body.messages[0]?.path], ["invalid_request", path]);
    }
  });
});

describe("delivery log and redelivery on REST", () => {
  test("each delivery of the caller's orders with its attempts; redeliver queues it again", async () => {
    const log = await rest<Log>("GET", `/s/${store.slug}/webhook-deliveries?order_id=${orderA}`, {
      headers: { "x-api-key": reader.key },
    });
    assert.equal(log.status, 200, log.text);
    const first = log.body.deliveries.find((d) => d.state === "pending" && d.attempts.length === 1);
    assert.ok(first, "the failed attempt is logged");
    assert.equal(first.attempts[0]?.status, 503);
    assert.ok(log.body.deliveries.every((d) => d.order_id === orderA));
    // only the deliveries to the platform's own webhook, and never the body the receiver answered
    assert.ok(log.body.deliveries.length > 0);
    assert.ok(
      log.body.deliveries.every((d) => d.target === "platform"),
      log.text,
    );
    assert.ok(log.body.deliveries.every((d) => d.attempts.every((a) => !("response_snippet" in a))));
    const db = await getDb();
    // each delivery names the type of the event it carries
    for (const d of log.body.deliveries) {
      const event = await db.orderEvent.findUniqueOrThrow({ where: { id: d.event_id } });
      assert.equal(d.event_type, event.kind, d.webhook_id);
    }
    const storeDelivery = await db.webhookDelivery.findFirstOrThrow({
      where: { orderId: orderA, endpoint: { target: "store" } },
    });
    const merchants = await rest<ErrorBody>(
      "POST",
      `/s/${store.slug}/webhook-deliveries/${storeDelivery.id}/redeliver`,
      { headers: { "x-api-key": reader.key, "idempotency-key": randomUUID() } },
    );
    assert.equal(
      merchants.body.messages[0]?.code,
      "not_found",
      "the merchant's delivery is not the platform's",
    );

    const foreign = await rest<Log>("GET", `/s/${store.slug}/webhook-deliveries`, {
      headers: { "x-api-key": otherReader.key },
    });
    assert.ok(foreign.body.deliveries.every((d) => d.order_id === foreignOrder));

    receiver.setMode("ok");
    const path = `/s/${store.slug}/webhook-deliveries/${first.webhook_id}/redeliver`;
    const missingKey = await rest<ErrorBody>("POST", path, { headers: { "x-api-key": reader.key } });
    assert.equal(missingKey.body.messages[0]?.code, "missing_idempotency_key");
    const queued = await rest<{ delivery: Delivery }>("POST", path, {
      headers: { "x-api-key": reader.key, "idempotency-key": randomUUID() },
    });
    assert.equal(queued.status, 200, queued.text);
    assert.equal(queued.body.delivery.state, "pending");
    await webhookWorkerStep(new Date(), { storeId: store.id });
    assert.ok(receiver.received.some((r) => r.webhookId === first.webhook_id && r.answered === 200));

    const notMine = await rest<ErrorBody>("POST", path, {
      headers: { "x-api-key": otherReader.key, "idempotency-key": randomUUID() },
    });
    assert.equal(notMine.body.messages[0]?.code, "not_found");
  });
});

describe("the same on the per-store MCP (official SDK client)", () => {
  let client: McpClient;
  before(async () => {
    client = await connectMcpClient(`/s/${store.slug}/mcp`, { headers: { "x-api-key": reader.key } });
  });
  after(async () => {
    await client.close();
  });

  test("tools are listed with their namespaces", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of ["list_order_events", "list_webhook_deliveries", "redeliver_webhook"]) {
      assert.ok(names.includes(name), name);
    }
  });

  test("list_order_events pages with the cursor; list_webhook_deliveries shows the log", async () => {
    const page = await client.callTool({
      name: "list_order_events",
      arguments: { meta: toolMeta(), events: { limit: 1 } },
    });
    const feed = page.structuredContent as Feed;
    assert.deepEqual(
      feed.events.map((e) => e.order_id),
      [orderA],
    );
    const next = await client.callTool({
      name: "list_order_events",
      arguments: { meta: toolMeta(), events: { limit: 10, cursor: feed.pagination.cursor } },
    });
    assert.ok((next.structuredContent as Feed).events.every((e) => e.order_id !== foreignOrder));
    const log = await client.callTool({
      name: "list_webhook_deliveries",
      arguments: { meta: toolMeta(), deliveries: { order_id: orderB } },
    });
    assert.ok((log.structuredContent as Log).deliveries.length > 0);
  });

  test("redeliver_webhook needs meta[idempotency-key], then queues", async () => {
    const db = await getDb();
    const delivery = await db.webhookDelivery.findFirstOrThrow({
      where: { orderId: orderB, endpoint: { target: "platform" } },
    });
    await assert.rejects(
      client.callTool({ name: "redeliver_webhook", arguments: { meta: toolMeta(), id: delivery.id } }),
      /requires meta\[idempotency-key\]/,
    );
    const result = await client.callTool({
      name: "redeliver_webhook",
      arguments: { meta: toolMeta(randomUUID()), id: delivery.id },
    });
    assert.equal((result.structuredContent as { delivery: Delivery }).delivery.webhook_id, delivery.id);
  });
});
