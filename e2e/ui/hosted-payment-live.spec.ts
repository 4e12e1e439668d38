import { generateKeyPairSync, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

import { expect, test, type Page } from "@playwright/test";
import type { JWK } from "jose";
import pg from "pg";

import { seedId } from "../../prisma/seed/seed-ids";
import { startStripeSandbox, type StripeSandbox } from "../../sandbox/stripe/server";
import { findFreePort } from "../../scripts/lib/free-port";
import { startServedApp, type ServedApp } from "../../scripts/lib/served-app";
import { startPostgres, type PostgresServer } from "../../scripts/pg-harness";
import { cardCompletionBody, withMandateKey } from "../helpers/card-completion";
import { fakeStripeJsSource, STRIPE_JS_URL_PATTERN } from "../helpers/fake-stripe-js";

// Issue #5 §3, live mode in Chromium: a LIVE store's hosted payment page runs Stripe's Payment Element
// (@stripe/stripe-js loader + @stripe/react-stripe-js). Chromium cannot reach js.stripe.com here, so the Stripe.js
// URL the loader injects is served by page.route with a test double of Stripe.js (e2e/helpers/fake-stripe-js.ts),
// which talks HTTP to the Stripe sandbox (sandbox/stripe/, started here with a stand-in live account's keys) exactly
// as Stripe.js talks to api.stripe.com (publishable key + client_secret). The service reaches the same sandbox
// through STRIPE_API_URL.
//
// This spec runs its own instance of the built service (scripts/serve.ts, as the crash test does) on a real
// PostgreSQL from scripts/pg-harness.ts, because it needs STRIPE_API_URL/STRIPE_SANDBOX_URL set and direct
// database access while the server runs. How a live store gets an escalated checkout: live stores refuse agent
// profiles on private addresses (allowsPrivateFor) and this agent's profile is on 127.0.0.1, so the agent's real
// completion (no card token → requires_escalation) runs while the demo store is in test mode, with its sandbox
// PSP pointed (STRIPE_SANDBOX_URL) at the same sandbox instance; then the store is switched to live with its
// Stripe keys (secret, publishable), as an operator would with admin set-stripe-keys. The PaymentIntent, the
// card-payment row and the link are what completion made. Everything after that is the live path.

const STORE = "summit-trail-outfitters";
const SECRET_KEY = "sk_live_fakeaccount123";
const PUBLISHABLE_KEY = "pk_live_fakeaccount123";
const CARDS = {
  visa: "4242 4242 4242 4242",
  threeDS: "4000 0027 6000 3184",
  declined: "4000 0000 0000 0002",
};

test.describe.configure({ mode: "serial" });

let stripeApi: StripeSandbox;
let postgres: PostgresServer;
let db: pg.Client;
let service: ServedApp | undefined;
let baseUrl = "";
let profileServer: Server;
let agentProfileUrl = "";
let apiKey = "";
let tempDir = "";
const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const kid = "e2e-live-agent";
const signer = { privateJwk: privateKey.export({ format: "jwk" }) as JWK, kid };

const startService = async (port: number): Promise<void> => {
  service = await startServedApp({
    port,
    env: {
      DATABASE_URL: postgres.url,
      DEMO_KEY_FILE: path.join(tempDir, "demo-platform-key.json"),
      STRIPE_API_URL: stripeApi.url,
      STRIPE_SANDBOX_URL: stripeApi.url,
      WEBHOOK_WORKER: "off",
      // this spec switches the store between test and live by writing its row while the server runs: no cached
      // store may answer for the old mode (a create after a switch to test read "live" and refused the http profile)
      ROW_CACHE_TTL_MS: "0",
    },
  });
  baseUrl = service.baseUrl;
};

test.beforeAll(async () => {
  test.setTimeout(300_000);
  tempDir = mkdtempSync(path.join(tmpdir(), "acs-live-pay-"));
  stripeApi = await startStripeSandbox({ keys: { secret: [SECRET_KEY], publishable: [PUBLISHABLE_KEY] } });
  postgres = await startPostgres();
  await startService(await findFreePort());
  db = new pg.Client({ connectionString: postgres.url });
  db.on("error", () => undefined);
  await db.connect();
  apiKey = (JSON.parse(readFileSync(path.join(tempDir, "demo-platform-key.json"), "utf8")) as { key: string })
    .key;
  // the agent's profile: the demo agent profile plus its ES256 mandate key
  const demo = (await (await fetch(`${baseUrl}/demo/agent/.well-known/ucp`)).json()) as object;
  const profile = JSON.stringify(
    withMandateKey(demo, { ...publicKey.export({ format: "jwk" }), kid, alg: "ES256", use: "sig" }),
  );
  profileServer = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "application/json" }).end(profile),
  );
  await new Promise<void>((resolve) => profileServer.listen(0, "127.0.0.1", resolve));
  agentProfileUrl = `http://127.0.0.1:${(profileServer.address() as AddressInfo).port}/.well-known/ucp`;
});

test.afterAll(async () => {
  if (service && service.child.exitCode === null) {
    service.child.kill("SIGTERM");
    await service.exited;
  }
  await db?.end().catch(() => undefined);
  await postgres?.stop();
  await stripeApi?.close();
  profileServer?.close();
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
});

type Checkout = {
  id: string;
  status: string;
  continue_url?: string;
  messages: { code?: string; content: string }[];
};

const call = async <T>(method: string, p: string, body?: unknown): Promise<T> => {
  const response = await fetch(`${baseUrl}/s/${STORE}${p}`, {
    method,
    headers: {
      "content-type": "application/json",
      "request-id": randomUUID(),
      "idempotency-key": randomUUID(),
      "ucp-agent": `profile="${agentProfileUrl}"`,
      "x-api-key": apiKey,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as T;
};

const setStore = (mode: "test" | "live", publishableKey: string | null = PUBLISHABLE_KEY) =>
  db.query(
    "UPDATE stores SET mode = $1, stripe_secret_key = $2, stripe_publishable_key = $3 WHERE slug = $4",
    [mode, SECRET_KEY, publishableKey, STORE],
  );

/** The agent completes without a card token → requires_escalation; then the store goes live (see above). */
const escalatedCheckout = async (): Promise<{ id: string; link: string }> => {
  await setStore("test");
  let variantId = "";
  for (let i = 0; i < 20 && !variantId; i++) {
    const p = await call<{
      product?: { variants: { id: string; availability?: { available?: boolean } }[] };
    }>("POST", "/catalog/product", { id: seedId("product", STORE, i) });
    variantId = p.product?.variants.find((v) => v.availability?.available !== false)?.id ?? "";
  }
  const checkout = await call<Checkout>("POST", "/checkout-sessions", {
    line_items: [{ item: { id: variantId }, quantity: 1 }],
    buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
    shipping_address: {
      line1: "1 Market St",
      city: "Denver",
      region: "CO",
      postal_code: "80202",
      country: "US",
    },
    shipping_method_id: "standard",
    payment: { instruments: [{ handler_id: "svc.card", selected: true }] },
  });
  expect(checkout.status, JSON.stringify(checkout.messages)).toBe("ready_for_complete");
  const completed = await call<Checkout>(
    "POST",
    `/checkout-sessions/${checkout.id}/complete`,
    await cardCompletionBody(checkout, STORE, signer),
  );
  expect(completed.status, JSON.stringify(completed.messages)).toBe("requires_escalation");
  expect(completed.continue_url).toMatch(new RegExp(`/s/${STORE}/pay/`));
  await setStore("live");
  return { id: checkout.id, link: completed.continue_url! };
};

const stateOf = async (checkoutId: string) => {
  const session = await db.query<{ status: string; continue_token: string | null }>(
    "SELECT status, continue_token FROM checkout_sessions WHERE id = $1",
    [checkoutId],
  );
  const orders = await db.query<{ n: string }>("SELECT count(*) AS n FROM orders WHERE checkout_id = $1", [
    checkoutId,
  ]);
  return { ...session.rows[0]!, orders: Number(orders.rows[0]!.n) };
};

const serveFakeStripeJs = (page: Page) =>
  page.route(STRIPE_JS_URL_PATTERN, (route) =>
    route.fulfill({ contentType: "application/javascript", body: fakeStripeJsSource(stripeApi.url) }),
  );

const payWith = async (page: Page, card: string, { double = false } = {}) => {
  await page.getByLabel("Card number").fill(card);
  await page.getByLabel("Expiration date").fill("12 / 34");
  await page.getByLabel("Security code").fill("123");
  const pay = page.getByRole("button", { name: "Pay" });
  await (double ? pay.dblclick() : pay.click());
};

test("live store: no card token → requires_escalation; the buyer pays in the Payment Element; completed, one order, the link then shows the receipt", async ({
  page,
}) => {
  const { id, link } = await escalatedCheckout();
  await serveFakeStripeJs(page);
  await page.goto(link);
  await expect(page.getByRole("heading", { level: 1, name: "Pay Summit Trail Outfitters" })).toBeVisible();
  await expect(page.getByTestId("pay-total")).toContainText("$");
  // the page names no sandbox card: the Payment Element collects the card
  await expect(page.getByText("sandbox", { exact: false })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Pay" })).toBeEnabled();
  expect(await page.content(), "the secret key never reaches the browser").not.toContain(SECRET_KEY);
  const before = stripeApi.confirmations();
  // a double click on Pay
  await payWith(page, CARDS.visa, { double: true });
  await expect(page.getByText(/your order is placed/i)).toBeVisible();
  // the receipt names the order
  await expect(page.getByTestId("receipt-order-id")).toHaveText(/^ord_/);
  // confirmed once, by the browser with the publishable key; the server only read the result
  expect(stripeApi.confirmations()).toEqual({ publishable: before.publishable + 1, secret: before.secret });
  expect(await stateOf(id)).toEqual({ status: "completed", continue_token: null, orders: 1 });
  const orderId = await page.getByTestId("receipt-order-id").textContent();
  // the link opened again: the receipt (the checkout keeps only a hash of the link's token)
  await page.goto(link);
  await expect(page.getByTestId("receipt-order-id")).toHaveText(orderId!);
  await expect(page.getByTestId("receipt-paid-with")).toHaveText("Visa •••• 4242");
  const kept = await db.query<{ paid_link_hash: string }>(
    "SELECT paid_link_hash FROM checkout_sessions WHERE id = $1",
    [id],
  );
  expect(kept.rows[0]?.paid_link_hash).toMatch(/^[0-9a-f]{64}$/);
});

test("the browser's refresh after paying is lost: opening the link again finishes the order from Stripe's state", async ({
  page,
}) => {
  const { id, link } = await escalatedCheckout();
  await serveFakeStripeJs(page);
  await page.goto(link);
  // the post that tells our server to read the provider's state never arrives
  await page.route("**/submit", (route) => route.abort("connectionreset"));
  const before = stripeApi.confirmations().publishable;
  await payWith(page, CARDS.visa);
  await expect.poll(() => stripeApi.confirmations().publishable).toBe(before + 1);
  expect(await stateOf(id)).toMatchObject({ status: "requires_escalation", orders: 0 });
  // the buyer opens the link again (a new tab: the first one is left on its failed navigation)
  const again = await page.context().newPage();
  await again.goto(link);
  await expect(again.getByText(/your order is placed/i)).toBeVisible();
  expect(await stateOf(id)).toEqual({ status: "completed", continue_token: null, orders: 1 });
});

test("3-D Secure: the bank redirects back to return_url with payment_intent; the session completes", async ({
  page,
}) => {
  const { id, link } = await escalatedCheckout();
  await serveFakeStripeJs(page);
  await page.goto(link);
  await payWith(page, CARDS.threeDS);
  // Stripe.js navigated to the bank's page (here the sandbox's 3-DS page)
  await expect(page.getByRole("heading", { name: /confirm this payment/i })).toBeVisible();
  expect(await stateOf(id)).toMatchObject({ status: "requires_escalation", orders: 0 });
  const confirmed = stripeApi.confirmations();
  // the card page reloaded while the bank waits (here in a second tab): it says so from Stripe's state
  const reloaded = await page.context().newPage();
  await reloaded.goto(link);
  await expect(reloaded.getByTestId("pay-notice")).toContainText("nothing has been charged yet");
  expect(await stateOf(id)).toMatchObject({ status: "requires_escalation", orders: 0 });
  await page.getByRole("button", { name: "Complete authentication" }).click();
  await expect(page.getByText(/your order is placed/i)).toBeVisible();
  // the reloaded tab, reloaded again: the true state is the receipt; nothing was confirmed twice
  await reloaded.reload();
  await expect(reloaded.getByTestId("receipt-order-id")).toHaveText(/^ord_/);
  expect(stripeApi.confirmations()).toEqual(confirmed);
  await reloaded.close();
  await expect(page.getByTestId("receipt-order-id")).toHaveText(/^ord_/);
  // the query string was dropped after the server finished from the provider's state
  expect(new URL(page.url()).searchParams.get("payment_intent")).toBeNull();
  expect(await stateOf(id)).toEqual({ status: "completed", continue_token: null, orders: 1 });
});

test("a declined card: the buyer sees why, the session stays open; another card then pays", async ({
  page,
}) => {
  const { id, link } = await escalatedCheckout();
  await serveFakeStripeJs(page);
  await page.goto(link);
  await payWith(page, CARDS.declined);
  // (getByRole("alert") would also match Next's route announcer)
  const error = page.getByTestId("pay-error");
  await expect(error).toHaveText("Your card was declined.");
  await expect(error).toHaveAttribute("role", "alert");
  expect(await stateOf(id)).toMatchObject({ status: "requires_escalation", orders: 0 });
  await expect(page.getByRole("button", { name: "Pay" })).toBeEnabled();
  await payWith(page, CARDS.visa);
  await expect(page.getByText(/your order is placed/i)).toBeVisible();
  expect(await stateOf(id)).toEqual({ status: "completed", continue_token: null, orders: 1 });
});

test("Stripe.js fails to load → a plain message; a store without a publishable key → not configured", async ({
  page,
}) => {
  const { id, link } = await escalatedCheckout();
  await page.route(STRIPE_JS_URL_PATTERN, (route) => route.abort("internetdisconnected"));
  await page.goto(link);
  await expect(page.getByTestId("pay-error")).toContainText("could not be loaded");
  await expect(page.getByRole("button", { name: "Pay" })).toHaveCount(0);

  await setStore("live", null);
  try {
    await page.goto(link);
    await expect(page.getByTestId("pay-unavailable")).toContainText("not configured");
    await expect(page.getByLabel("Card number")).toHaveCount(0);
  } finally {
    await setStore("live");
  }
  expect(await stateOf(id)).toMatchObject({ status: "requires_escalation", orders: 0 });
});
