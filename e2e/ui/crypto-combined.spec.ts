import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { normalizeStructTag } from "@mysten/sui/utils";
import { expect, test, type Page } from "@playwright/test";

import { SANDBOX_WALLET_ADDRESS } from "../../lib/buyers/sandbox-wallet";
import { seedId, seedSuiAddress } from "../../prisma/seed/seed-ids";
import { startSuiSandbox, type SuiSandbox } from "../../sandbox/sui/server";
import { adminSocketPath, runThroughServer } from "../../scripts/lib/admin-socket";
import { findFreePort } from "../../scripts/lib/free-port";
import { startServedApp, type ServedApp } from "../../scripts/lib/served-app";
import { expectAccessible, shoot } from "../helpers/page-checks";
import { everyLook } from "../helpers/pay-page-looks";
import { balances, fund, SUI, USDC } from "../helpers/sui-sandbox";
import { installWallet, testWallet } from "../helpers/test-wallet";

// A combined crypto payment in Chromium: the buyer links an agent (consent with the sandbox wallet), the agent
// creates one checkout in each of three stores with the demo platform key and calls prepare_combined_payment on
// /account/mcp with the buyer's bearer; the buyer opens its continue_url, sees the three stores and the whole
// quote, signs ONCE with the test wallet, and the three checkouts get their orders. The buyer first signs an
// allowance for the agent on the spend-cap page: the prepare reserves the group's total on it once, and the three
// orders debit it (the page then shows the total as spent today, nothing reserved). Own served instance with a Sui
// sandbox started here (as crypto-wallet.spec.ts), so the test wallet is funded and merchant balances are read.

const STORES = ["summit-trail-outfitters", "voltage-electronics", "urban-thread-apparel"];
const N_SUI = 1_000_000_000n;

test.describe.configure({ mode: "serial" });

let sandbox: SuiSandbox;
let service: ServedApp | undefined;
let agent: Server;
let origin = "";
let apiKey = "";
let tempDir = "";
let pgliteDir = "";

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
  agent = createServer((req, res) => {
    const p = (req.url ?? "/").split("?")[0];
    if (p === "/agent/client.json") {
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          client_id: `${origin}/agent/client.json`,
          client_name: "Combined Agent",
          redirect_uris: [`${origin}/agent/callback`],
        }),
      );
    } else if (p === "/agent/callback") {
      res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>agent</title><p>ok</p>");
    } else if (p === "/agent/profile") {
      void fetch(`${service!.baseUrl}/demo/agent/.well-known/ucp`)
        .then((r) => r.text())
        .then((body) => res.writeHead(200, { "content-type": "application/json" }).end(body));
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

type Checkout = { id: string; status: string; messages: { content: string }[]; order?: { id: string } };

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

const usd = (minor: number) =>
  new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(minor / 100);

/**
 * The buyer links the agent: OAuth consent in the page, `signIn` signing the buyer in there, then Allow; the limit
 * step after it is skipped unless `limit` signs one. Answers the agent's OAuth provider, holding its tokens.
 */
const linkAgent = async (
  page: Page,
  signIn: () => Promise<void>,
  limit?: () => Promise<void>,
): Promise<OAuthClientProvider> => {
  const box: { tokens?: OAuthTokens; verifier?: string; url?: URL } = {};
  const provider: OAuthClientProvider = {
    get redirectUrl() {
      return `${origin}/agent/callback`;
    },
    get clientMetadata() {
      return {
        client_name: "Combined Agent",
        redirect_uris: [`${origin}/agent/callback`],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      };
    },
    clientInformation: () => ({ client_id: `${origin}/agent/client.json` }),
    tokens: () => box.tokens,
    saveTokens: (tokens) => {
      box.tokens = tokens;
    },
    redirectToAuthorization: (url) => {
      box.url = url;
    },
    saveCodeVerifier: (verifier) => {
      box.verifier = verifier;
    },
    codeVerifier: () => box.verifier!,
  };
  const transport = new StreamableHTTPClientTransport(new URL("/account/mcp", service!.baseUrl), {
    authProvider: provider,
  });
  await new Client({ name: "agent", version: "1.0.0" }).connect(transport).catch(() => undefined);
  await page.goto(box.url!.href);
  await signIn();
  await page.getByRole("button", { name: "Allow" }).click();
  // the limit step (DECISIONS B20) comes next
  if (limit) await limit();
  else await page.getByRole("button", { name: "Skip" }).click();
  await page.waitForURL((url) => url.href.startsWith(`${origin}/agent/callback`));
  await transport.finishAuth(new URL(page.url()).searchParams.get("code")!);
  return provider;
};

type Prepared = {
  continue_url: string;
  checkouts: { store_slug: string; total: number; legs: { amount: string }[] }[];
};

/** The agent's prepare_combined_payment over /account/mcp with the buyer's bearer, for the buyer's address. */
const prepareCombined = async (
  provider: OAuthClientProvider,
  checkouts: Checkout[],
  buyerAddress: string,
): Promise<Prepared> => {
  const client = new Client({ name: "agent", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/account/mcp", service!.baseUrl), { authProvider: provider }),
  );
  const answer = (await client.callTool({
    name: "prepare_combined_payment",
    arguments: {
      checkouts: STORES.map((store, i) => ({ store_slug: store, checkout_id: checkouts[i]!.id })),
      buyer_address: buyerAddress,
    },
  })) as { isError?: boolean; structuredContent?: Record<string, unknown> };
  await client.close();
  expect(answer.isError, JSON.stringify(answer)).toBeFalsy();
  return answer.structuredContent as Prepared;
};

test("a combined payment for three stores is signed once on the wallet page; each store gets its order", async ({
  page,
}, testInfo) => {
  test.setTimeout(420_000);
  const checkouts = await Promise.all(STORES.map(checkoutIn));

  // the buyer links the agent (consent, signing in with the sandbox wallet)
  const provider = await linkAgent(page, async () => {
    await page.getByRole("button", { name: /sandbox wallet/ }).click();
  });

  // the buyer gives the agent an allowance on the spend-cap page (signed with the sandbox wallet): 1,000.00 a day
  await page.goto(`${service!.baseUrl}/account/spend-caps`);
  const caps = page.getByTestId("agent-caps").filter({ hasText: "Combined Agent" });
  await caps.getByRole("button", { name: "New allowance" }).click();
  const form = caps.getByRole("form", { name: /New allowance/ });
  await form.getByLabel("Per day (USD)").fill("1000");
  await form.getByRole("button", { name: "Sign with your wallet" }).click();
  await expect(caps.getByTestId("allowance")).toHaveCount(1);

  const prepared = await prepareCombined(provider, checkouts, SANDBOX_WALLET_ADDRESS);
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
  const provider = await linkAgent(
    page,
    async () => {
      await page.getByRole("button", { name: "Connect a wallet" }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Execute Wallet" }).click();
      await expect(page.getByTestId("buyer-address")).toHaveText(address);
    },
    async () => {
      const form = page.getByRole("form", { name: "New allowance for Combined Agent" });
      await form.getByLabel("Per day (USD)").fill("1000");
      await form.getByRole("button", { name: "Sign with your wallet" }).click();
    },
  );
  await page.goto(`${service!.baseUrl}/account/spend-caps`);
  const caps = page.getByTestId("agent-caps").filter({ hasText: "Combined Agent" });
  await expect(caps.getByTestId("allowance")).toHaveCount(1);

  const prepared = await prepareCombined(provider, checkouts, address);
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
