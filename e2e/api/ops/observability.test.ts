import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { after, before, test } from "node:test";

import { getDb } from "@/lib/config/db";
import { setLogDestination } from "@/lib/core/log";
import type { Store } from "@/lib/generated/prisma/client";
import { fanOutEvents } from "@/lib/webhooks/fan-out";
import { webhookWorkerStep } from "@/lib/webhooks/worker";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { callApp, rest } from "../../helpers/app-client";
import { completeCardOrder, newPlatformSigner, type PlatformSigner } from "../../helpers/paid-order";
import {
  servePlatformProfile,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../../helpers/webhook-receiver";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";
import { BUYER, SEED_ADDRESS, type Checkout } from "../checkout/helpers";

// Operations (lib/ops): every request through the route prelude writes exactly one JSON access line — method,
// route pattern, status, duration, Request-Id, principal kind, store — and no credential, wherever the caller put
// it; /metrics counts requests by route and status, reads checkouts, orders by rail and the webhook backlog from
// the database (so they move by exactly what a purchase did), and wants METRICS_TOKEN in production or as soon as
// a store is live.

type Line = Record<string, unknown>;
let lines: Line[] = [];
let receiver: WebhookReceiver;
let closeProfile: () => void;
let profileUrl = "";
let signer: PlatformSigner;
let store: Store;
let variantId = "";
let key = "";

before(async () => {
  await prepareTestDatabase();
  process.env.LOG_LEVEL = "info"; // access lines are info; test runs default to warn
  setLogDestination(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line) as Line);
        done();
      },
    }),
  );
  receiver = await startWebhookReceiver();
  receiver.setMode("ok");
  signer = newPlatformSigner();
  const profile = await servePlatformProfile(receiver.url("/platform"), { signingKeys: [signer.publicJwk] });
  profileUrl = profile.url;
  closeProfile = profile.close;
  store = await seedStore();
  await seedShippingRates(store, [{ code: "standard", priceMinor: 500 }]);
  variantId = (await seedProduct(store, { variants: [{ priceMinor: 2500, inventory: 100 }] })).variants[0]!
    .id;
  key = (await seedPlatformKey(["orders:read", "purchase:complete"])).key;
});
after(async () => {
  delete process.env.LOG_LEVEL;
  setLogDestination(null);
  closeProfile();
  await receiver.close();
  await closeTestDatabase();
});

const accessLines = (requestId: string) =>
  lines.filter((l) => l.msg === "request" && l.request_id === requestId);

test("one access line per request with the route pattern, status, duration, principal and store — and no credential", async () => {
  const created = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: { "x-api-key": key, "ucp-agent": `profile="${profileUrl}"`, "idempotency-key": randomUUID() },
    body: {
      line_items: [{ item: { id: variantId }, quantity: 1 }],
      buyer: BUYER,
      shipping_address: SEED_ADDRESS,
      shipping_method_id: "standard",
    },
  });
  assert.equal(created.status, 201, created.text);
  const bearer = `eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJidXllciJ9.${randomBytes(32).toString("base64url")}`;
  const querySecret = randomBytes(16).toString("hex");
  lines = [];

  // a key and a bearer (the key wins), and a secret in the query string
  const requestId = randomUUID();
  const read = await callApp(
    "GET",
    `/s/${store.slug}/checkout-sessions/${created.body.id}?token=${querySecret}`,
    {
      headers: {
        "request-id": requestId,
        "ucp-agent": `profile="${profileUrl}"`,
        "x-api-key": key,
        authorization: `Bearer ${bearer}`,
      },
    },
  );
  assert.equal(read.status, 200);
  const [line, ...more] = accessLines(requestId);
  assert.deepEqual(more, [], "exactly one access line");
  assert.ok(line);
  assert.equal(line.level, "info");
  assert.equal(line.kind, "ucp");
  assert.equal(line.method, "GET");
  assert.equal(line.route, "/s/[store_slug]/checkout-sessions/[id]");
  assert.equal(line.status, 200);
  assert.equal(typeof line.duration_ms, "number");
  assert.ok((line.duration_ms as number) >= 0);
  assert.equal(line.principal, "key");
  assert.equal(line.tier, "token");
  assert.equal(line.store, store.slug);

  // a bearer alone, not valid: 401, the presented kind, and still no token
  const refusedId = randomUUID();
  const refused = await callApp("GET", `/s/${store.slug}/orders/ord_none`, {
    headers: {
      "request-id": refusedId,
      "ucp-agent": `profile="${profileUrl}"`,
      authorization: `Bearer ${bearer}`,
    },
  });
  assert.equal(refused.status, 401);
  const [refusedLine] = accessLines(refusedId);
  assert.equal(refusedLine?.status, 401);
  assert.equal(refusedLine?.principal, "bearer");
  assert.equal(refusedLine?.route, "/s/[store_slug]/orders/[id]");

  // anonymous, on another route kind (OAuth metadata), and a 404 from the catch-all
  const anonId = randomUUID();
  await callApp("GET", "/.well-known/oauth-authorization-server", { headers: { "request-id": anonId } });
  assert.deepEqual(
    accessLines(anonId).map((l) => [l.kind, l.route, l.status, l.principal, l.store]),
    [["oauth", "/.well-known/oauth-authorization-server", 200, "anonymous", undefined]],
  );
  const missingId = randomUUID();
  await callApp("GET", `/no/such/${querySecret}`, { headers: { "request-id": missingId } });
  assert.deepEqual(
    accessLines(missingId).map((l) => [l.route, l.status]),
    [["/[...path]", 404]],
  );

  const text = JSON.stringify(lines);
  for (const [what, secret] of [
    ["API key", key],
    ["API key secret part", key.split("_").slice(2).join("_")],
    ["bearer", bearer],
    ["bearer signature", bearer.split(".")[2]!],
    ["query secret", querySecret],
  ] as const) {
    assert.equal(text.includes(secret), false, `${what} appears in the log`);
  }
});

// The integration run on PostgreSQL shares one database between test files running side by side: this file reads
// its own store's series (the database-derived metrics are by store), and always sends a token (another file may
// have a live store, which closes /metrics).
const TOKEN = randomBytes(24).toString("base64url");

/** A scrape, parsed: `name{labels}` → value. Sends this file's token unless `headers` are given. */
const scrape = async (headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) => {
  const response = await callApp("GET", "/metrics", { headers });
  const text = await response.text();
  const values = new Map<string, number>();
  if (response.status === 200) {
    for (const row of text.split("\n")) {
      const match = /^([a-z_:][a-z0-9_:]*(?:\{[^}]*\})?) (\S+)$/i.exec(row);
      if (match) values.set(match[1]!, Number(match[2]));
    }
  }
  const value = (series: string) => values.get(series) ?? 0;
  const sum = (prefix: string) =>
    [...values].filter(([name]) => name.startsWith(prefix)).reduce((total, [, v]) => total + v, 0);
  return { status: response.status, headers: response.headers, text, value, sum };
};

/** Runs `body` with METRICS_TOKEN (and optionally NODE_ENV) set, restoring both after. */
const withEnv = async (changes: Record<string, string | undefined>, body: () => Promise<void>) => {
  const env = process.env as Record<string, string | undefined>;
  const saved = Object.fromEntries(Object.keys(changes).map((name) => [name, env[name]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete env[name];
      else env[name] = value;
    }
  };
  apply(changes);
  try {
    await body();
  } finally {
    apply(saved);
  }
};

const HTTP = (route: string, method: string, status: number) =>
  `acs_http_requests_total{kind="ucp",route="${route}",method="${method}",status="${status}"}`;
const CREATE = "/s/[store_slug]/checkout-sessions";
const COMPLETE = "/s/[store_slug]/checkout-sessions/[id]/complete";

test("/metrics after a card purchase: requests, checkouts and orders by rail move by exactly what it did", () =>
  withEnv({ METRICS_TOKEN: TOKEN }, async () => {
    const before = await scrape();
    assert.equal(before.status, 200, before.text);
    assert.match(before.headers.get("content-type") ?? "", /^text\/plain/);
    assert.equal(before.headers.get("cache-control"), "no-store");
    assert.equal(before.value("acs_metrics_database_up"), 1);

    await completeCardOrder(store, { apiKey: key, profileUrl, signer, lines: [{ variantId, quantity: 1 }] });

    const after = await scrape();
    // per process: exact
    assert.equal(after.value(HTTP(CREATE, "POST", 201)) - before.value(HTTP(CREATE, "POST", 201)), 1);
    assert.equal(after.value(HTTP(COMPLETE, "POST", 200)) - before.value(HTTP(COMPLETE, "POST", 200)), 1);
    const latency = `acs_http_request_duration_seconds_count{kind="ucp",route="${COMPLETE}",method="POST"}`;
    assert.equal(after.value(latency) - before.value(latency), 1);
    // from the database, this store's series: exact too
    const ours = `store="${store.slug}"`;
    assert.equal(after.sum(`acs_checkout_sessions{${ours}`) - before.sum(`acs_checkout_sessions{${ours}`), 1);
    const completed = `acs_checkout_sessions{${ours},status="completed"}`;
    assert.equal(after.value(completed) - before.value(completed), 1);
    const cardOrders = `acs_orders{${ours},rail="svc.card"}`;
    assert.equal(after.value(cardOrders) - before.value(cardOrders), 1);
    // a store with checkouts has every rail and status as a series, 0 when none
    assert.match(after.text, new RegExp(`^acs_orders\\{${ours},rail="svc\\.crypto"\\} 0$`, "m"));
    assert.match(after.text, new RegExp(`^acs_checkout_sessions\\{${ours},status="canceled"\\} 0$`, "m"));
    // the database agrees with the gauges (they are read from it)
    const db = await getDb();
    assert.equal(
      after.value(cardOrders),
      await db.order.count({ where: { storeId: store.id, handlerId: "svc.card" } }),
    );
  }));

test("/metrics: the webhook backlog is what the database holds, and drains when the worker delivers", () =>
  withEnv({ METRICS_TOKEN: TOKEN }, async () => {
    const now = new Date();
    await fanOutEvents(now, { storeId: store.id });
    const db = await getDb();
    const pending = await db.webhookDelivery.count({ where: { storeId: store.id, state: "pending" } });
    assert.ok(pending > 0, "the purchase's order events are waiting to be delivered");
    const backlog = await scrape();
    assert.equal(backlog.value(`acs_webhook_deliveries_pending{store="${store.slug}"}`), pending);
    assert.equal(backlog.value(`acs_webhook_deliveries_due{store="${store.slug}"}`), pending);
    assert.ok(backlog.value('acs_sweep_oldest_overdue_seconds{sweep="webhook_delivery"}') >= 0);
    for (const sweep of ["webhook_delivery", "card_reconciliation", "refund_settlement"]) {
      assert.match(
        backlog.text,
        new RegExp(`^acs_sweep_oldest_overdue_seconds\\{sweep="${sweep}"\\} [0-9.e+-]+$`, "m"),
      );
    }
    for (let i = 0; i < 5; i++) {
      if ((await db.webhookDelivery.count({ where: { storeId: store.id, state: "pending" } })) === 0) break;
      await webhookWorkerStep(new Date(), { storeId: store.id });
    }
    const drained = await scrape();
    assert.equal(drained.value(`acs_webhook_deliveries_pending{store="${store.slug}"}`), 0);
  }));

test("/metrics needs METRICS_TOKEN in production and once a store is live: 401 without, 200 with", async () => {
  const token = randomBytes(24).toString("base64url");
  const db = await getDb();
  await withEnv({ NODE_ENV: "production", METRICS_TOKEN: undefined }, async () => {
    const unconfigured = await scrape({});
    assert.equal(unconfigured.status, 401, "no token configured in production: nobody reads the metrics");
    assert.equal(unconfigured.headers.get("www-authenticate"), 'Bearer realm="metrics"');
    process.env.METRICS_TOKEN = token;
    assert.equal((await scrape({})).status, 401);
    assert.equal((await scrape({ authorization: `Bearer ${token}x` })).status, 401);
    assert.equal((await scrape({ "x-api-key": key })).status, 401, "a platform key is no metrics token");
    const allowed = await scrape({ authorization: `Bearer ${token}` });
    assert.equal(allowed.status, 200);
    assert.ok(allowed.text.includes("acs_http_requests_total"));
    assert.equal(JSON.stringify(lines).includes(token), false, "the token is never logged");
  });

  // outside production and without a token: open while every store is in test mode, closed once one is live
  await withEnv({ METRICS_TOKEN: undefined }, async () => {
    const live = await db.store.count({ where: { mode: "live" } }); // another file's, on a shared PostgreSQL
    assert.equal((await scrape({})).status, live === 0 ? 200 : 401);
    try {
      await db.store.update({ where: { id: store.id }, data: { mode: "live" } });
      assert.equal((await scrape({})).status, 401);
    } finally {
      await db.store.update({ where: { id: store.id }, data: { mode: "test" } });
    }
  });
});

test("/metrics takes GET only: another method is a 405 with Allow", async () => {
  const response = await callApp("POST", "/metrics", { headers: { "request-id": "metrics-405" } });
  assert.equal(response.status, 405);
  assert.equal(response.headers.get("allow"), "GET");
});
