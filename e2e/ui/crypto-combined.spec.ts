import { generateKeyPairSync, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

import { checkoutMandate } from "@agent-commerce/agent-kit";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { normalizeStructTag } from "@mysten/sui/utils";
import { expect, test, type Page } from "@playwright/test";
import type { JWK } from "jose";

import { SANDBOX_WALLET_ADDRESS, sandboxKeypair } from "../../lib/buyers/sandbox-wallet";
import { seedId, seedSuiAddress } from "../../prisma/seed/seed-ids";
import { startSuiSandbox, type SuiSandbox } from "../../sandbox/sui/server";
import { adminSocketPath, runThroughServer } from "../../scripts/lib/admin-socket";
import { findFreePort } from "../../scripts/lib/free-port";
import { startServedApp, type ServedApp } from "../../scripts/lib/served-app";
import { withMandateKey } from "../helpers/card-completion";
import { linkAgentOverMcp, type LinkedAgent } from "../helpers/mcp-consent";
import { expectAccessible, shoot } from "../helpers/page-checks";
import { everyLook } from "../helpers/pay-page-looks";
import { moveServerClock, serverClockEnv } from "../helpers/server-clock";
import { balances, fund, keypair, shiftClock, signAndSubmitOn, SUI, USDC } from "../helpers/sui-sandbox";
import { installWallet, testWallet } from "../helpers/test-wallet";
import { signInWithWallet } from "../helpers/wallet-sign-in";

// A combined crypto payment in Chromium: the buyer links an agent (consent with the sandbox wallet), the agent
// creates one checkout in each of three stores with the demo platform key and calls prepare_combined_payment on
// /account/mcp with the buyer's bearer; the buyer opens its continue_url, sees the three stores and the whole
// quote, signs ONCE with the test wallet, and the three checkouts get their orders. The buyer first signs an
// allowance for the agent on the spend-cap page: the prepare reserves the group's total on it once, and the three
// orders debit it (the page then shows the total as spent today, nothing reserved). Own served instance with a Sui
// sandbox started here (as crypto-wallet.spec.ts), so the test wallet is funded and merchant balances are read.
// Then a payment that landed with no room left on the agent's allowance (DECISIONS B20): it waits on its payment link
// for the buyer, who approves it there. The instance's clock can be moved forward (e2e/support/server-clock.ts), so
// the agent's hold on the allowance runs out without waiting for it.

const STORES = ["summit-trail-outfitters", "voltage-electronics", "urban-thread-apparel"];
const N_SUI = 1_000_000_000n;
/** A prepare holds its total on the allowance for the quote's 10 minutes plus 15 of grace: a minute more. */
const HOLD_RUN_OUT_MS = 26 * 60_000;
/** The agents the buyer links (path on the agent server → the name the consent page shows). */
const AGENTS = { agent: "Combined Agent", errand: "Errand Agent" } as const;

test.describe.configure({ mode: "serial" });

let sandbox: SuiSandbox;
let service: ServedApp | undefined;
let agent: Server;
let origin = "";
let apiKey = "";
let tempDir = "";
let pgliteDir = "";
// the key the agent signs its checkout mandates with (its profile publishes it)
const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const mandateSigner = { privateJwk: privateKey.export({ format: "jwk" }) as JWK, kid: "errand-agent" };

test.beforeAll(async () => {
  test.setTimeout(300_000);
  tempDir = mkdtempSync(path.join(tmpdir(), "acs-combined-"));
  pgliteDir = path.join(tempDir, "pglite");
  sandbox = await startSuiSandbox();
  await fund(sandbox.url, SANDBOX_WALLET_ADDRESS, USDC, [5_000_000_000n]);
  await fund(sandbox.url, SANDBOX_WALLET_ADDRESS, SUI, [50n * N_SUI]);
  service = await startServedApp({
    port: await findFreePort(),
    env: {
      DATABASE_URL: undefined,
      PGLITE_DIR: pgliteDir,
      DEMO_KEY_FILE: path.join(tempDir, "demo-platform-key.json"),
      SUI_SANDBOX_URL: sandbox.url,
      WEBHOOK_WORKER: "off",
      ...serverClockEnv(HOLD_RUN_OUT_MS),
    },
  });
  apiKey = (JSON.parse(readFileSync(path.join(tempDir, "demo-platform-key.json"), "utf8")) as { key: string })
    .key;
  // the third USD store of the demo takes cards only: the merchant turns crypto on (admin CLI via the server)
  const code = await runThroughServer(adminSocketPath(pgliteDir), [
    "set-crypto",
    "--store",
    STORES[2]!,
    "--enabled",
    "true",
    "--accepted-coins",
    "USDC",
    "--payout-address",
    seedSuiAddress(STORES[2]!),
  ]);
  expect(code).toBe(0);
  const mandateKey = {
    ...publicKey.export({ format: "jwk" }),
    kid: mandateSigner.kid,
    alg: "ES256",
    use: "sig",
  };
  agent = createServer((req, res) => {
    const [, name, file] = (req.url ?? "/").split("?")[0]!.split("/");
    const clientName = AGENTS[name as keyof typeof AGENTS];
    if (clientName && file === "client.json") {
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          client_id: `${origin}/${name}/client.json`,
          client_name: clientName,
          redirect_uris: [`${origin}/${name}/callback`],
        }),
      );
    } else if (clientName && file === "callback") {
      res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>agent</title><p>ok</p>");
    } else if (name === "agent" && (file === "profile" || file === "signed-profile")) {
      // the demo agent's profile; signed-profile also publishes the key its checkout mandates are signed with
      void fetch(`${service!.baseUrl}/demo/agent/.well-known/ucp`)
        .then((r) => r.json())
        .then((demo: object) =>
          res
            .writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify(file === "profile" ? demo : withMandateKey(demo, mandateKey))),
        );
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => agent.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(agent.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  if (service && service.child.exitCode === null) {
    service.child.kill("SIGTERM");
    await service.exited;
  }
  agent?.closeAllConnections();
  agent?.close();
  await sandbox?.close();
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
});

type Checkout = {
  id: string;
  status: string;
  messages: { code?: string; content: string }[];
  order?: { id: string };
  totals: { type: string; amount: number }[];
  continue_url?: string;
};

const usd = (minor: number) =>
  new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(minor / 100);

/** The buyer links one of the agent server's agents on the consent page, signing in with the sandbox wallet. */
const linkAgent = (page: Page, name: keyof typeof AGENTS): Promise<LinkedAgent> =>
  linkAgentOverMcp(page, {
    baseUrl: service!.baseUrl,
    clientId: `${origin}/${name}/client.json`,
    clientName: AGENTS[name],
    redirectUri: `${origin}/${name}/callback`,
  });

const call = async <T>(store: string, method: string, p: string, body?: unknown): Promise<T> => {
  const response = await fetch(`${service!.baseUrl}/s/${store}${p}`, {
    method,
    headers: {
      "content-type": "application/json",
      "request-id": randomUUID(),
      "idempotency-key": randomUUID(),
      "ucp-agent": `profile="${origin}/agent/profile"`,
      "x-api-key": apiKey,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as T;
};

/** A UCP REST call as the agent with the buyer's bearer alone, from its profile that publishes its mandate key. */
const asAgent = async <T>(agent: LinkedAgent, store: string, method: string, p: string, body?: unknown) => {
  const response = await fetch(`${service!.baseUrl}/s/${store}${p}`, {
    method,
    headers: {
      "content-type": "application/json",
      "request-id": randomUUID(),
      "idempotency-key": randomUUID(),
      "ucp-agent": `profile="${origin}/agent/signed-profile"`,
      authorization: `Bearer ${agent.accessToken()}`,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
};

const checkoutIn = async (store: string): Promise<Checkout> => {
  const product = await call<{
    product: { variants: { id: string; availability?: { available?: boolean } }[] };
  }>(store, "POST", "/catalog/product", { id: seedId("product", store, 0) });
  const variant = product.product.variants.find((v) => v.availability?.available !== false)!;
  const checkout = await call<Checkout>(store, "POST", "/checkout-sessions", {
    line_items: [{ item: { id: variant.id }, quantity: 1 }],
    buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
    shipping_address: {
      line1: "1 Market St",
      city: "Denver",
      region: "CO",
      postal_code: "80202",
      country: "US",
    },
    shipping_method_id: "standard",
    payment: { instruments: [{ handler_id: "svc.crypto", selected: true }] },
  });
  expect(checkout.status, JSON.stringify(checkout.messages)).toBe("ready_for_complete");
  return checkout;
};

/** The agent's prepare_combined_payment over /account/mcp with the buyer's bearer, for the buyer's address. */
const prepareCombined = async (linked: LinkedAgent, checkouts: Checkout[], buyerAddress: string) => {
  const client = new Client({ name: "agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(linked.endpoint, { authProvider: linked.provider }));
  const answer = (await client.callTool({
    name: "prepare_combined_payment",
    arguments: {
      checkouts: STORES.map((store, i) => ({ store_slug: store, checkout_id: checkouts[i]!.id })),
      buyer_address: buyerAddress,
    },
  })) as { isError?: boolean; structuredContent?: Record<string, unknown> };
  await client.close();
  expect(answer.isError, JSON.stringify(answer)).toBeFalsy();
  return answer.structuredContent as {
    continue_url: string;
    checkouts: { store_slug: string; total: number; legs: { amount: string }[] }[];
  };
};

test("a combined payment for three stores is signed once on the wallet page; each store gets its order", async ({
  page,
}, testInfo) => {
  test.setTimeout(420_000);
  const checkouts = await Promise.all(STORES.map(checkoutIn));

  // the buyer links the agent (consent, signing in with the sandbox wallet)
  const linked = await linkAgent(page, "agent");

  // the buyer gives the agent an allowance on the spend-cap page (signed with the sandbox wallet): 1,000.00 a day
  await page.goto(`${service!.baseUrl}/account/spend-caps`);
  const caps = page.getByTestId("agent-caps").filter({ hasText: "Combined Agent" });
  await caps.getByRole("button", { name: "New allowance" }).click();
  const form = caps.getByRole("form", { name: /New allowance/ });
  await form.getByLabel("Per day (USD)").fill("1000");
  await form.getByRole("button", { name: "Sign with your wallet" }).click();
  await expect(caps.getByTestId("allowance")).toHaveCount(1);

  const prepared = await prepareCombined(linked, checkouts, SANDBOX_WALLET_ADDRESS);
  const groupTotal = prepared.checkouts.reduce((sum, c) => sum + c.total, 0);
  // the agent's prepare reserved the whole group on that allowance, once
  await page.goto(`${service!.baseUrl}/account/spend-caps`);
  await expect(caps.getByTestId("allowance-reserved")).toContainText(usd(groupTotal));
  const before = await Promise.all(
    STORES.map(
      async (s) => (await balances(sandbox.url, seedSuiAddress(s))).get(normalizeStructTag(USDC)) ?? 0n,
    ),
  );

  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(prepared.continue_url);
  await expect(page.getByRole("heading", { level: 1, name: "Pay 3 stores at once" })).toBeVisible();
  const stores = page.getByTestId("group-checkout");
  await expect(stores).toHaveCount(3);
  // each store's card: its lines, then its shipping and tax, and its total (nothing hidden in it)
  for (const [i, store] of (await stores.all()).entries()) {
    await expect(store.getByTestId("pay-line")).toHaveCount(1);
    await expect(store.getByTestId("pay-breakdown")).toContainText("Subtotal");
    await expect(store.getByTestId("pay-breakdown")).toContainText("Shipping");
    await expect(store.getByTestId("pay-breakdown")).toContainText("Tax");
    await expect(store.getByTestId("group-checkout-total")).toHaveText(usd(prepared.checkouts[i]!.total));
  }
  // one total; the quote with each coin's value and rate, the fee in money, a countdown
  await expect(page.getByTestId("group-total")).toContainText(usd(groupTotal));
  await expect(page.getByTestId("group-quote")).toContainText("USDC");
  await expect(page.getByTestId("crypto-leg-rate").first()).toHaveText(/^1 USDC = \$1\.00 \(/);
  await expect(page.getByTestId("crypto-fee")).toContainText(/\(≈ \$\d+\.\d\d\)/);
  await expect(page.getByTestId("quote-countdown").getByRole("timer")).toHaveText(/^\d+:\d\d$/);
  // nothing is said as paid before it is
  await expect(page.getByRole("main")).not.toContainText(/paid with|order placed/i);
  await expect(page.getByTestId("group-checkout-order")).toHaveCount(0);
  await everyLook(page, testInfo, "crypto-combined");

  await page.getByRole("button", { name: "Pay all with the test wallet" }).click();
  // the receipt: every store's order and what paid it, the transaction, the way to My orders
  await expect(page.getByTestId("group-paid")).toBeVisible();
  const receipt = page.getByTestId("group-receipt");
  await expect(receipt.getByTestId("group-receipt-store")).toHaveCount(3);
  await expect(receipt.getByTestId("group-checkout-order")).toHaveCount(3);
  await expect(receipt.getByTestId("group-receipt-total")).toHaveText(usd(groupTotal));
  for (const name of ["Summit Trail Outfitters", "Voltage Electronics", "Urban Thread Apparel"]) {
    await expect(receipt.getByTestId("group-receipt-store").filter({ hasText: name })).toContainText(
      "Paid with",
    );
  }
  await expect(receipt.getByTestId("group-transaction")).toBeVisible();
  // the sandbox chain has no explorer: no link to one
  await expect(receipt.getByRole("link", { name: /explorer/ })).toHaveCount(0);
  await expect(page.getByTestId("my-orders-link")).toHaveAttribute("href", "/account/orders");
  await expectAccessible(page, "combined payment paid");
  await everyLook(page, testInfo, "crypto-combined-paid");

  // My orders: the three orders together as one payment, each with its leg of the transaction
  await page.goto(`${service!.baseUrl}/account/orders`);
  await expect(page.getByTestId("my-payment-group")).toHaveCount(1);
  await expect(page.getByTestId("my-payment-group").getByTestId("my-order")).toHaveCount(3);
  await expect(page.getByTestId("order-crypto-legs").first()).toContainText("USDC");
  await expectAccessible(page, "my orders with a combined payment");
  await shoot(page, testInfo, "crypto-combined-orders-1280");

  // the three orders debited the allowance: spent today is the group's total, nothing is reserved any more
  await page.goto(`${service!.baseUrl}/account/spend-caps`);
  await expect(caps.getByTestId("window-day")).toContainText(usd(groupTotal));
  await expect(caps.getByTestId("allowance-reserved")).toContainText("$0.00");

  for (const [i, store] of STORES.entries()) {
    const after = await call<Checkout>(store, "GET", `/checkout-sessions/${checkouts[i]!.id}`);
    expect(after.status).toBe("completed");
    const received =
      ((await balances(sandbox.url, seedSuiAddress(store))).get(normalizeStructTag(USDC)) ?? 0n) - before[i]!;
    expect(received).toBe(BigInt(prepared.checkouts[i]!.legs[0]!.amount));
  }
});

test("through dApp Kit, a wallet that can only sign and execute signs the buyer in, signs the allowance right after consent, and pays the three stores with one transaction", async ({
  browser,
}, testInfo) => {
  test.setTimeout(300_000);
  const checkouts = await Promise.all(STORES.map(checkoutIn));
  // its own context, as a second buyer's browser (axe needs a page made through browser.newContext())
  const context = await browser.newContext();
  const page = await context.newPage();
  const wallet = await testWallet(page, sandbox.url);
  const address = wallet.toSuiAddress();
  await installWallet(page, "Execute Wallet", wallet, "executes");

  // consent: signed in with the wallet through dApp Kit's connect dialog; the limit step signs 1,000.00 a day
  const linked = await linkAgentOverMcp(page, {
    baseUrl: service!.baseUrl,
    clientId: `${origin}/agent/client.json`,
    clientName: AGENTS.agent,
    redirectUri: `${origin}/agent/callback`,
    signIn: async () => {
      await page.getByRole("button", { name: "Connect a wallet" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Execute Wallet" }).click();
      await expect(page.getByTestId("buyer-address")).toHaveText(address);
    },
    limit: async () => {
      const form = page.getByRole("form", { name: "New allowance for Combined Agent" });
      await form.getByLabel("Per day (USD)").fill("1000");
      await form.getByRole("button", { name: "Sign with your wallet" }).click();
    },
  });
  await page.goto(`${service!.baseUrl}/account/spend-caps`);
  const caps = page.getByTestId("agent-caps").filter({ hasText: "Combined Agent" });
  await expect(caps.getByTestId("allowance")).toHaveCount(1);

  const prepared = await prepareCombined(linked, checkouts, address);
  const groupTotal = prepared.checkouts.reduce((sum, c) => sum + c.total, 0);
  const usdc = normalizeStructTag(USDC);
  const before = await Promise.all(
    STORES.map(async (s) => (await balances(sandbox.url, seedSuiAddress(s))).get(usdc) ?? 0n),
  );
  const buyerBefore = (await balances(sandbox.url, address)).get(usdc) ?? 0n;

  await page.goto(prepared.continue_url);
  await expect(page.getByRole("heading", { level: 1, name: "Pay 3 stores at once" })).toBeVisible();
  await expect(page.getByText(address)).toBeVisible();
  await page.getByRole("button", { name: `Pay all with your wallet — ${usd(groupTotal)}` }).click();
  await expect(page.getByTestId("group-paid")).toBeVisible();
  const receipt = page.getByTestId("group-receipt");
  await expect(receipt.getByTestId("group-checkout-order")).toHaveCount(3);
  await expect(receipt.getByTestId("group-receipt-total")).toHaveText(usd(groupTotal));
  await expectAccessible(page, "combined payment paid through dApp Kit");
  await shoot(page, testInfo, "crypto-combined-dapp-kit-paid-1280");

  // one transaction from the buyer's wallet paid each store exactly its leg; the allowance counts the three orders
  let legs = 0n;
  for (const [i, store] of STORES.entries()) {
    const after = await call<Checkout>(store, "GET", `/checkout-sessions/${checkouts[i]!.id}`);
    expect(after.status).toBe("completed");
    const leg = BigInt(prepared.checkouts[i]!.legs[0]!.amount);
    legs += leg;
    expect(((await balances(sandbox.url, seedSuiAddress(store))).get(usdc) ?? 0n) - before[i]!).toBe(leg);
  }
  expect(buyerBefore - ((await balances(sandbox.url, address)).get(usdc) ?? 0n)).toBe(legs);
  await page.goto(`${service!.baseUrl}/account/spend-caps`);
  await expect(caps.getByTestId("window-day")).toContainText(usd(groupTotal));
  await expect(caps.getByTestId("allowance-reserved")).toContainText("$0.00");
  await context.close();
});

test("a payment that landed after the agent's hold on the allowance ran out, with no room left, waits for the buyer on its payment link; only they can approve it, once, and it becomes their order, counted as spent", async ({
  page,
  browser,
}, testInfo) => {
  test.setTimeout(180_000);
  const store = STORES[0]!;
  const checkout = await checkoutIn(store);
  const total = checkout.totals.find((t) => t.type === "total")!.amount;
  const errand = await linkAgent(page, "errand");

  // the buyer gives the agent 1,000.00 a day on the spend-cap page (signed with the sandbox wallet)
  await page.goto(`${service!.baseUrl}/account/spend-caps`);
  const caps = page.getByTestId("agent-caps").filter({ hasText: AGENTS.errand });
  await caps.getByRole("button", { name: "New allowance" }).click();
  const form = caps.getByRole("form", { name: /New allowance/ });
  await form.getByLabel("Per day (USD)").fill("1000");
  await form.getByRole("button", { name: "Sign with your wallet" }).click();
  const allowance = caps.getByTestId("allowance");
  await expect(allowance).toHaveCount(1);

  // the agent prepares the payment with the buyer's bearer: its total is held on that allowance
  const prepared = await asAgent<{ transaction: { bytes: string }; continue_url: string }>(
    errand,
    store,
    "POST",
    `/checkout-sessions/${checkout.id}/payment-intent`,
    { buyer_address: SANDBOX_WALLET_ADDRESS },
  );
  expect(prepared.status, JSON.stringify(prepared.body)).toBe(200);
  await page.reload();
  await expect(allowance.getByTestId("allowance-reserved")).toContainText(usd(total));

  // meanwhile the buyer lowers the agent's day limit to 1.00, below this payment (the hold stays)
  await allowance.getByRole("button", { name: "Edit" }).click();
  const edit = caps.getByRole("form", { name: /Edit allowance/ });
  await edit.getByLabel("Per day (USD)").fill("1");
  await edit.getByRole("button", { name: "Sign with your wallet" }).click();
  await expect(allowance.getByTestId("window-day")).toContainText("$1.00");

  // the buyer's wallet sends the prepared payment only after the hold ran out (both clocks move on): it still covers
  // the total, so it pays the checkout, and nothing holds room for it any more
  await moveServerClock(service!);
  await shiftClock(sandbox.url, HOLD_RUN_OUT_MS);
  const digest = await signAndSubmitOn(sandbox.url, sandboxKeypair(), prepared.body.transaction.bytes);

  // the agent comes back (its access token ran out: it refreshes it) and completes with the digest
  expect(await auth(errand.provider, { serverUrl: errand.endpoint })).toBe("AUTHORIZED");
  const current = await asAgent<Checkout>(errand, store, "GET", `/checkout-sessions/${checkout.id}`);
  const completing = Date.now();
  const completed = await asAgent<Checkout>(
    errand,
    store,
    "POST",
    `/checkout-sessions/${checkout.id}/complete`,
    {
      payment: {
        instruments: [
          { handler_id: "svc.crypto", selected: true, credential: { type: "token", token: digest } },
        ],
      },
      ap2: {
        checkout_mandate: await checkoutMandate(
          current.body as unknown as Parameters<typeof checkoutMandate>[0],
          store,
          mandateSigner,
          { now: Date.now() + HOLD_RUN_OUT_MS },
        ),
      },
    },
  );
  const answered = Date.now();
  // no room on the allowance: no order, the payment waits for the buyer at the checkout's payment link
  expect(completed.body.status, JSON.stringify(completed.body)).toBe("requires_escalation");
  expect(completed.body.messages.map((m) => m.code)).toContain("buyer_approval_required");
  expect(completed.body.order).toBeUndefined();
  const link = completed.body.continue_url!;
  expect(link).toBe(prepared.body.continue_url);

  // the buyer (signed in with the wallet of the account since the consent) opens the link
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(link);
  const main = page.getByRole("main");
  await expect(main.getByRole("heading", { level: 1, name: "Approve this payment?" })).toBeVisible();
  const text = page.getByTestId("landed-approval-text");
  await expect(text).toContainText("Summit Trail Outfitters");
  await expect(text).toContainText(AGENTS.errand);
  await expect(text).toContainText("No order has been placed");
  const value = (label: string) => main.locator(`dt:text-is("${label}") + dd`);
  await expect(value("Store")).toHaveText("Summit Trail Outfitters");
  await expect(value("Agent")).toHaveText(AGENTS.errand);
  await expect(value("Amount")).toHaveText(usd(total));
  // 24 hours after the completion found it waiting (the server's moved clock), in the reader's words and zone
  const deadline = (at: number) =>
    new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short" }).format(
      new Date(at + HOLD_RUN_OUT_MS + 24 * 60 * 60_000),
    );
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  await expect(value("Decide by")).toHaveText(
    new RegExp(`^(${escape(deadline(completing))}|${escape(deadline(answered))})$`),
  );
  await expect(main.getByRole("button", { name: "Approve and place the order" })).toBeVisible();
  await expect(main.getByRole("button", { name: "Decline: owe it back to me" })).toBeVisible();
  await everyLook(page, testInfo, "landed-approval");

  // a visitor who is not signed in, and another buyer, see what waits but cannot decide it
  const visitor = await browser.newContext();
  const signedOut = await visitor.newPage();
  await signedOut.goto(link);
  await expect(signedOut.getByRole("heading", { level: 1, name: "Approve this payment?" })).toBeVisible();
  await expect(signedOut.getByRole("main").getByRole("status")).toHaveText(
    "Sign in with your wallet to approve or decline this payment.",
  );
  await expect(signedOut.getByRole("button", { name: /Approve|Decline/ })).toHaveCount(0);
  await everyLook(signedOut, testInfo, "landed-approval-signed-out");
  await visitor.close();

  const other = await browser.newContext();
  await signInWithWallet(other.request, service!.baseUrl, keypair(7), Date.now() + HOLD_RUN_OUT_MS);
  const otherPage = await other.newPage();
  await otherPage.goto(link);
  await expect(otherPage.getByRole("main").getByRole("status")).toHaveText(
    "You are signed in with another wallet. Sign in with the wallet of the account this agent buys for.",
  );
  await expect(otherPage.getByRole("button", { name: /Approve|Decline/ })).toHaveCount(0);
  await expectAccessible(otherPage, "landed approval, another buyer");
  await shoot(otherPage, testInfo, "landed-approval-other-buyer-1280");
  await other.close();

  // the buyer approves; a second tab left open on the link approves again afterwards
  const stale = await page.context().newPage();
  await stale.goto(link);
  await page.getByRole("button", { name: "Approve and place the order" }).click();
  const receipt = page.getByTestId("receipt");
  await expect(receipt).toBeVisible();
  await expect(receipt.getByTestId("receipt-store")).toHaveText("Summit Trail Outfitters");
  const after = await call<Checkout>(store, "GET", `/checkout-sessions/${checkout.id}`);
  expect(after.status).toBe("completed");
  const orderId = after.order!.id;
  await expect(receipt.getByTestId("receipt-order-id")).toHaveText(orderId);
  await expectAccessible(page, "landed approval approved");
  await shoot(page, testInfo, "landed-approval-approved-1280");

  await stale.getByRole("button", { name: "Approve and place the order" }).click();
  await expect(stale.getByTestId("receipt-order-id")).toHaveText(orderId);
  await stale.close();
  const again = await call<Checkout>(store, "GET", `/checkout-sessions/${checkout.id}`);
  expect([again.status, again.order?.id]).toEqual(["completed", orderId]);

  // My orders lists it once
  await page.goto(`${service!.baseUrl}/account/orders`);
  await expect(page.getByTestId("my-order").filter({ hasText: orderId })).toHaveCount(1);
  await expect(page.getByTestId("my-order").filter({ hasText: orderId })).toContainText(usd(total));

  // the approval is recorded on the allowance: spent today is this payment (past the 1.00 limit: the buyer's word),
  // nothing is held any more, and the purchase is counted
  await page.goto(`${service!.baseUrl}/account/spend-caps`);
  await expect(allowance.getByTestId("window-day")).toContainText(usd(total));
  await expect(allowance.getByTestId("allowance-reserved")).toContainText("$0.00");
  // when the allowance ends, in the reader's words and zone as every time on these pages
  await expect(allowance.getByTestId("allowance-expires")).toHaveText(
    /^until [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s[AP]M$/,
  );
  await expect(caps.getByTestId("agent-purchase")).toHaveCount(1);
  await expect(caps.getByTestId("agent-purchase")).toContainText("Counted");
  await expect(caps.getByTestId("agent-purchase")).toContainText(usd(total));
  await shoot(page, testInfo, "landed-approval-spend-caps-1280");
});
