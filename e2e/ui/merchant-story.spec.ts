import { generateKeyPairSync, randomBytes, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { expect, test, type APIRequestContext, type Page, type TestInfo } from "@playwright/test";
import type { JWK } from "jose";

import { adminLook } from "../helpers/admin-looks";
import { cardCompletionBody, withMandateKey, type MandateSigner } from "../helpers/card-completion";

// The whole merchant story in Chromium, on a store made through the UI: a merchant signs up, creates a store, adds
// a shipping rate, imports a CSV of 1,000 products (and 3 bad rows: the report names each), keeps cards on the
// sandbox (test mode) and turns on crypto, points order webhooks at a receiver this spec runs; a developer signs
// up in another browser and creates a platform key; an agent buys through the REST API with that key; the
// merchant finds the order, reads the buyer's confirmation email, ships it, refunds part (a refused amount
// first), sees each event in the webhook log (and the receiver really got them), and the sale on the dashboard.
// The main pages are photographed at 1280 and 390 px in light and dark and checked with axe; a dashboard row opens
// the orders behind it.

const RUN = `${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
const PASSWORD = "a long enough passphrase";
const BUYER_EMAIL = `buyer-${RUN}@example.com`;
const TRACKING = "1Z999AA10123456784";

const look = (page: Page, testInfo: TestInfo, name: string) => adminLook(page, testInfo, `story-${name}`);

const signUp = async (page: Page, name: string, email: string) => {
  await page.goto("/admin/sign-up");
  await page.getByLabel("Your name").fill(name);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  // a hang guard, not a speed check: sign-up then signs in through next-auth (four requests, each route cold on
  // a fresh server) before the admin opens
  await expect(page.getByRole("heading", { name: "Your stores" })).toBeVisible({ timeout: 15_000 });
};

const catalogCsv = (): string => {
  const rows = ["handle,title,description,variant_title,sku,price,inventory,categories,tags,image_urls"];
  for (let i = 1; i <= 1000; i++) {
    rows.push(
      `item-${i},Imported item ${i},"Made in batch, number ${i}",Default,IMP-${i},${i % 90}.${String(i % 100).padStart(2, "0")},${(i % 12) + 1},Home > Things,bulk|n${i % 5},https://cdn.example.com/items/${i}.jpg`,
    );
  }
  rows.push("bad-1,Too precise,,Default,BAD-1,3.999,1,,,");
  rows.push("bad-2,,,Default,BAD-2,3,1,,,");
  rows.push("bad-3,Bad image,,Default,BAD-3,3,1,,,ftp://example.com/x.jpg");
  return rows.join("\r\n");
};

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

type Checkout = {
  id: string;
  status: string;
  messages: unknown[];
  fulfillment?: { methods?: { groups?: { options?: { id: string }[] }[] }[] };
};

/**
 * An agent buys one unit of SKU IMP-42 with the developer's platform key on the card rail: create the checkout
 * with the buyer and address, pick the first shipping option offered, complete with a sandbox card token and a
 * signed mandate. Returns the order id.
 */
const buy = async (
  request: APIRequestContext,
  store: string,
  apiKey: string,
  agentProfile: string,
  signer: MandateSigner,
) => {
  const headers = () => ({
    "request-id": randomUUID(),
    "ucp-agent": `profile="${agentProfile}"`,
    "x-api-key": apiKey,
    "idempotency-key": randomUUID(),
  });
  const lookup = await request.post(`/s/${store}/catalog/lookup`, {
    headers: headers(),
    data: { ids: ["IMP-42"] },
  });
  expect(lookup.status(), await lookup.text()).toBe(200);
  const found = (await lookup.json()) as { products: { variants: { id: string }[] }[] };
  const variantId = found.products[0]!.variants[0]!.id;
  const created = await request.post(`/s/${store}/checkout-sessions`, {
    headers: headers(),
    data: {
      line_items: [{ item: { id: variantId }, quantity: 1 }],
      buyer: { email: BUYER_EMAIL, first_name: "Ada", last_name: "Lovelace" },
      shipping_address: {
        line1: "1 Market St",
        city: "Denver",
        region: "CO",
        postal_code: "80202",
        country: "US",
      },
      payment: { instruments: [{ handler_id: "svc.card", selected: true }] },
    },
  });
  const checkout = (await created.json()) as Checkout;
  expect(created.status(), JSON.stringify(checkout)).toBeLessThan(300);
  const option = checkout.fulfillment?.methods?.[0]?.groups?.[0]?.options?.[0];
  expect(option, JSON.stringify(checkout.fulfillment)).toBeTruthy();
  const updated = (await (
    await request.put(`/s/${store}/checkout-sessions/${checkout.id}`, {
      headers: headers(),
      data: { shipping_method_id: option!.id },
    })
  ).json()) as Checkout;
  expect(updated.status, JSON.stringify(updated.messages)).toBe("ready_for_complete");
  const done = (await (
    await request.post(`/s/${store}/checkout-sessions/${checkout.id}/complete`, {
      headers: headers(),
      data: await cardCompletionBody(updated, store, signer, "pm_card_visa"),
    })
  ).json()) as { status: string; order?: { id: string }; messages: unknown[] };
  expect(done.status, JSON.stringify(done.messages)).toBe("completed");
  return done.order!.id;
};

test("the merchant story: sign up, store, 1,000-product import, rails, webhooks, a developer's key, an agent's order, mail, fulfil, refund, webhook log, dashboard", async ({
  page,
  browser,
  request,
}, testInfo) => {
  // a guard against a hang, not a speed check: the whole story took 114 s on a slow 2-core CI machine
  test.setTimeout(240_000);
  // the merchant's webhook receiver, and the agent's profile publishing its mandate key
  const received: { id: string; body: string }[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req
      .on("data", (c: Buffer) => chunks.push(c))
      .on("end", () => {
        received.push({ id: String(req.headers["webhook-id"]), body: Buffer.concat(chunks).toString() });
        res.writeHead(200).end("ok");
      });
  });
  const hookUrl = `${await listen(receiver)}/hooks`;
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const kid = "e2e-story-agent";
  const base = (await (await request.get("/demo/agent/.well-known/ucp")).json()) as Record<string, unknown>;
  const profile = JSON.stringify(
    withMandateKey(base, { ...publicKey.export({ format: "jwk" }), kid, alg: "ES256", use: "sig" }),
  );
  const profileServer = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "application/json" }).end(profile),
  );
  const agentProfile = `${await listen(profileServer)}/.well-known/ucp`;
  const developer = await browser.newContext({ baseURL: testInfo.project.use.baseURL });
  try {
    // the merchant and a new store
    const slug = `story-${RUN}`;
    await signUp(page, "Mona Merchant", `merchant-${RUN}@example.com`);
    await page.getByRole("link", { name: "Create a store" }).click();
    await page.getByLabel("Store name").fill("Story Lamps");
    await page.getByLabel("Address").fill(slug);
    await page.getByRole("button", { name: "Create store" }).click();
    await expect(page).toHaveURL(new RegExp(`/admin/stores/${slug}$`));
    await expect(page.getByRole("heading", { name: "Story Lamps" })).toBeVisible();
    const nav = page.getByRole("navigation", { name: "Store sections" });

    // a shipping rate, so the agent has an option to pick
    await nav.getByRole("link", { name: "Settings" }).click();
    await page.getByLabel("Country", { exact: true }).first().selectOption("US");
    await page.getByLabel("Price (USD)").fill("5.99");
    await page.getByRole("button", { name: "Add shipping rate" }).click();
    await expect(page.getByRole("table", { name: "Shipping rates" })).toContainText("$5.99");

    // 1,000 products (and 3 bad rows) from a CSV, with a progress bar and a report
    await nav.getByRole("link", { name: "Catalog" }).click();
    await page.getByRole("link", { name: "Import CSV or JSON" }).click();
    await page.getByLabel("Catalog file").setInputFiles({
      name: "catalog.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(catalogCsv()),
    });
    const started = Date.now();
    await page.getByRole("button", { name: "Import" }).click();
    const bar = page.getByRole("progressbar");
    await expect(bar).toBeVisible({ timeout: 15_000 });
    // seen while the server is still writing (the figures move as batches finish)
    await expect(page.getByText("Importing…")).toBeVisible();
    await expect(page.getByText("Import finished")).toBeVisible({ timeout: 60_000 });
    const seconds = (Date.now() - started) / 1000;
    testInfo.annotations.push({ type: "import of 1,003 rows", description: `${seconds.toFixed(1)} s` });
    expect(seconds).toBeLessThan(60);
    await expect(bar).toHaveAttribute("aria-valuenow", "1003");
    await expect(page.getByText("1003 of 1003 checked · 1000 imported · 3 rejected rows")).toBeVisible();
    const report = page.getByRole("table", { name: "Rejected rows" });
    await expect(report.getByRole("row")).toHaveCount(4);
    await expect(report.getByRole("row").nth(1)).toContainText("1002");
    await expect(report.getByRole("row").nth(1)).toContainText("USD has 2 decimals: 3.999 has 3");
    await expect(report.getByRole("row").nth(2)).toContainText("title");
    await expect(report.getByRole("row").nth(3)).toContainText("image_urls");
    await look(page, testInfo, "import-report");
    await page.getByRole("link", { name: "Back to the catalog" }).click();
    await expect(page.getByText("1000 products")).toBeVisible();
    await page.getByLabel("Search products").fill("IMP-777");
    await page.getByRole("button", { name: "Search" }).click();
    await expect(page.getByRole("table", { name: "Products" }).getByRole("link")).toHaveText([
      "Imported item 777",
    ]);
    await look(page, testInfo, "catalog");

    // both rails: cards on the sandbox while the store is in test mode, and crypto
    await nav.getByRole("link", { name: "Payments" }).click();
    await expect(page.getByRole("heading", { name: "Payments", level: 1 })).toBeVisible();
    await expect(page.getByText("Test mode", { exact: true }).first()).toBeVisible();
    await expect(page.getByTestId("test-cards")).toBeVisible();
    await page.getByLabel("Accept crypto payments").check();
    await page.getByRole("checkbox", { name: "USDC", exact: true }).check();
    await page.getByRole("checkbox", { name: "SUI", exact: true }).check();
    await page.getByLabel("Payout address").fill(`0x${"cd".repeat(32)}`);
    await page.getByRole("button", { name: "Save crypto settings" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Crypto settings saved." })).toBeVisible();
    await page.reload();
    await expect(page.getByText(/^Accepting crypto; settles on/)).toBeVisible();
    await expect(page.getByRole("checkbox", { name: "USDC", exact: true })).toBeChecked();
    await expect(page.getByRole("checkbox", { name: "SUI", exact: true })).toBeChecked();
    await look(page, testInfo, "payments");

    // the webhook URL: a bad one is refused beside the field, then the receiver's is saved
    await nav.getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("textbox", { name: "Webhook URL" }).fill("ftp://example.com/hooks");
    await page.getByRole("button", { name: "Save URL" }).click();
    await expect(page.getByText("The webhook URL must use https")).toBeVisible();
    await page.getByRole("textbox", { name: "Webhook URL" }).fill(hookUrl);
    await page.getByRole("button", { name: "Save URL" }).click();
    await expect(page.getByText(`Order webhooks now go to ${hookUrl}`)).toBeVisible();

    // a merchant key: none of its permissions starts ticked, and a key with none is refused beside them
    await nav.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Key name").fill("story books");
    for (const box of await page.getByRole("checkbox").all()) await expect(box).not.toBeChecked();
    await page.getByRole("button", { name: "Create merchant key" }).click();
    await expect(page.getByText("Choose at least one permission")).toBeVisible();
    await page.getByRole("checkbox", { name: /^Read orders/ }).check();
    await page.getByRole("button", { name: "Create merchant key" }).click();
    await expect(page.getByTestId("new-merchant-key")).toHaveText(/^acsm_/);
    await expect(page.getByRole("button", { name: "Copy the key “story books”" })).toBeVisible();
    await expect(page.getByRole("table", { name: "Merchant keys" })).toContainText("orders:read");
    await look(page, testInfo, "api-keys");

    // a developer, in their own browser, signs up and creates a platform key that can complete purchases
    const dev = await developer.newPage();
    await dev.goto("/developers");
    await expect(dev).toHaveURL(/\/admin\/sign-in/);
    await signUp(dev, "Dev Eloper", `developer-${RUN}@example.com`);
    await dev.goto("/developers");
    await dev.getByLabel("Key name").fill("story agent");
    // least privilege: nothing is ticked until the developer ticks what the agent needs
    await expect(dev.getByRole("checkbox", { name: /orders:read/ })).not.toBeChecked();
    await dev.getByRole("checkbox", { name: /Pay: complete checkouts.*purchase:complete/ }).check();
    await dev.getByRole("button", { name: "Create key" }).click();
    const platformKey = (await dev.getByTestId("new-key").textContent()) ?? "";
    expect(platformKey).toMatch(/^acs_/);

    // an agent buys through the API with it
    const orderId = await buy(request, slug, platformKey, agentProfile, {
      privateJwk: privateKey.export({ format: "jwk" }) as JWK,
      kid,
    });

    // the merchant sees the order and the buyer's confirmation email
    const orderNumber = `#${orderId.replace(/^ord_/, "").slice(0, 8)}`;
    await nav.getByRole("link", { name: "Orders" }).click();
    await page.getByLabel("Search").fill(BUYER_EMAIL);
    await page.getByRole("button", { name: "Filter" }).click();
    await expect(page.getByRole("link", { name: `Order ${orderNumber}` })).toBeVisible();
    await look(page, testInfo, "orders");
    await page.getByRole("link", { name: `Order ${orderNumber}` }).click();
    await expect(page.getByRole("heading", { name: `Order ${orderNumber}` })).toBeVisible();
    await expect(page.getByTestId("order-id")).toHaveText(orderId);
    // the worker sends the confirmation within a second or two: the captured message is on the order page
    await expect(async () => {
      await page.reload();
      await expect(page.getByText(`Sent to ${BUYER_EMAIL}.`)).toBeVisible({ timeout: 1000 });
    }).toPass({ timeout: 20_000 });
    await expect(page.getByText(/Thank you for your order at Story Lamps/)).toBeVisible();
    await expect(page.getByText(`/s/${slug}/orders/${orderId}`)).toBeVisible();

    // fulfil, then refund part (more decimals than the currency has: refused beside the field first)
    await page.getByRole("button", { name: "Fulfil items" }).click();
    await page.getByLabel("Carrier").fill("UPS");
    await page.getByLabel("Tracking number").fill(TRACKING);
    await page.getByRole("button", { name: "Mark as shipped" }).click();
    await expect(page.getByText("1 of 1 shipped.")).toBeVisible();
    await expect(page.getByText("1 item shipped")).toBeVisible();
    await expect(page.getByText(`UPS · ${TRACKING}`)).toBeVisible();
    await page.getByRole("button", { name: "More actions" }).click();
    await page.getByRole("menuitem", { name: /Refund/ }).click();
    const refund = page.getByRole("dialog", { name: "Refund" });
    await refund.getByLabel(/^Amount/).fill("1.234");
    await refund.getByRole("button", { name: "Refund", exact: true }).click();
    await expect(refund.getByText("USD has 2 decimals: 1.234 has 3")).toBeVisible();
    await expect(refund.getByLabel(/^Amount/)).toHaveAttribute("aria-invalid", "true");
    await refund.getByLabel(/^Amount/).fill("1.50");
    await refund.getByLabel("Reason (optional)").fill("Scuffed box");
    await refund.getByRole("button", { name: "Refund", exact: true }).click();
    // the toast (its text is also announced to screen readers: the first is the visible one)
    await expect(page.getByText(/Refund of \$1\.50 (paid back|on its way back)\./).first()).toBeVisible();
    await page.reload();
    await expect(page.getByText(/^Refund paid back · \$1\.50/)).toBeVisible();
    // the order's timeline names each step the webhooks carry, in words
    const timeline = page.getByRole("list", { name: "Timeline" });
    for (const step of ["Order placed", "Payment captured", "1 item shipped", "Refund paid back"]) {
      await expect(timeline.getByRole("listitem").filter({ hasText: new RegExp(`^${step}`) })).toHaveCount(1);
    }
    await look(page, testInfo, "order");

    // the webhook log: each event of the order (placed, paid, fulfilled, refund) delivered to the receiver
    const logged = page
      .getByRole("table", { name: "Delivery log" })
      .getByRole("row")
      .filter({ hasText: orderId })
      .filter({ hasText: `Your URL: ${hookUrl}` })
      .filter({ hasText: "delivered" });
    await expect(async () => {
      await page.goto(`/admin/stores/${slug}/webhooks`);
      expect(await logged.count()).toBeGreaterThanOrEqual(4);
    }).toPass({ timeout: 20_000 });
    // each delivery says which event it carried, in the timeline's words
    for (const step of ["Order placed", "Payment captured", "Refund paid back"]) {
      expect(await logged.filter({ hasText: step }).count(), step).toBeGreaterThanOrEqual(1);
    }
    const loggedIds = await logged.locator("td:first-child span.font-mono").allTextContents();
    const receivedIds = received.map((r) => r.id);
    for (const id of loggedIds) expect(receivedIds, `delivery ${id} reached the receiver`).toContain(id);
    const bodies = received.map((r) => r.body).filter((b) => b.includes(orderId));
    expect(bodies.length).toBeGreaterThanOrEqual(4);
    expect(
      bodies.some((b) => b.includes(TRACKING)),
      "a delivery carries the tracking number",
    ).toBe(true);
    expect(
      bodies.some((b) => /refund/i.test(b) && b.includes("150")),
      "a delivery carries the refund",
    ).toBe(true);
    await look(page, testInfo, "webhooks");
    await logged
      .first()
      .getByRole("button", { name: /^Redeliver/ })
      .click();
    await expect(page.getByText("Queued: it is sent again within seconds.")).toBeVisible();

    // the sale on the dashboard, by rail and by agent
    await nav.getByRole("link", { name: "Dashboard" }).click();
    await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
    // names, not ids: the rail by its name, the agent by the developer's key it bought with
    await expect(
      page.getByRole("table", { name: "Sales by rail" }).getByText("Card", { exact: true }),
    ).toBeVisible();
    await expect(page.getByRole("table", { name: "Sales by agent" }).getByText("story agent")).toBeVisible();
    await expect(page.getByRole("table", { name: "Sales by agent" })).not.toContainText(agentProfile);
    await look(page, testInfo, "dashboard");
    // a row opens the orders behind it: the agent's, canceled ones left out as the figures leave them out
    await page.getByRole("link", { name: "Orders by story agent" }).click();
    await expect(page).toHaveURL(/\/orders\?.*status=not_canceled.*agent=/);
    await expect(page.getByLabel("Status")).toHaveValue("not_canceled");
    await expect(page.getByLabel("Agent or platform")).toHaveValue(agentProfile);
    await expect(page.getByRole("link", { name: `Order ${orderNumber}` })).toBeVisible();
    // a bad range is refused beside its field
    await page.goto(`/admin/stores/${slug}/dashboard?from=2026-02-10&to=2026-01-01`);
    await expect(page.getByText("The start must not be after the end")).toBeVisible();
  } finally {
    await developer.close();
    receiver.close();
    profileServer.close();
  }
});
