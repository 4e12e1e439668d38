import { generateKeyPairSync, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

import { normalizeStructTag } from "@mysten/sui/utils";
import { expect, test } from "@playwright/test";
import type { JWK } from "jose";

import { SANDBOX_WALLET_ADDRESS } from "../../lib/buyers/sandbox-wallet";
import { mandateTerms } from "../../lib/mandates/mandate-terms";
import { signCheckoutMandate } from "../../lib/mandates/sign-checkout-mandate";
import { seedId, seedSuiAddress } from "../../prisma/seed/seed-ids";
import { withMandateKey } from "../helpers/card-completion";
import { everyLook } from "../helpers/pay-page-looks";
import { balances, fund, SUI, USDC } from "../helpers/sui-sandbox";

// The buyer's wallet page in Chromium: an agent (this test, with the demo platform key) creates a crypto checkout and
// completes it without a digest, so it answers requires_escalation with continue_url; the buyer opens it, signs in
// with the sandbox wallet, sees the quote, switches coin, pays with the built-in test wallet and sees the order.
// It runs on the shared server; that server's Sui sandbox listens where playwright.config.ts says, so the spec funds
// the test wallet through the sandbox's admin hook and reads the merchant's balance on the same chain.
// E2E_SHOTS_DIR=<dir> also writes the screenshots there as PNG files.

const STORE = "summit-trail-outfitters";
const N_SUI = 1_000_000_000n;

test.describe.configure({ mode: "serial" });

let profileServer: Server;
let agentProfileUrl = "";
let apiKey = "";
const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const signer = { privateJwk: privateKey.export({ format: "jwk" }) as JWK, kid: "wallet-page-agent" };
const baseUrl = `http://127.0.0.1:${process.env.E2E_PORT}`;
// the shared server's Sui sandbox (playwright.config.ts chooses its port)
const sandbox = { url: `http://127.0.0.1:${process.env.E2E_SUI_SANDBOX_PORT}` };

test.beforeAll(async () => {
  const dir = process.env.E2E_PGLITE_DIR;
  if (!dir) throw new Error("E2E_PGLITE_DIR is set by playwright.config.ts");
  apiKey = (
    JSON.parse(readFileSync(path.join(path.dirname(dir), "demo-platform-key.json"), "utf8")) as {
      key: string;
    }
  ).key;
  // the built-in test wallet's sandbox coins (test-only, through the sandbox's admin hook; npm start funds it too)
  await fund(sandbox.url, SANDBOX_WALLET_ADDRESS, USDC, [5_000_000_000n]); // 5 000 USDC: any demo item
  await fund(sandbox.url, SANDBOX_WALLET_ADDRESS, SUI, [5_000n * N_SUI, 10n * N_SUI]);
  const demo = (await (await fetch(`${baseUrl}/demo/agent/.well-known/ucp`)).json()) as object;
  const profile = JSON.stringify(
    withMandateKey(demo, {
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

test.afterAll(() => {
  profileServer?.close();
});

type Checkout = {
  id: string;
  status: string;
  currency: string;
  continue_url?: string;
  order?: { id: string };
  messages: { code?: string; content: string }[];
  line_items: { item: { id: string; price: number }; quantity: number }[];
  totals: { type: string; amount: number }[];
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

test("the buyer signs in with the sandbox wallet, sees the quote, switches coin, pays with the test wallet, sees the order", async ({
  page,
}, testInfo) => {
  test.setTimeout(420_000);
  const product = await call<{
    product: { variants: { id: string; availability?: { available?: boolean } }[] };
  }>("POST", "/catalog/product", { id: seedId("product", STORE, 0) });
  const variant = product.product.variants.find((v) => v.availability?.available !== false)!;
  const checkout = await call<Checkout>("POST", "/checkout-sessions", {
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
  const mandate = await signCheckoutMandate(mandateTerms(checkout, STORE), {
    ...signer,
    exp: Math.floor(Date.now() / 1000) + 600,
  });
  const escalated = await call<Checkout>("POST", `/checkout-sessions/${checkout.id}/complete`, {
    payment: { instruments: [{ handler_id: "svc.crypto", selected: true }] },
    ap2: { checkout_mandate: mandate },
  });
  expect(escalated.status, JSON.stringify(escalated.messages)).toBe("requires_escalation");
  const link = escalated.continue_url!;
  expect(link).toContain(`/s/${STORE}/pay/`);

  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(link);
  await expect(page.getByRole("heading", { level: 1, name: "Pay Summit Trail Outfitters" })).toBeVisible();
  await expect(page.getByTestId("pay-line")).toHaveCount(1);
  await expect(page.getByTestId("pay-ship-to")).toContainText("1 Market St");
  await expect(page.getByTestId("pay-email")).toHaveText("ada@example.com");
  await everyLook(page, testInfo, "crypto-wallet-signed-out");
  await page.getByRole("button", { name: "Sign in with the sandbox wallet (test mode)" }).click();

  // signed in: the quote of the prepared payment (auto pays USDC first in this store)
  const legs = page.getByTestId("crypto-leg");
  // the page prepares the quote as it renders for the signed-in wallet (slow on a loaded machine)
  await expect(legs).toHaveCount(1, { timeout: 30_000 });
  await expect(legs.first()).toContainText("USDC");
  // each coin with its value in the store's currency and the rate used, the fee in money, a live countdown
  await expect(legs.first().getByTestId("crypto-leg-fiat")).toHaveText(/^≈ \$\d/);
  await expect(legs.first().getByTestId("crypto-leg-rate")).toHaveText(/^1 USDC = \$1\.00 \(/);
  await expect(page.getByTestId("crypto-fee")).toContainText(/at most [\d.]+ SUI \(≈ \$\d+\.\d\d\)/);
  const countdown = page.getByTestId("quote-countdown").getByRole("timer");
  await expect(countdown).toHaveText(/^\d+:\d\d$/);
  const first = await countdown.textContent();
  await expect(countdown).not.toHaveText(first!);
  // written to the buyer: nothing tells an agent what it must not do
  await expect(page.getByRole("main")).not.toContainText(/must not|your agent should/i);
  await expect(page.getByRole("button", { name: "Pay with the test wallet" })).toBeEnabled();
  await expect(page.getByRole("button", { name: "Pay with the test wallet" })).toContainText(
    (await page.getByTestId("pay-total").textContent())!,
  );
  await everyLook(page, testInfo, "crypto-wallet-quote");

  // switch to SUI: a new prepare
  await page.getByRole("radio", { name: "SUI" }).check();
  // choosing the coin asks for the new quote at once (no separate button)
  await expect(page.getByRole("button", { name: /update quote/i })).toHaveCount(0);
  await expect(legs.first()).toContainText(" SUI");
  await expect(legs.first().getByTestId("crypto-leg-rate")).toHaveText(/^1 SUI = \$\d+\.\d\d \(/);
  await expect(legs.first()).not.toContainText("USDC");
  const quoted = (await legs.first().locator("span.text-base").textContent())!.replace(/[^\d.]/g, "");
  const merchant = seedSuiAddress(STORE);
  const before = (await balances(sandbox.url, merchant)).get(normalizeStructTag(SUI)) ?? 0n;

  await page.getByRole("button", { name: "Pay with the test wallet" }).click();
  await expect(page.getByText(/your order is placed/i)).toBeVisible();
  const orderId = await page.getByTestId("receipt-order-id").textContent();
  expect(orderId).toMatch(/^ord_/);
  await expect(page.getByRole("main").getByRole("link", { name: "My orders" })).toHaveAttribute(
    "href",
    "/account/orders",
  );
  await expect(page.getByText(/nothing more to pay/)).toBeVisible();
  // how it was paid: the coins as quoted and the transaction; no explorer link for the sandbox chain
  const paidWith = page.getByTestId("receipt-paid-with");
  await expect(paidWith).toContainText(`${quoted} SUI`);
  await expect(paidWith.getByTestId("receipt-transaction")).toBeVisible();
  await expect(paidWith.getByRole("link")).toHaveCount(0);
  await everyLook(page, testInfo, "crypto-wallet-paid");

  const after = await call<Checkout>("GET", `/checkout-sessions/${checkout.id}`);
  expect(after.status).toBe("completed");
  expect(after.order?.id).toBe(orderId);
  // the merchant received exactly the quoted SUI (whole units and fraction digits, as shown)
  const [whole, fraction = ""] = quoted.split(".");
  const quotedBase = BigInt(whole!) * N_SUI + BigInt(fraction.padEnd(9, "0"));
  const received = ((await balances(sandbox.url, merchant)).get(normalizeStructTag(SUI)) ?? 0n) - before;
  expect(received).toBe(quotedBase);
});
