import { generateKeyPairSync, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

import { fromBase64, normalizeStructTag } from "@mysten/sui/utils";
import { expect, test, type Page } from "@playwright/test";
import type { JWK } from "jose";

import { mandateTerms } from "../../lib/mandates/mandate-terms";
import { signCheckoutMandate } from "../../lib/mandates/sign-checkout-mandate";
import { seedId, seedSuiAddress } from "../../prisma/seed/seed-ids";
import { withMandateKey } from "../helpers/card-completion";
import { expectAccessible, shoot } from "../helpers/page-checks";
import { everyLookInPlace } from "../helpers/pay-page-looks";
import { balances, touchCoins, USDC } from "../helpers/sui-sandbox";
import { registerWallet, testWallet, walletKey } from "../helpers/test-wallet";

// Wallets through dApp Kit on the crypto payment page, with Wallet Standard test wallets whose keys live in this test
// process: a wallet that registers only AFTER the page loaded is listed in the connect dialog and signs the buyer in;
// a wallet that disconnects while the payment waits on it shows the buyer what happened and charges nothing; a
// wallet that can only sign and execute pays itself on the shared server's Sui sandbox, hands the page the digest,
// and the service settles it (reading the chain) into an order. Then the faults of a wallet that signs: a signature
// over other bytes (refused, nothing charged, pay again), a price that lapses while the wallet is open (nothing
// sent, "Get a new price"), coins spent meanwhile by another payment from the same wallet (refused by the network,
// nothing charged, "Get a new price"), a double click on Pay (one payment, one order). E2E_SHOTS_DIR=<dir> also writes the
// screenshots.

const STORE = "summit-trail-outfitters";
const baseUrl = `http://127.0.0.1:${process.env.E2E_PORT}`;
const sandboxUrl = `http://127.0.0.1:${process.env.E2E_SUI_SANDBOX_PORT}`;

let profileServer: Server;
let agentProfileUrl = "";
let apiKey = "";
const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const signer = { privateJwk: privateKey.export({ format: "jwk" }) as JWK, kid: "wallets-agent" };

test.beforeAll(async () => {
  const dir = process.env.E2E_PGLITE_DIR;
  if (!dir) throw new Error("E2E_PGLITE_DIR is set by playwright.config.ts");
  apiKey = (
    JSON.parse(readFileSync(path.join(path.dirname(dir), "demo-platform-key.json"), "utf8")) as {
      key: string;
    }
  ).key;
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

type Checkout = { id: string; status: string; continue_url?: string; order?: { id: string } };

/** An agent's crypto checkout that needs the buyer: its payment link. */
const paymentLink = async (): Promise<{ id: string; link: string }> => {
  const product = await call<{
    product: { variants: { id: string; availability?: { available?: boolean } }[] };
  }>("POST", "/catalog/product", { id: seedId("product", STORE, 1) });
  const variant = product.product.variants.find((v) => v.availability?.available !== false)!;
  const instruments = [{ handler_id: "svc.crypto", selected: true }];
  const checkout = await call<Checkout & { currency: string }>("POST", "/checkout-sessions", {
    line_items: [{ item: { id: variant.id }, quantity: 1 }],
    buyer: { email: "grace@example.com", first_name: "Grace", last_name: "Hopper" },
    shipping_address: {
      line1: "1 Market St",
      city: "Denver",
      region: "CO",
      postal_code: "80202",
      country: "US",
    },
    shipping_method_id: "standard",
    payment: { instruments },
  });
  expect(checkout.status).toBe("ready_for_complete");
  const mandate = await signCheckoutMandate(mandateTerms(checkout as never, STORE), {
    ...signer,
    exp: Math.floor(Date.now() / 1000) + 600,
  });
  const escalated = await call<Checkout>("POST", `/checkout-sessions/${checkout.id}/complete`, {
    payment: { instruments },
    ap2: { checkout_mandate: mandate },
  });
  expect(escalated.status).toBe("requires_escalation");
  return { id: checkout.id, link: escalated.continue_url! };
};

const setTheme = (page: Page, theme: "light" | "dark") =>
  page.context().addCookies([{ name: "acs-theme", value: theme, url: baseUrl }]);

test("wallets through dApp Kit: a late wallet signs in, a wallet that drops charges nothing, an execute-only wallet pays; other bytes, a lapsed price and a double click charge at most once", async ({
  page,
  browser,
}, testInfo) => {
  test.setTimeout(420_000);
  const { id, link } = await paymentLink();

  // 1. the wallet registers after the page loaded: the connect dialog lists it (screenshots light and dark)
  const dropping = await testWallet(page, sandboxUrl);
  for (const theme of ["light", "dark"] as const) {
    await setTheme(page, theme);
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(link);
    await page.getByRole("button", { name: "Connect a wallet" }).click();
    const dialog = page.getByRole("dialog", { name: "Connect a Sui wallet" });
    await expect(dialog.getByRole("status")).toContainText("No Sui wallet was found");
    await registerWallet(page, "Late Wallet", dropping, "drops");
    await expect(dialog.getByRole("button", { name: "Late Wallet" })).toBeVisible();
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      await expectAccessible(page, `connect dialog ${theme} ${width}`);
      await shoot(page, testInfo, `wallets-connect-${theme}-${width}`);
    }
  }
  await page.getByRole("dialog").getByRole("button", { name: "Late Wallet" }).click();
  await expect(page.getByRole("button", { name: "Pay with your wallet" })).toBeEnabled();
  await expect(page.getByText(dropping.toSuiAddress()).first()).toBeVisible();

  // 2. it disconnects while the payment waits on it: the buyer is told, nothing is charged
  const before = await balances(sandboxUrl, dropping.toSuiAddress());
  await page.getByRole("button", { name: "Pay with your wallet" }).click();
  await expect(
    page.getByText(/Late Wallet disconnected before it signed, so nothing was charged/),
  ).toBeVisible();
  expect(await balances(sandboxUrl, dropping.toSuiAddress())).toEqual(before);
  expect((await call<Checkout>("GET", `/checkout-sessions/${id}`)).status).not.toBe("completed");

  // 3. another buyer's wallet can only sign and execute: it pays itself, the service settles its digest
  const other = await browser.newPage();
  const executing = await testWallet(other, sandboxUrl);
  await other.goto(link);
  await registerWallet(other, "Execute Wallet", executing, "executes");
  await other.getByRole("button", { name: "Connect a wallet" }).click();
  await other.getByRole("dialog").getByRole("button", { name: "Execute Wallet" }).click();
  const merchant = seedSuiAddress(STORE);
  const usdc = normalizeStructTag(USDC);
  const merchantBefore = (await balances(sandboxUrl, merchant)).get(usdc) ?? 0n;
  const buyerBefore = (await balances(sandboxUrl, executing.toSuiAddress())).get(usdc) ?? 0n;
  await other.getByRole("button", { name: "Pay with your wallet" }).click();
  await expect(other.getByText(/your order is placed/i)).toBeVisible();
  const orderId = await other.getByTestId("receipt-order-id").textContent();
  const after = await call<Checkout>("GET", `/checkout-sessions/${id}`);
  expect(after.status).toBe("completed");
  expect(after.order?.id).toBe(orderId);
  // the buyer's wallet paid the merchant (other specs pay this store too, so only "more than before" is certain)
  const paid = buyerBefore - ((await balances(sandboxUrl, executing.toSuiAddress())).get(usdc) ?? 0n);
  expect(paid).toBeGreaterThan(0n);
  expect((await balances(sandboxUrl, merchant)).get(usdc) ?? 0n).toBeGreaterThanOrEqual(
    merchantBefore + paid,
  );
  await other.close();

  // 4. a wallet that signs other bytes, then a price that lapses while the wallet is open, then a double click
  const second = await paymentLink();
  // its own context: axe (expectAccessible) needs a page made through browser.newContext()
  const thirdContext = await browser.newContext();
  const third = await thirdContext.newPage();
  const signing = await testWallet(third, sandboxUrl);
  const script: ("other-bytes" | "late")[] = ["other-bytes", "late"];
  let walletOpened = () => undefined as void;
  const opened = new Promise<void>((resolve) => (walletOpened = resolve));
  let letSign = () => undefined as void;
  const signs = new Promise<void>((resolve) => (letSign = resolve));
  await third.exposeFunction("e2eSignTransaction", async (address: string, bytes: string) => {
    const raw = fromBase64(bytes);
    const step = script.shift();
    if (step === "other-bytes") {
      const otherBytes = Uint8Array.from(raw);
      otherBytes[otherBytes.length - 1]! ^= 1;
      return { bytes, signature: (await walletKey(address).signTransaction(otherBytes)).signature };
    }
    if (step === "late") {
      walletOpened();
      await signs;
    }
    return walletKey(address).signTransaction(raw);
  });
  await third.goto(second.link);
  await registerWallet(third, "Signing Wallet", signing, "signs");
  await third.getByRole("button", { name: "Connect a wallet" }).click();
  await third.getByRole("dialog").getByRole("button", { name: "Signing Wallet" }).click();
  const payButton = third.getByRole("button", { name: "Pay with your wallet" });
  await expect(payButton).toBeEnabled();
  const start = await balances(sandboxUrl, signing.toSuiAddress());
  const stillOpen = async () => {
    expect(await balances(sandboxUrl, signing.toSuiAddress())).toEqual(start);
    expect((await call<Checkout>("GET", `/checkout-sessions/${second.id}`)).status).toBe(
      "requires_escalation",
    );
  };

  // a signature over other bytes: the service refuses it, nothing is charged, the buyer may pay again
  await payButton.click();
  const refused = third.getByRole("alert").filter({ hasText: "does not match this payment" });
  await expect(refused).toContainText("nothing was charged");
  await stillOpen();
  await expect(payButton).toBeEnabled();
  await everyLookInPlace(third, testInfo, "wallets-other-bytes");

  // the price lapses while the wallet is open: nothing is sent, "Get a new price"
  await payButton.click();
  await opened;
  await third.clock.setSystemTime(Date.now() + 11 * 60_000);
  letSign();
  await expect(third.getByRole("alert").filter({ hasText: "price expired" })).toContainText(
    "nothing was charged",
  );
  const lapsed = third.getByTestId("quote-expired");
  await expect(lapsed).toBeVisible();
  await stillOpen();
  await everyLookInPlace(third, testInfo, "wallets-price-expired");
  // a lapsed price cannot be paid: Pay waits for a new one
  await expect(payButton).toBeDisabled();
  // the buyer asks for a new price; the browser's clock then comes back to now (the countdown follows the clock
  // each second, so it is put back only once the new price is on the page)
  await lapsed.getByRole("button", { name: "Get a new price" }).click();
  await expect(third.getByRole("alert").filter({ hasText: "price expired" })).toHaveCount(0);
  await third.clock.setSystemTime(Date.now());
  await expect(third.getByTestId("quote-countdown")).toBeVisible();
  await expect(payButton).toBeEnabled();

  // another payment from the same wallet spends the quoted coins first: the network refuses these bytes, nothing is
  // charged, and the page drops them and offers a new price instead of the same bytes again
  await touchCoins(sandboxUrl, signing.toSuiAddress());
  await payButton.click();
  const spentElsewhere = third.getByRole("alert").filter({ hasText: "another payment from your wallet" });
  await expect(spentElsewhere).toContainText("Nothing was charged");
  await stillOpen();
  await expect(payButton).toBeDisabled();
  await everyLookInPlace(third, testInfo, "wallets-coins-spent");
  await spentElsewhere.getByRole("button", { name: "Get a new price" }).click();
  await expect(spentElsewhere).toHaveCount(0);
  await expect(payButton).toBeEnabled();

  // a double click on Pay: one payment, of the quoted amount, one order
  const quoted = (await third.getByTestId("crypto-leg").first().locator("span.text-base").textContent())!;
  expect(quoted).toMatch(/ USDC$/);
  const [whole, fraction = ""] = quoted.replace(/[^\d.]/g, "").split(".");
  const quotedBase = BigInt(whole!) * 1_000_000n + BigInt(fraction.padEnd(6, "0"));
  await payButton.dblclick();
  await expect(third.getByText(/your order is placed/i)).toBeVisible();
  const secondOrder = await third.getByTestId("receipt-order-id").textContent();
  const settled = await call<Checkout>("GET", `/checkout-sessions/${second.id}`);
  expect(settled.status).toBe("completed");
  expect(settled.order?.id).toBe(secondOrder);
  const spent =
    (start.get(usdc) ?? 0n) - ((await balances(sandboxUrl, signing.toSuiAddress())).get(usdc) ?? 0n);
  expect(spent, "charged once, the quoted amount").toBe(quotedBase);
  await thirdContext.close();
});
