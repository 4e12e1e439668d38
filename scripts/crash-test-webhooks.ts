// `npm run test:crash:webhooks`: kills the webhook worker mid-delivery with real processes and checks that
// nothing is lost. The built service (scripts/serve.ts, its in-server worker on) runs on a real
// PostgreSQL (scripts/pg-harness.ts). This script plays the merchant's receiver and the platform's: an agent
// profile whose order capability declares a webhook_url, and the store's webhook URL set with the admin CLI,
// both pointing at e2e/helpers/webhook-receiver.ts, which verifies every delivery (RFC 9421 signature with the
// key the store profile publishes, RFC 9530 Content-Digest over the raw bytes). An order is placed through the
// public REST API (card, sandbox PSP, AP2 mandate signed with this script's key).
//
// The receiver holds the first delivery open and never answers; while it is in flight, server A's whole process
// group gets SIGKILL. The admin CLI ships the order while server B starts on the same database and address.
// Checks: the held delivery arrives again with the same Webhook-Id, Webhook-Timestamp and body bytes, and only
// once A's claim has lapsed; each target gets every event of the order exactly once (plus that one repeat),
// verified, in sequence order; a later `fulfill-order --type delivered` arrives too. WEBHOOK_CLAIM_TTL_MS
// shortens the claim lease (default 30 s) to 12 s, so B waits seconds, not half a minute. Exits non-zero when a
// check fails; prints a summary (time to redelivery, counts).
// Usage: npm run test:crash:webhooks [-- --build]
import assert from "node:assert/strict";
import { generateKeyPairSync, randomUUID, type JsonWebKey } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

import type { JWK } from "jose";
import pg from "pg";

import { cardCompletionBody, withMandateKey, withOrderWebhook } from "../e2e/helpers/card-completion";
import { startWebhookReceiver, type Received } from "../e2e/helpers/webhook-receiver";
import { seedId } from "../prisma/seed/seed-ids";
import { findFreePort } from "./lib/free-port";
import { runAdminProcess, startServedApp, type ServedApp } from "./lib/served-app";
import { startPostgres } from "./pg-harness";

const STORE = "summit-trail-outfitters";
/**
 * The claim lease (default 30 s): longer than the delivery timeout (default 10 s, as required) and than server B
 * takes to start, so B is up while A's claim still holds and must wait for it to lapse.
 */
const CLAIM_TTL_MS = 12_000;
const WAIT_MS = 30_000;

const dir = mkdtempSync(path.join(tmpdir(), "acs-crash-webhooks-"));
const keyFile = path.join(dir, "demo-platform-key.json");
const startedAll = performance.now();
const seconds = (from: number, to = performance.now()) => `${((to - from) / 1000).toFixed(1)} s`;

type Server = ServedApp;

/** The built service in its own process group (so SIGKILL reaches every process of it), ready to serve. */
const start = async (
  databaseUrl: string,
  port: number,
  mode: "--build" | "--no-setup" | null,
): Promise<Server> => {
  const server = await startServedApp({
    port,
    args: mode ? [mode] : [],
    detached: true,
    env: {
      DATABASE_URL: databaseUrl,
      DEMO_KEY_FILE: keyFile,
      WEBHOOK_WORKER: "on",
      WEBHOOK_CLAIM_TTL_MS: String(CLAIM_TTL_MS),
      ACS_FAULT: undefined,
      WEBHOOK_DELIVERY_TIMEOUT_MS: undefined,
      STRIPE_SANDBOX_URL: undefined,
    },
  });
  if (!server.output().includes("webhook worker started")) {
    // instrumentation.ts logs once the worker runs; give it a moment after "Ready on"
    await waitFor(
      "the in-server webhook worker",
      () => server.output().includes("webhook worker started"),
      5_000,
    );
  }
  return server;
};

const killGroup = (server: Server, signal: NodeJS.Signals) => {
  try {
    process.kill(-server.child.pid!, signal);
  } catch {
    // already gone
  }
};

const waitFor = async (what: string, done: () => boolean | Promise<boolean>, timeoutMs = WAIT_MS) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** `npm run admin -- …` against the test database (the merchant's operator path). */
const admin = async (databaseUrl: string, args: string[]): Promise<string> => {
  const { code, output } = await runAdminProcess(args, { DATABASE_URL: databaseUrl });
  if (code !== 0) throw new Error(`admin ${args[0]} failed (${code}):\n${output}`);
  return output.trim();
};

const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const kid = "crash-test-webhooks-agent";
const signer = { privateJwk: privateKey.export({ format: "jwk" }) as JWK, kid };

const postgres = await startPostgres();
const receiver = await startWebhookReceiver();
const profileHttp = createServer();
const servers: Server[] = [];
let db: pg.Client | undefined;
try {
  console.log(`=== webhook worker crash test: PostgreSQL ${postgres.url}, receiver ${receiver.url("/")} ===`);
  const port = await findFreePort();
  // server A migrates and seeds the fresh database (and builds first with --build)
  const serverA = await start(postgres.url, port, process.argv.includes("--build") ? "--build" : null);
  servers.push(serverA);
  console.log(`server A ready (pid ${serverA.child.pid}) at ${serverA.baseUrl}; ${seconds(startedAll)}`);

  // The platform: the example agent profile with this script's mandate key, and its order webhooks going to us.
  const demo = (await (await fetch(`${serverA.baseUrl}/demo/agent/.well-known/ucp`)).json()) as {
    ucp: { capabilities: Record<string, { config?: object }[]> };
  };
  const profile = JSON.stringify(
    withMandateKey(withOrderWebhook(demo, receiver.url("/platform")), {
      ...publicKey.export({ format: "jwk" }),
      kid,
      alg: "ES256",
      use: "sig",
    }),
  );
  profileHttp.on("request", (_req, res) =>
    res.writeHead(200, { "content-type": "application/json" }).end(profile),
  );
  await new Promise<void>((resolve) => profileHttp.listen(0, "127.0.0.1", resolve));
  const agent = `http://127.0.0.1:${(profileHttp.address() as AddressInfo).port}/.well-known/ucp`;

  // The merchant: the store's webhook URL (a test store may use loopback http; set while the checkout is built,
  // before the order), and its published key.
  const setUrl = admin(postgres.url, [
    "set-webhook-url",
    "--store",
    STORE,
    "--url",
    receiver.url("/merchant"),
  ]);
  const storeProfile = (await (await fetch(`${serverA.baseUrl}/s/${STORE}/.well-known/ucp`)).json()) as {
    signing_keys?: JsonWebKey[];
  };
  const storeKey = storeProfile.signing_keys?.[0];
  assert.ok(storeKey?.kid, "the store profile publishes a signing key");
  receiver.trust(storeKey);
  receiver.setMode("slow"); // hold every delivery open, never answer: the first one is in flight when A dies

  // An order through the public API: a ready checkout, then complete_checkout with a card and an AP2 mandate.
  const apiKey = (JSON.parse(readFileSync(keyFile, "utf8")) as { key: string }).key;
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${serverA.baseUrl}/s/${STORE}${p}`, {
      method,
      headers: {
        "content-type": "application/json",
        "request-id": randomUUID(),
        "idempotency-key": randomUUID(),
        "ucp-agent": `profile="${agent}"`,
        "x-api-key": apiKey,
      },
      body: body ? JSON.stringify(body) : undefined,
    });
    return (await res.json()) as Record<string, unknown>;
  };
  let variantId = "";
  for (let i = 0; i < 20 && !variantId; i++) {
    const p = (await call("POST", "/catalog/product", { id: seedId("product", STORE, i) })) as {
      product?: { variants: { id: string; availability?: { available?: boolean } }[] };
    };
    variantId = p.product?.variants.find((v) => v.availability?.available)?.id ?? "";
  }
  const checkout = await call("POST", "/checkout-sessions", {
    line_items: [{ item: { id: variantId }, quantity: 1 }],
    buyer: { email: "crash@example.com", first_name: "Crash", last_name: "Test" },
    shipping_address: {
      line1: "1 Main St",
      city: "Denver",
      region: "CO",
      postal_code: "80202",
      country: "US",
    },
    shipping_method_id: "standard",
    payment: { instruments: [{ handler_id: "svc.card", selected: true }] },
  });
  assert.equal(checkout.status, "ready_for_complete", JSON.stringify(checkout.messages));
  console.log(await setUrl);
  const completed = await call(
    "POST",
    `/checkout-sessions/${checkout.id as string}/complete`,
    await cardCompletionBody(checkout, STORE, signer, "pm_card_visa"),
  );
  assert.equal(completed.status, "completed", JSON.stringify(completed).slice(0, 500));
  const orderId = (completed.order as { id: string }).id;
  console.log(`order ${orderId} placed on server A`);

  // 1. The first delivery reaches the receiver, which holds it; server A dies while it is in flight.
  await waitFor("the first delivery", () => receiver.received.length > 0, 10_000);
  const held = receiver.received[0]!;
  const heldAt = performance.now();
  killGroup(serverA, "SIGKILL");
  const howA = await serverA.exited;
  const killedAt = performance.now();
  receiver.setMode("ok");
  console.log(`held ${held.path} ${held.webhookId} (verified ${held.verified}); server A: ${howA}`);
  assert.equal(howA, "SIGKILL");
  assert.equal(receiver.received.length, 1, "server A sent nothing else while the first delivery was held");

  db = new pg.Client({ connectionString: postgres.url });
  db.on("error", () => undefined);
  await db.connect();
  const inFlight = (
    await db.query(
      `SELECT d.state, d.attempts, (extract(epoch FROM d.locked_until) * 1000)::float8 AS "lockedUntil",
              d.locked_until > (now() AT TIME ZONE 'UTC') AS claimed,
              (SELECT count(*)::int FROM webhook_attempts a WHERE a.delivery_id = d.id) AS logged
         FROM webhook_deliveries d WHERE d.id = $1`,
      [held.webhookId],
    )
  ).rows[0] as
    { state: string; attempts: number; lockedUntil: number; claimed: boolean; logged: number } | undefined;
  assert.ok(inFlight, "the held delivery is in the database");
  const { lockedUntil, ...heldState } = inFlight;
  console.log(`after the crash, the held delivery in the database: ${JSON.stringify(inFlight)}`);
  // in flight: claimed by A, no attempt recorded (A died before it could record one), not failed
  assert.deepEqual(heldState, { state: "pending", attempts: 0, claimed: true, logged: 0 });

  // 2. The merchant ships (admin CLI: no server involved) while server B starts on the same database and address
  // without the set-up step (`npm run serve`): a restart of the same deployment.
  const shipped = admin(postgres.url, [
    "fulfill-order",
    "--store",
    STORE,
    "--order",
    orderId,
    "--type",
    "shipped",
  ]);
  const serverB = await start(postgres.url, port, "--no-setup");
  const readyB = performance.now();
  const readyBAt = Date.now();
  servers.push(serverB);
  console.log(await shipped);
  console.log(`server B ready (pid ${serverB.child.pid}) ${seconds(killedAt, readyB)} after the kill`);

  type Row = { id: string; path: string; sequence: number; state: string; timestamp: number; body: string };
  const deliveries = async (): Promise<Row[]> =>
    (
      await db!.query(
        `SELECT d.id, CASE e.target WHEN 'store' THEN '/merchant' ELSE '/platform' END AS path,
                d.sequence, d.state, d.timestamp, d.body
           FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
          WHERE d.order_id = $1 ORDER BY path, d.sequence`,
        [orderId],
      )
    ).rows as Row[];
  const allDelivered = (n: number) => async () => {
    const rows = await deliveries();
    return rows.length === n && rows.every((r) => r.state === "delivered");
  };
  const redelivered = () => receiver.received.findIndex((r, i) => i > 0 && r.webhookId === held.webhookId);
  await waitFor("the held delivery again", () => redelivered() > 0);
  const redeliveredAt = performance.now();
  const redelivery = redelivered();
  await waitFor("placed + paid + shipped at both targets", allDelivered(6));

  // 3. A further event after the crash arrives too.
  console.log(
    await admin(postgres.url, ["fulfill-order", "--store", STORE, "--order", orderId, "--type", "delivered"]),
  );
  await waitFor("delivered at both targets", allDelivered(8));
  killGroup(serverB, "SIGTERM");
  await serverB.exited;

  // The checks: per target, exactly the order's deliveries in sequence order, the held one repeated once.
  const rows = await deliveries();
  const events = (
    await db.query("SELECT sequence FROM order_events WHERE order_id = $1 ORDER BY sequence", [orderId])
  ).rows as { sequence: number }[];
  assert.deepEqual(
    events.map((e) => e.sequence),
    [1, 2, 3, 4],
    "placed, paid, shipped, delivered",
  );
  const seen = receiver.received.filter((r) => r.body.includes(orderId));
  assert.equal(seen.length, receiver.received.length, "nothing else arrived");
  for (const target of ["/merchant", "/platform"]) {
    const expected = rows.filter((r) => r.path === target);
    const got = seen.filter((r) => r.path === target);
    const ids = expected.map((r) => r.id);
    assert.deepEqual(
      got.map((r) => r.webhookId),
      held.path === target ? [held.webhookId, ...ids] : ids,
      `${target}: every event once, in order (the held one again first)`,
    );
    for (const r of got) {
      const row = expected.find((e) => e.id === r.webhookId)!;
      assert.ok(r.verified, `${target} ${r.webhookId}: RFC 9421 signature verifies with the store's key`);
      assert.ok(r.digestOk, `${target} ${r.webhookId}: Content-Digest matches the bytes`);
      assert.equal(r.body, row.body, `${target} ${r.webhookId}: the stored bytes`);
      assert.equal(r.timestamp, String(row.timestamp), `${target} ${r.webhookId}: Webhook-Timestamp`);
    }
    const shipments = got
      .filter((r, i) => !(i === 0 && target === held.path))
      .map((r) =>
        (JSON.parse(r.body) as { fulfillment: { events: { type: string }[] } }).fulfillment.events
          .map((e) => e.type)
          .join(","),
      );
    assert.deepEqual(
      shipments,
      ["", "", "shipped", "shipped,delivered"],
      `${target}: the snapshots in order`,
    );
  }
  const again: Received = receiver.received[redelivery]!;
  assert.equal(again.path, held.path);
  assert.equal(again.timestamp, held.timestamp, "same Webhook-Timestamp");
  assert.equal(again.body, held.body, "same body bytes");
  assert.ok(held.verified && again.verified, "both copies verify");
  // the lease decided when B retook it: B's attempt started once A's claim had lapsed, not before
  const log = (
    await db.query(
      `SELECT (extract(epoch FROM started_at) * 1000)::float8 AS "startedAt", status
         FROM webhook_attempts WHERE delivery_id = $1`,
      [held.webhookId],
    )
  ).rows as { startedAt: number; status: number }[];
  assert.equal(log.length, 1, "one logged attempt: B's");
  assert.equal(log[0]!.status, 200);
  const retakenAfterLapseMs = log[0]!.startedAt - lockedUntil;
  assert.ok(
    retakenAfterLapseMs >= 0,
    `B retook the delivery ${retakenAfterLapseMs} ms after A's claim lapsed (must not be before)`,
  );

  console.log("\n── Summary ──");
  console.log(
    `  deliveries received ${receiver.received.length}: 2 targets × 4 events + 1 redelivery of the held one`,
  );
  console.log(
    `  all verified (RFC 9421 + Content-Digest): ${receiver.received.every((r) => r.verified && r.digestOk)}`,
  );
  console.log(
    `  held ${held.path} ${held.webhookId}: redelivered ${seconds(heldAt, redeliveredAt)} after it was sent ` +
      `(${seconds(killedAt, redeliveredAt)} after the kill; claim lease ${CLAIM_TTL_MS} ms), same id, timestamp and bytes`,
  );
  console.log(
    `  delivery log of the held one: ${log.length} attempt (B's, ${retakenAfterLapseMs} ms after A's claim lapsed; A's attempt died unrecorded)`,
  );
  console.log(
    `  server B ready ${seconds(killedAt, readyB)} after the kill, ` +
      (readyBAt < lockedUntil
        ? `${((lockedUntil - readyBAt) / 1000).toFixed(1)} s before A's claim lapsed: B waited for the lease`
        : `only after A's claim had lapsed (slow machine): this run did not test that B waits for the lease`),
  );
  console.log(`  total ${seconds(startedAll)}`);
  console.log("Webhook crash test passed: nothing lost, one at-least-once repeat, order kept per target.");
} catch (error) {
  servers.forEach((server, i) =>
    console.error(
      `\n--- server ${"AB"[i]} output (last 3000 characters) ---\n${server.output().slice(-3000)}`,
    ),
  );
  throw error;
} finally {
  await db?.end().catch(() => undefined);
  for (const server of servers) {
    if (server.child.exitCode === null && server.child.signalCode === null) {
      killGroup(server, "SIGTERM");
      await server.exited;
    }
  }
  profileHttp.close();
  await receiver.close();
  await postgres.stop();
  rmSync(dir, { recursive: true, force: true });
}
