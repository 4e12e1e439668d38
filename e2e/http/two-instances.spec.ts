import { generateKeyPairSync, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect, test } from "@playwright/test";
import type { JWK } from "jose";

import { seedId } from "../../prisma/seed/seed-ids";
import { startStripeSandbox, type StripeSandbox } from "../../sandbox/stripe/server";
import { findFreePort } from "../../scripts/lib/free-port";
import { startServedApp, type ServedApp } from "../../scripts/lib/served-app";
import { startPostgres, type PostgresServer } from "../../scripts/pg-harness";
import { cardCompletionBody, withMandateKey, withOrderWebhook } from "../helpers/card-completion";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver";

// Several instances behind a load balancer: two processes of the built service on one PostgreSQL and one Stripe
// sandbox, each with its own webhook worker and sweeps. A purchase hops between them call by call (create on A,
// update on B, complete on A, read on B); an Idempotency-Key used on one is replayed by the other; the order's
// webhook reaches the platform exactly once although both workers poll the same queue; and a key revoked in the
// database is refused by both at once (nothing about credentials is cached per instance). Then one instance gets
// SIGTERM under load, as an orchestrator sends it: it stops taking connections, finishes every request it had
// accepted, stops its worker and exits 0, while the other keeps serving. Last, the other gets SIGTERM while a request
// holds its drain open, then SIGTERM again: it exits at once, non-zero, saying so, without a stack.

const STORE = "summit-trail-outfitters";
const METRICS_TOKEN = `metrics-${randomUUID()}`;

test.describe.configure({ mode: "serial" });

let postgres: PostgresServer;
let sandbox: StripeSandbox;
let receiver: WebhookReceiver;
let profileServer: Server;
let agentProfileUrl = "";
let tempDir = "";
const instances: ServedApp[] = [];
const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const signer = { privateJwk: privateKey.export({ format: "jwk" }) as JWK, kid: "e2e-two-instances" };

const start = async (args: string[]) => {
  const app = await startServedApp({
    port: await findFreePort(),
    args,
    env: {
      DATABASE_URL: postgres.url,
      DEMO_KEY_FILE: path.join(tempDir, "demo-platform-key.json"),
      STRIPE_SANDBOX_URL: sandbox.url,
      WEBHOOK_WORKER: "on",
      METRICS_TOKEN,
      // as a plain `npm start` runs (no NODE_ENV, no OUTBOUND_ALLOW_PRIVATE): local agents must still work
      OUTBOUND_ALLOW_PRIVATE: undefined,
      NODE_ENV: undefined,
    },
  });
  instances.push(app);
  return app;
};

test.beforeAll(async () => {
  test.setTimeout(240_000);
  tempDir = mkdtempSync(path.join(tmpdir(), "acs-two-"));
  sandbox = await startStripeSandbox();
  receiver = await startWebhookReceiver();
  postgres = await startPostgres();
  await start([]); // A migrates and seeds
  await start(["--no-setup"]); // B only serves
  const demo = (await (await fetch(`${instances[0]!.baseUrl}/demo/agent/.well-known/ucp`)).json()) as {
    ucp: { capabilities: Record<string, { config?: object }[]> };
  };
  const profile = JSON.stringify(
    withMandateKey(withOrderWebhook(demo, receiver.url("/orders")), {
      ...publicKey.export({ format: "jwk" }),
      kid: signer.kid,
      alg: "ES256",
      use: "sig",
    }),
  );
  profileServer = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "application/json" }).end(profile),
  );
  await new Promise<void>((resolve) => profileServer.listen(0, "127.0.0.1", resolve));
  agentProfileUrl = `http://127.0.0.1:${(profileServer.address() as AddressInfo).port}/.well-known/ucp`;
});

test.afterAll(async () => {
  for (const app of instances) {
    app.child.kill("SIGTERM");
    await app.exited;
  }
  profileServer?.close();
  await receiver?.close();
  await sandbox?.close();
  await postgres?.stop();
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
});

const demoKey = () =>
  (JSON.parse(readFileSync(path.join(tempDir, "demo-platform-key.json"), "utf8")) as { key: string }).key;

type Checkout = {
  id: string;
  status: string;
  order?: { id: string };
  messages: { code?: string; content: string }[];
};

const call = async <T>(
  app: ServedApp,
  method: string,
  p: string,
  {
    body,
    key = demoKey(),
    idempotencyKey = randomUUID(),
  }: { body?: unknown; key?: string; idempotencyKey?: string } = {},
) => {
  const response = await fetch(`${app.baseUrl}/s/${STORE}${p}`, {
    method,
    headers: {
      "content-type": "application/json",
      "request-id": randomUUID(),
      "idempotency-key": idempotencyKey,
      "ucp-agent": `profile="${agentProfileUrl}"`,
      "x-api-key": key,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
};

test("a purchase hops between two instances; an idempotency key is honoured by both; the order's webhook arrives once", async () => {
  const [a, b] = instances as [ServedApp, ServedApp];
  expect(a.output()).toMatch(/private and loopback targets allowed for test-mode stores/);
  let variantId = "";
  for (let i = 0; i < 20 && !variantId; i++) {
    const p = await call<{
      product?: { variants: { id: string; availability?: { available?: boolean } }[] };
    }>(i % 2 ? b : a, "POST", "/catalog/product", { body: { id: seedId("product", STORE, i) } });
    variantId = p.body.product?.variants.find((v) => v.availability?.available !== false)?.id ?? "";
  }
  expect(variantId).not.toBe("");
  const createKey = randomUUID();
  const body = {
    line_items: [{ item: { id: variantId }, quantity: 1 }],
    buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
  };
  const created = await call<Checkout>(a, "POST", "/checkout-sessions", { body, idempotencyKey: createKey });
  expect(created.status, JSON.stringify(created.body.messages)).toBe(201);
  // the same request with the same key on the other instance replays the first answer
  const replayed = await call<Checkout>(b, "POST", "/checkout-sessions", { body, idempotencyKey: createKey });
  expect(replayed.body.id).toBe(created.body.id);

  const updated = await call<Checkout>(b, "PUT", `/checkout-sessions/${created.body.id}`, {
    body: {
      shipping_address: {
        line1: "1 Market St",
        city: "Denver",
        region: "CO",
        postal_code: "80202",
        country: "US",
      },
      shipping_method_id: "standard",
    },
  });
  expect(updated.body.status, JSON.stringify(updated.body.messages)).toBe("ready_for_complete");
  const completed = await call<Checkout>(a, "POST", `/checkout-sessions/${created.body.id}/complete`, {
    body: await cardCompletionBody(updated.body as never, STORE, signer, "pm_card_visa"),
  });
  expect(completed.body.status, JSON.stringify(completed.body.messages)).toBe("completed");
  const orderId = completed.body.order!.id;
  const read = await call<{ id: string }>(b, "GET", `/orders/${orderId}`);
  expect(read.status).toBe(200);
  expect(read.body.id).toBe(orderId);
  const charged = sandbox.paymentIntents().filter((pi) => pi.metadata.checkout_id === created.body.id);
  expect(charged.map((pi) => pi.status)).toEqual(["succeeded"]);
  // /metrics of a built server (production: the token is required): every route bundle counts into the one
  // registry, and the order is read from the shared database by either instance
  expect((await fetch(`${b.baseUrl}/metrics`)).status).toBe(401);
  const metrics = await (
    await fetch(`${a.baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
  ).text();
  expect(metrics).toMatch(
    /^acs_http_requests_total\{kind="ucp",route="\/s\/\[store_slug\]\/checkout-sessions\/\[id\]\/complete",method="POST",status="200"\} 1$/m,
  );
  expect(metrics).toMatch(
    /^acs_http_requests_total\{kind="ucp",route="\/s\/\[store_slug\]\/catalog\/product",/m,
  );
  const cardOrders = new RegExp(`^acs_orders\\{store="${STORE}",rail="svc\\.card"\\} (\\d+)$`, "m");
  expect(Number(cardOrders.exec(metrics)?.[1])).toBeGreaterThan(0);

  // both workers poll the same queue: the order's deliveries arrive, each Webhook-Id only once
  const ours = () => receiver.received.filter((r) => r.body.includes(orderId));
  await expect.poll(() => ours().length, { timeout: 20_000 }).toBeGreaterThan(0);
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const ids = ours().map((r) => r.webhookId);
  expect(new Set(ids).size, `each Webhook-Id once: ${ids.join(", ")}`).toBe(ids.length);
});

test("a key revoked in the shared database is refused by both instances within the cache bound (5 s)", async () => {
  const [a, b] = instances as [ServedApp, ServedApp];
  const { Client } = (await import("pg")).default;
  const db = new Client({ connectionString: postgres.url });
  await db.connect();
  try {
    const key = `acs_${randomUUID()}`;
    expect((await call<Checkout>(a, "GET", "/checkout-sessions/chk_none", { key })).status).toBe(401);
    const demo = demoKey();
    for (const app of [a, b]) {
      expect((await call(app, "GET", "/checkout-sessions/chk_none", { key: demo })).status).not.toBe(401);
    }
    // written outside both instances (as a third instance or the operator's CLI would): each may serve the key
    // from its row cache for at most ROW_CACHE_TTL_MS (2 s by default, 5 s at most), then refuses it
    await db.query("UPDATE platform_api_keys SET revoked_at = now() WHERE revoked_at IS NULL");
    const revokedAt = Date.now();
    for (const app of [a, b]) {
      let refused = await call<{ messages: { code: string }[] }>(app, "GET", "/checkout-sessions/chk_none", {
        key: demo,
      });
      while (refused.status !== 401 && Date.now() - revokedAt < 6_000) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        refused = await call<{ messages: { code: string }[] }>(app, "GET", "/checkout-sessions/chk_none", {
          key: demo,
        });
      }
      expect(refused.status).toBe(401);
      expect(refused.body.messages[0]?.code).toBe("invalid_api_key");
      expect(Date.now() - revokedAt).toBeLessThanOrEqual(5_500);
    }
  } finally {
    await db.query("UPDATE platform_api_keys SET revoked_at = NULL");
    await db.end();
    // the next test uses the key again: wait until neither instance serves it as revoked from its cache
    for (const app of [a, b]) {
      const until = Date.now() + 6_000;
      while ((await call(app, "GET", "/checkout-sessions/chk_none", { key: demoKey() })).status === 401) {
        if (Date.now() > until) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }
});

/** One request on its own connection: its status, or the socket error (ECONNREFUSED = never accepted). */
const oneRequest = (app: ServedApp, body: string) =>
  new Promise<{ status?: number; error?: string; at: number }>((resolve) => {
    const url = new URL(`${app.baseUrl}/s/${STORE}/catalog/search`);
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        agent: false,
        headers: {
          "content-type": "application/json",
          "request-id": randomUUID(),
          "ucp-agent": `profile="${agentProfileUrl}"`,
          "x-api-key": demoKey(),
        },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode, at: Date.now() }));
        // an answer that started and broke off: a request the server accepted and did not finish
        res.on("error", (error) => resolve({ error: `cut short: ${error.message}`, at: Date.now() }));
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) =>
      resolve({ error: error.code ?? error.message, at: Date.now() }),
    );
    req.end(body);
  });

test("SIGTERM under load: every request the server took is answered, the worker stops, exit 0; the other instance serves on", async () => {
  const [a, b] = instances as [ServedApp, ServedApp];
  const body = JSON.stringify({ query: "jacket" });
  const outcomes: { status?: number; error?: string; at: number }[] = [];
  let signalledAt = Number.POSITIVE_INFINITY;
  const client = async () => {
    while (Date.now() < signalledAt + 1_500) outcomes.push(await oneRequest(b, body));
  };
  const clients = Array.from({ length: 12 }, client);
  await new Promise((resolve) => setTimeout(resolve, 700));
  signalledAt = Date.now();
  b.child.kill("SIGTERM");
  await Promise.all(clients);
  expect(await b.exited).toBe("exit 0");
  const answered = outcomes.filter((o) => o.status !== undefined);
  const refused = outcomes.filter((o) => o.error === "ECONNREFUSED");
  // a connection still queued in the kernel, or opened but not yet read, when the listener closed is reset
  // before any byte: the application never had that request (a load balancer retries it elsewhere)
  const unread = outcomes.filter((o) => o.error === "ECONNRESET");
  const broken = outcomes.filter(
    (o) => o.error !== undefined && o.error !== "ECONNREFUSED" && o.error !== "ECONNRESET",
  );
  expect(broken, "no answer the server started was broken off").toEqual([]);
  console.log(
    `SIGTERM under load: ${answered.length} answered (${answered.filter((o) => o.at > signalledAt).length} after the signal), ${refused.length} refused, ${unread.length} reset unread`,
  );
  expect(
    answered.filter((o) => o.at > signalledAt).length,
    "requests under way at SIGTERM were finished",
  ).toBeGreaterThan(0);
  expect(refused.length, "new connections are refused once closing").toBeGreaterThan(0);
  expect(
    answered.every((o) => o.status === 200),
    JSON.stringify(answered.map((o) => o.status)),
  ).toBe(true);
  expect(b.output()).toMatch(/SIGTERM: closing/);
  expect(b.output()).toMatch(/stopped \(0 request\(s\) cut short\)/);
  expect(b.output()).toMatch(/stopped: webhook worker and sweeps/);
  expect(b.output()).not.toMatch(/shutdown: webhook worker/);
  expect((await oneRequest(a, body)).status).toBe(200);
});

test("SIGTERM twice: the second signal during the drain exits at once, non-zero and logged, without a stack", async () => {
  const [a] = instances as [ServedApp];
  const url = new URL(a.baseUrl);
  // a request the server accepted and still reads: its body never completes, so the drain waits for it
  const socket = connect(Number(url.port), url.hostname);
  socket.on("error", () => undefined);
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  socket.write(
    `POST /s/${STORE}/catalog/search HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\n` +
      `Request-Id: ${randomUUID()}\r\nUCP-Agent: profile="${agentProfileUrl}"\r\nContent-Length: 1000\r\n\r\n{"query":`,
  );
  await new Promise((resolve) => setTimeout(resolve, 500));
  const before = a.output().length;
  a.child.kill("SIGTERM");
  await expect
    .poll(() => a.output().slice(before), { timeout: 5_000 })
    .toMatch(/SIGTERM: closing .*draining 1 request/);
  const again = Date.now();
  a.child.kill("SIGTERM");
  const exit = await a.exited;
  const tookMs = Date.now() - again;
  socket.destroy();
  expect(exit, "128 + SIGTERM: the drain did not finish").toBe("exit 143");
  // without the second signal the drain would have waited for the request up to its 10 s deadline
  expect(tookMs).toBeLessThan(3_000);
  const log = a.output().slice(before);
  expect(log).toMatch(/SIGTERM again: exiting now, 1 request\(s\) cut short/);
  expect(log).not.toMatch(/stopped \(/);
  expect(log, "no stack trace").not.toMatch(/\n\s+at .+:\d+:\d+/);
});
