// `npm run test:crash:card`: kills the server between the card charge and the order, then checks that the next
// completion — or the reconciliation CLI — finishes the order from the same PaymentIntent without a second charge
//. Real processes: the built service (scripts/serve.ts) on a real PostgreSQL
// (scripts/pg-harness.ts), an external sandbox PSP in this process (STRIPE_SANDBOX_URL, so the provider outlives
// the server), and an agent profile with this script's mandate key. Server A runs with
// ACS_FAULT=crash-after-charge (process.exit right after a succeeded charge, before the order) or with
// ACS_FAULT=crash-after-provider (right after Stripe answered, before the PaymentIntent id is even recorded).
// Then either server B, on the same database, runs without a fault and retries, or (no server at all) the admin
// CLI `reconcile-payments` sweeps. The sandbox's webhook deliveries are switched off here so a Stripe event cannot
// finish the order before the path under test does (the servers still register their endpoints, checked below;
// e2e/api/checkout/sandbox-webhooks.test.ts tests the webhook path). Exits non-zero when a check fails.
// Usage: npm run test:crash:card [-- --build]
import assert from "node:assert/strict";
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

import type { JWK } from "jose";
import pg from "pg";

import { cardCompletionBody, withMandateKey } from "../e2e/helpers/card-completion";
import { seedId } from "../prisma/seed/seed-ids";
import { stripeSandbox } from "../sandbox/stripe/server";
import { findFreePort } from "./lib/free-port";
import { runAdminProcess, startServedApp, type ServedApp } from "./lib/served-app";
import { startPostgres } from "./pg-harness";

const STORE = "summit-trail-outfitters";
const dir = mkdtempSync(path.join(tmpdir(), "acs-crash-"));
const keyFile = path.join(dir, "demo-platform-key.json");

type Server = ServedApp;

type Fault = "crash-after-provider" | "crash-after-charge";
/** Who finishes the order after the crash: a completion retry on server B, or the reconciliation CLI. */
type Finisher = "retry" | "reconcile-cli";
const SCENARIOS: { fault: Fault; finisher: Finisher }[] = [
  { fault: "crash-after-provider", finisher: "retry" },
  { fault: "crash-after-charge", finisher: "retry" },
  { fault: "crash-after-charge", finisher: "reconcile-cli" },
];

/** `npm run admin -- reconcile-payments` as its own process on the same database and sandbox. */
const reconcileCli = (databaseUrl: string, sandboxUrl: string) =>
  runAdminProcess(["reconcile-payments", "--store", STORE, "--grace-seconds", "0"], {
    DATABASE_URL: databaseUrl,
    STRIPE_SANDBOX_URL: sandboxUrl,
    ACS_FAULT: undefined,
  });

const start = (
  databaseUrl: string,
  sandboxUrl: string,
  fault: Fault | null,
  build: boolean,
  port: number,
): Promise<Server> =>
  startServedApp({
    port,
    args: build ? ["--build"] : [],
    env: {
      DATABASE_URL: databaseUrl,
      DEMO_KEY_FILE: keyFile,
      STRIPE_SANDBOX_URL: sandboxUrl,
      ACS_FAULT: fault ?? undefined,
    },
  });

const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const kid = "crash-test-agent";
const signer = { privateJwk: privateKey.export({ format: "jwk" }) as JWK, kid };

const sandbox = await stripeSandbox();
sandbox.setWebhookDelivery(false);
const postgres = await startPostgres();
let serverB: Server | undefined;
const profileHttp = createServer();
let build = process.argv.includes("--build");
try {
  for (const { fault, finisher } of SCENARIOS) {
    console.log(
      `\n=== ${fault}, then ${finisher}: PostgreSQL ${postgres.url}, sandbox PSP ${sandbox.url} ===`,
    );
    // one deployment: server B comes back on server A's address (the base URL is part of the charge's return_url)
    const port = await findFreePort();
    const serverA = await start(postgres.url, sandbox.url, fault, build, port);
    build = false;
    const demo = (await (await fetch(`${serverA.baseUrl}/demo/agent/.well-known/ucp`)).json()) as object;
    const profile = JSON.stringify(
      withMandateKey(demo, { ...publicKey.export({ format: "jwk" }), kid, alg: "ES256", use: "sig" }),
    );
    profileHttp.removeAllListeners("request");
    profileHttp.on("request", (_req, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(profile),
    );
    if (!profileHttp.listening)
      await new Promise<void>((resolve) => profileHttp.listen(0, "127.0.0.1", resolve));
    const agent = `http://127.0.0.1:${(profileHttp.address() as AddressInfo).port}/.well-known/ucp`;
    const apiKey = (JSON.parse(readFileSync(keyFile, "utf8")) as { key: string }).key;
    const headers = () => ({
      "content-type": "application/json",
      "request-id": randomUUID(),
      "idempotency-key": randomUUID(),
      "ucp-agent": `profile="${agent}"`,
      "x-api-key": apiKey,
    });
    const call = async (base: string, method: string, p: string, body?: unknown) => {
      const res = await fetch(`${base}/s/${STORE}${p}`, {
        method,
        headers: headers(),
        body: body ? JSON.stringify(body) : undefined,
      });
      return (await res.json()) as Record<string, unknown>;
    };

    // a ready checkout on server A
    let variantId = "";
    for (let i = 0; i < 20 && !variantId; i++) {
      const p = (await call(serverA.baseUrl, "POST", "/catalog/product", {
        id: seedId("product", STORE, i),
      })) as {
        product?: { variants: { id: string; availability?: { available?: boolean } }[] };
      };
      variantId = p.product?.variants.find((v) => v.availability?.available)?.id ?? "";
    }
    const checkout = await call(serverA.baseUrl, "POST", "/checkout-sessions", {
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
    const id = checkout.id as string;
    const completion = await cardCompletionBody(checkout, STORE, signer, "pm_card_visa");

    // 1. server A charges, then dies before writing the order
    const crashed = await call(serverA.baseUrl, "POST", `/checkout-sessions/${id}/complete`, completion).then(
      (body) => `answered ${JSON.stringify(body).slice(0, 200)}`,
      (error: unknown) => `no answer (${(error as Error).message})`,
    );
    const exitCode = await serverA.exited;
    const intentsAfterCrash = sandbox.paymentIntents().filter((pi) => pi.metadata.checkout_id === id);
    const executedAfterCrash = sandbox.executed();
    const db = new pg.Client({ connectionString: postgres.url });
    db.on("error", () => undefined);
    await db.connect();
    const orders = async () =>
      Number((await db.query("SELECT count(*) AS n FROM orders WHERE checkout_id = $1", [id])).rows[0].n);
    const ordersAfterCrash = await orders();
    console.log(`server A: completion ${crashed}; exit code ${exitCode}`);
    console.log(
      `after the crash: PaymentIntents ${intentsAfterCrash.map((pi) => `${pi.id}=${pi.status}`).join(", ")}; orders ${ordersAfterCrash}`,
    );
    assert.equal(exitCode, "exit 137");
    assert.deepEqual(
      intentsAfterCrash.map((pi) => pi.status),
      ["succeeded"],
    );
    assert.equal(ordersAfterCrash, 0);
    // server A served HTTP, so it registered the store's endpoint on the sandbox before its first charge
    assert.ok(
      sandbox
        .webhookEndpoints()
        .some((e) => e.url === `${serverA.baseUrl}/s/${STORE}/stripe/webhook` && e.metadata.store === STORE),
      "server A registered its Stripe webhook endpoint",
    );

    if (finisher === "reconcile-cli") {
      // 2'. no retry: the reconciliation CLI finishes the order from the recorded PaymentIntent
      const cli = await reconcileCli(postgres.url, sandbox.url);
      const paymentRef = (await db.query("SELECT payment_ref FROM orders WHERE checkout_id = $1", [id]))
        .rows[0]?.payment_ref as string | undefined;
      console.log(`reconcile-payments (exit ${cli.code}):\n${cli.output.trim().replace(/^/gm, "  ")}`);
      console.log(
        `after the sweep: PaymentIntents ${sandbox.paymentIntents().filter((pi) => pi.metadata.checkout_id === id).length}; provider confirmations since the crash ${sandbox.executed() - executedAfterCrash}; orders ${await orders()} (payment_ref ${paymentRef})`,
      );
      assert.equal(cli.code, 0);
      assert.match(
        cli.output,
        new RegExp(`checkout ${id} payment ${intentsAfterCrash[0]!.id}: order_placed`),
      );
      assert.equal(await orders(), 1);
      assert.equal(paymentRef, intentsAfterCrash[0]!.id);
      assert.equal(sandbox.executed() - executedAfterCrash, 0, "no second charge");
      assert.equal(sandbox.paymentIntents().filter((pi) => pi.metadata.checkout_id === id).length, 1);
      await db.end();
      console.log(`${fault} + ${finisher}: passed (one charge, one order)`);
      continue;
    }

    // 2. server B on the same database: the retry finishes the order from the same PaymentIntent
    serverB = await start(postgres.url, sandbox.url, null, false, port);
    const retried = await call(serverB.baseUrl, "POST", `/checkout-sessions/${id}/complete`, completion);
    const intents = sandbox.paymentIntents().filter((pi) => pi.metadata.checkout_id === id);
    const paymentRef = (await db.query("SELECT payment_ref FROM orders WHERE checkout_id = $1", [id])).rows[0]
      ?.payment_ref as string | undefined;
    console.log(
      `server B retry: status ${String(retried.status)}, order ${JSON.stringify(retried.order)}; PaymentIntents ${intents.length}; provider confirmations since the crash ${sandbox.executed() - executedAfterCrash}; orders ${await orders()} (payment_ref ${paymentRef})`,
    );
    assert.equal(retried.status, "completed", JSON.stringify(retried).slice(0, 500));
    assert.equal(intents.length, 1, "one PaymentIntent");
    assert.equal(sandbox.executed() - executedAfterCrash, 0, "no second charge");
    assert.equal(await orders(), 1);
    assert.equal(paymentRef, intentsAfterCrash[0]!.id);
    await db.end();
    serverB.child.kill("SIGTERM");
    await serverB.exited;
    console.log(`${fault} + ${finisher}: passed (one charge, one order)`);
  }
  console.log(
    "\nCrash test passed at both points, by retry and by the reconciliation CLI: one charge, one order.",
  );
} finally {
  profileHttp.close();
  if (serverB?.child.exitCode === null) {
    serverB.child.kill("SIGTERM");
    await serverB.exited;
  }
  await postgres.stop();
  rmSync(dir, { recursive: true, force: true });
}
