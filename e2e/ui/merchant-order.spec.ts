import { generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

import { expect, test, type Page, type TestInfo } from "@playwright/test";
import type { JWK } from "jose";

import { seedId } from "../../prisma/seed/seed-ids";
import { runAdminProcess } from "../../scripts/lib/served-app";
import { adminLook } from "../helpers/admin-looks";
import { cardCompletionBody, withMandateKey } from "../helpers/card-completion";
import { expectAccessible, shoot } from "../helpers/page-checks";

// The order page a merchant ships from, in Chromium: an agent buys two units on a demo store by card (the demo
// platform key, the sandbox's Visa); a merchant account (made the operator, who may open every store) finds the
// order in the orders list by the buyer's email, opens it and sees the ship-to address, the money breakdown and
// "Visa •••• 4242", fulfils through the primary action and refunds part through the dialog under "More actions";
// the merchant frame's sidebar (and its menu on a phone) holds the store's sections, never the buyer's pages; the
// home page leads to the merchant and developer areas. The list, the order and the frame are photographed at 1280
// and 390 px in light and dark, each checked with axe.

const STORE = "summit-trail-outfitters";
const BASE = `http://127.0.0.1:${process.env.E2E_PORT}`;
const RUN = `${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
const BUYER_EMAIL = `grace-${RUN}@example.com`;
const THEMES = ["light", "dark"] as const;

const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const signer = { privateJwk: privateKey.export({ format: "jwk" }) as JWK, kid: "merchant-order-agent" };
let agent: Server;
let profileUrl = "";

test.beforeAll(async () => {
  const demo = (await (await fetch(`${BASE}/demo/agent/.well-known/ucp`)).json()) as object;
  const profile = JSON.stringify(
    withMandateKey(demo, {
      ...publicKey.export({ format: "jwk" }),
      kid: signer.kid,
      alg: "ES256",
      use: "sig",
    }),
  );
  agent = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "application/json" }).end(profile),
  );
  await new Promise<void>((resolve) => agent.listen(0, "127.0.0.1", resolve));
  profileUrl = `http://127.0.0.1:${(agent.address() as AddressInfo).port}/.well-known/ucp`;
});

test.afterAll(async () => {
  agent.closeAllConnections();
  await new Promise<void>((resolve) => agent.close(() => resolve()));
});

const demoKey = (): string =>
  (
    JSON.parse(
      readFileSync(path.join(path.dirname(process.env.E2E_PGLITE_DIR!), "demo-platform-key.json"), "utf8"),
    ) as { key: string }
  ).key;

/** A UCP REST call to the demo store as the agent, with the demo platform key. */
const ucp = async <T>(method: string, p: string, body?: unknown) => {
  const response = await fetch(`${BASE}/s/${STORE}${p}`, {
    method,
    headers: {
      "content-type": "application/json",
      "request-id": randomUUID(),
      "idempotency-key": randomUUID(),
      "ucp-agent": `profile="${profileUrl}"`,
      "x-api-key": demoKey(),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return (await response.json()) as T;
};

type Checkout = { id: string; status: string; messages: unknown[]; order?: { id: string } };

/** The agent buys two units of an in-stock demo product by card (the sandbox's Visa 4242). */
const buyByCard = async (): Promise<string> => {
  let variantId: string | undefined;
  for (let i = 0; i < 20 && !variantId; i++) {
    const { product } = await ucp<{
      product?: { variants: { id: string; availability?: { available?: boolean } }[] };
    }>("POST", "/catalog/product", { id: seedId("product", STORE, i) });
    variantId = product?.variants.find((v) => v.availability?.available !== false)?.id;
  }
  expect(variantId, "an in-stock demo variant").toBeTruthy();
  const checkout = await ucp<Checkout>("POST", "/checkout-sessions", {
    line_items: [{ item: { id: variantId }, quantity: 2 }],
    buyer: { email: BUYER_EMAIL, first_name: "Grace", last_name: "Hopper" },
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
  const done = await ucp<Checkout>(
    "POST",
    `/checkout-sessions/${checkout.id}/complete`,
    await cardCompletionBody(checkout, STORE, signer, "pm_card_visa"),
  );
  expect(done.status, JSON.stringify(done.messages)).toBe("completed");
  return done.order!.id;
};

/** The page in both themes at both widths: no sideways scrolling, a screenshot, axe. */
const look = (page: Page, testInfo: TestInfo, name: string) => adminLook(page, testInfo, `merchant-${name}`);

test("a merchant ships and refunds an agent's card order from the order page, in the merchant frame", async ({
  page,
}, testInfo) => {
  // a guard against a hang, not a speed check: ten screenshots with axe on a loaded 2-core machine
  test.setTimeout(420_000);
  const orderId = await buyByCard();
  const orderNumber = `#${orderId.replace(/^ord_/, "").slice(0, 8)}`;

  // the home page leads a signed-out visitor to the merchant and developer areas
  await page.goto(`${BASE}/`);
  await expect(page.getByRole("link", { name: "Merchant admin" })).toHaveAttribute("href", "/admin");
  await expect(page.getByRole("link", { name: "Developer area" })).toHaveAttribute("href", "/developers");

  // a merchant account, made the operator (who may open every store, the demo store included)
  const email = `merchant-order-${RUN}@example.com`;
  await page.goto(`${BASE}/admin/sign-up`);
  await page.getByLabel("Your name").fill("Mo Merchant");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("a long enough passphrase");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("heading", { name: "Your stores" })).toBeVisible({ timeout: 15_000 });
  const made = await runAdminProcess(["make-operator", "--email", email], {
    PGLITE_DIR: process.env.E2E_PGLITE_DIR,
    DATABASE_URL: undefined,
    DEMO_KEY_FILE: path.join(path.dirname(process.env.E2E_PGLITE_DIR!), "demo-platform-key.json"),
  });
  expect(made.code, made.output).toBe(0);

  // the frame is around the pages above every store too: no store's sections there until a store is chosen
  await page.goto(`${BASE}/admin/operator`);
  const sidebar = page.getByRole("complementary", { name: "Merchant admin" });
  await expect(sidebar.getByRole("link", { name: "Operator" })).toHaveAttribute("aria-current", "page");
  await expect(sidebar.getByRole("navigation", { name: "Store sections" })).toHaveCount(0);
  await expect(sidebar.getByRole("button", { name: /Choose a store.*switch store/ })).toBeVisible();
  await look(page, testInfo, "operator");

  // the orders list, found by the buyer's email: the buyer's name, not an id
  await page.goto(`${BASE}/admin/stores/${STORE}`);
  await expect(sidebar.getByRole("button", { name: /Summit Trail Outfitters.*switch store/ })).toBeVisible();
  await expect(sidebar.getByRole("link", { name: "Developer area" })).toBeVisible();
  await expect(page.getByRole("link", { name: "My orders" })).toHaveCount(0);
  await sidebar
    .getByRole("navigation", { name: "Store sections" })
    .getByRole("link", { name: "Orders" })
    .click();
  await page.getByLabel("Search").fill(BUYER_EMAIL);
  await page.getByRole("button", { name: "Filter" }).click();
  const row = page
    .getByRole("table", { name: "Orders" })
    .getByRole("row")
    .filter({ hasText: "Grace Hopper" });
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(orderNumber);
  await expect(row).toContainText("Card");
  await look(page, testInfo, "orders");

  // the order: ship-to, breakdown, the card that paid
  await row.getByRole("link", { name: `Order ${orderNumber}` }).click();
  await expect(page.getByRole("heading", { name: `Order ${orderNumber}`, level: 1 })).toBeVisible();
  await expect(page.getByTestId("order-id")).toHaveText(orderId);
  const address = page.getByTestId("ship-to");
  await expect(address).toContainText("Grace Hopper");
  await expect(address).toContainText("1 Market St");
  await expect(address).toContainText("Denver, CO 80202");
  const breakdown = page.getByTestId("order-breakdown");
  for (const row of ["Subtotal", "Shipping", "Total", "Paid · Visa •••• 4242"]) {
    await expect(breakdown.getByRole("term").filter({ hasText: new RegExp(`^${row}`) })).toHaveCount(1);
  }
  await expect(page.getByText("Visa •••• 4242", { exact: true })).toBeVisible();
  await expect(page.getByText("0 of 2 shipped.")).toBeVisible();
  await look(page, testInfo, "order");

  // fulfil through the primary action
  await page.getByRole("button", { name: "Fulfil items" }).click();
  const fulfil = page.getByRole("dialog", { name: "Fulfil items" });
  await fulfil.getByLabel("Carrier").fill("UPS");
  await fulfil.getByLabel("Tracking number").fill("1Z999AA10123456784");
  await fulfil.getByRole("button", { name: "Mark as shipped" }).click();
  await expect(fulfil).toHaveCount(0);
  await expect(page.getByText("2 of 2 shipped.")).toBeVisible();
  const timeline = page.getByRole("list", { name: "Timeline" });
  await expect(timeline.getByRole("listitem").filter({ hasText: /^2 items shipped/ })).toContainText(
    "UPS · 1Z999AA10123456784",
  );
  await expect(page.getByRole("button", { name: "Fulfil items" })).toHaveCount(0);

  // refund part through the dialog under "More actions"
  await page.getByRole("button", { name: "More actions" }).click();
  await page.getByRole("menuitem", { name: /^Refund/ }).click();
  const refund = page.getByRole("dialog", { name: "Refund" });
  await refund.getByLabel(/^Amount/).fill("2.50");
  await refund.getByRole("button", { name: "Refund", exact: true }).click();
  await expect(refund).toHaveCount(0);
  await expect(page.getByText(/Refund of \$2\.50 (paid back|on its way back)\./).first()).toBeVisible();
  await expect(
    timeline.getByRole("listitem").filter({ hasText: /^Refund (paid back|on its way back) · \$2\.50/ }),
  ).toHaveCount(1);
  // the timeline in words and in true order
  const steps = await timeline.getByRole("listitem").allInnerTexts();
  const at = (title: string) => steps.findIndex((s) => s.startsWith(title));
  expect(at("Order placed")).toBeGreaterThanOrEqual(0);
  expect(at("Order placed")).toBeLessThan(at("Payment captured"));
  expect(at("Payment captured")).toBeLessThan(at("2 items shipped"));
  expect(at("2 items shipped")).toBeLessThan(at("Refund"));

  // the agent asks for a refund; the demo store leaves every refund request to the merchant, who declines one
  // with a reason the agent reads and approves the next
  const askRefund = (amount: number, reason: string) =>
    ucp<{ requests?: { status: string; decline_reason?: string }[] }>(
      "POST",
      `/orders/${orderId}/refund-requests`,
      { amount, reason },
    );
  expect((await askRefund(500, "One lantern arrived cracked")).requests?.at(-1)?.status).toBe("pending");
  // the orders list flags it
  await page.goto(`${BASE}/admin/stores/${STORE}/orders?q=${encodeURIComponent(BUYER_EMAIL)}`);
  await expect(
    page.getByRole("table", { name: "Orders" }).getByRole("row").filter({ hasText: "Grace Hopper" }),
  ).toContainText("Refund requested");
  await page.goBack();
  await page.reload();
  const request = page.getByRole("region", { name: "Request from the agent" });
  await expect(request.getByRole("heading")).toHaveText("Refund requested: $5.00");
  await expect(request).toContainText("By demo,");
  await expect(request).toContainText("“One lantern arrived cracked”");
  await expect(request).toContainText("If you approve, $5.00 goes back to the buyer (Visa •••• 4242).");
  await look(page, testInfo, "order-request");
  await request.getByRole("button", { name: "Decline…" }).click();
  const decline = page.getByRole("dialog", { name: "Decline the request" });
  await decline.getByRole("button", { name: "Decline", exact: true }).click();
  await expect(decline).toContainText("A decline needs a reason the agent can pass on (1–500 characters)");
  await decline.getByLabel("Reason for the buyer").fill("Please send a photo of the crack first");
  await decline.getByRole("button", { name: "Decline", exact: true }).click();
  await expect(decline).toHaveCount(0);
  await expect(request).toHaveCount(0);
  await expect(timeline.getByRole("listitem").filter({ hasText: /^Refund request declined/ })).toContainText(
    "Please send a photo of the crack first",
  );
  const declined = await ucp<{ requests?: { status: string; decline_reason?: string }[] }>(
    "GET",
    `/orders/${orderId}`,
  );
  expect(declined.requests?.at(-1)).toMatchObject({
    status: "declined",
    decline_reason: "Please send a photo of the crack first",
  });
  expect((await askRefund(300, "Photo sent: the glass is cracked")).requests?.at(-1)?.status).toBe("pending");
  await page.reload();
  await request.getByRole("button", { name: "Approve" }).click();
  const approve = page.getByRole("dialog", { name: "Approve the request?" });
  await expect(approve).toContainText("$3.00 goes back to the buyer");
  await approve.getByRole("button", { name: "Approve" }).click();
  await expect(approve).toHaveCount(0);
  await expect(page.getByText("Request approved: $3.00 goes back to the buyer.").first()).toBeVisible();
  await expect(
    timeline.getByRole("listitem").filter({ hasText: /^Refund (paid back|on its way back) · \$3\.00/ }),
  ).toHaveCount(1);
  await expect(
    timeline.getByRole("listitem").filter({ hasText: /^Refund requested by the agent/ }),
  ).toHaveCount(2);

  // the frame on a phone: the sidebar folds into the store menu
  await page.setViewportSize({ width: 390, height: 900 });
  await expect(sidebar).toBeHidden();
  await page.getByRole("button", { name: "Menu", exact: true }).click();
  const menu = page.getByRole("dialog", { name: "Store menu" });
  await expect(menu.getByRole("navigation", { name: "Store sections" }).getByRole("link")).toHaveCount(9);
  await expect(menu.getByRole("link", { name: "Developer area" })).toBeVisible();
  await expect(menu.getByRole("link", { name: "Spend caps" })).toHaveCount(0);
  for (const theme of THEMES) {
    await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
    await shoot(page, testInfo, `merchant-frame-menu-${theme}-390`, "admin");
    await expectAccessible(page, `frame menu ${theme} 390`);
  }
});
