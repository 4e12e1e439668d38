import { generateKeyPairSync, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import type { JWK } from "jose";

import { seedId } from "../../prisma/seed/seed-ids";
import { runAdminProcess } from "../../scripts/lib/served-app";
import { cardCompletionBody, withMandateKey } from "../helpers/card-completion";
import { expectAccessible, shoot } from "../helpers/page-checks";

// The merchant's orders in Chromium: a merchant signs up and is made owner of the demo store (admin CLI beside the
// running server), sets the store's webhook URL, an agent buys through the API (card rail, sandbox PSP); the
// merchant finds the order, reads the buyer's confirmation email from the capture on the order page, ships it,
// refunds part (a refused amount first, shown beside the field), then sees the webhook deliveries and the
// dashboard. Each page is checked with axe and photographed at 375 and 1280 px.

const STORE = "summit-trail-outfitters";
const WIDTHS = [375, 1280] as const;
const EMAIL = `orders-${Date.now()}@example.com`;
const PASSWORD = "a long enough passphrase";
const BUYER_EMAIL = `buyer-${Date.now()}@example.com`;

const look = async (page: Page, testInfo: Parameters<typeof shoot>[1], name: string) => {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth),
      `${name} ${width}`,
    ).toBeLessThanOrEqual(width);
    await shoot(page, testInfo, `admin-${name}-${width}`, "admin");
    await expectAccessible(page, `${name} ${width}`);
  }
};

const demoEnv = () => ({
  PGLITE_DIR: process.env.E2E_PGLITE_DIR,
  DATABASE_URL: undefined,
  DEMO_KEY_FILE: path.join(path.dirname(process.env.E2E_PGLITE_DIR!), "demo-platform-key.json"),
});

const demoKey = (): string =>
  (JSON.parse(readFileSync(demoEnv().DEMO_KEY_FILE, "utf8")) as { key: string }).key;

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/** An agent buys one unit of the demo store's first product on the card rail; returns the order id. */
const buy = async (
  request: APIRequestContext,
  agentProfile: string,
  signer: { privateJwk: JWK; kid: string },
) => {
  const headers = () => ({
    "request-id": randomUUID(),
    "ucp-agent": `profile="${agentProfile}"`,
    "x-api-key": demoKey(),
    "idempotency-key": randomUUID(),
  });
  const product = (await (
    await request.post(`/s/${STORE}/catalog/product`, {
      headers: headers(),
      data: { id: seedId("product", STORE, 0) },
    })
  ).json()) as { product: { variants: { id: string; availability?: { available?: boolean } }[] } };
  const variant = product.product.variants.find((v) => v.availability?.available !== false)!;
  const checkout = (await (
    await request.post(`/s/${STORE}/checkout-sessions`, {
      headers: headers(),
      data: {
        line_items: [{ item: { id: variant.id }, quantity: 1 }],
        buyer: { email: BUYER_EMAIL, first_name: "Ada", last_name: "Lovelace" },
        shipping_address: {
          line1: "1 Market St",
          city: "Denver",
          region: "CO",
          postal_code: "80202",
          country: "US",
        },
        shipping_method_id: "standard",
        payment: { instruments: [{ handler_id: "svc.card", selected: true }] },
      },
    })
  ).json()) as { id: string; status: string; messages: unknown[] };
  expect(checkout.status, JSON.stringify(checkout.messages)).toBe("ready_for_complete");
  const done = (await (
    await request.post(`/s/${STORE}/checkout-sessions/${checkout.id}/complete`, {
      headers: headers(),
      data: await cardCompletionBody(checkout, STORE, signer, "pm_card_visa"),
    })
  ).json()) as { status: string; order?: { id: string }; messages: unknown[] };
  expect(done.status, JSON.stringify(done.messages)).toBe("completed");
  return done.order!.id;
};

test("merchant orders: confirmation email, fulfil, partial refund, webhook log, dashboard", async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(120_000);
  // the merchant's own webhook receiver, and the agent's profile with its mandate key
  const received: string[] = [];
  const receiver = createServer((req, res) => {
    req
      .on("data", () => {})
      .on("end", () => {
        received.push(String(req.headers["webhook-id"]));
        res.writeHead(200).end("ok");
      });
  });
  const hookUrl = `${await listen(receiver)}/hooks`;
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const kid = "e2e-orders-agent";
  const base = (await (await request.get("/demo/agent/.well-known/ucp")).json()) as Record<string, unknown>;
  const profile = JSON.stringify(
    withMandateKey(base, { ...publicKey.export({ format: "jwk" }), kid, alg: "ES256", use: "sig" }),
  );
  const profileServer = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "application/json" }).end(profile),
  );
  const agentProfile = `${await listen(profileServer)}/.well-known/ucp`;
  try {
    await page.goto("/admin/sign-up");
    await page.getByLabel("Your name").fill("Olive Owner");
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.getByRole("heading", { name: "Your stores" })).toBeVisible();
    const granted = await runAdminProcess(
      ["grant-store", "--email", EMAIL, "--store", STORE, "--role", "owner"],
      demoEnv(),
    );
    expect(granted.code, granted.output).toBe(0);

    // the webhook URL: a bad one is refused beside the field, then ours is saved
    await page.goto(`/admin/stores/${STORE}/webhooks`);
    await page.getByRole("textbox", { name: "Webhook URL" }).fill("ftp://example.com/hooks");
    await page.getByRole("button", { name: "Save URL" }).click();
    await expect(page.getByText("The webhook URL must use https")).toBeVisible();
    await page.getByRole("textbox", { name: "Webhook URL" }).fill(hookUrl);
    await page.getByRole("button", { name: "Save URL" }).click();
    await expect(page.getByText(`Order webhooks now go to ${hookUrl}`)).toBeVisible();

    const orderId = await buy(request, agentProfile, {
      privateJwk: privateKey.export({ format: "jwk" }) as JWK,
      kid,
    });

    await page.goto(`/admin/stores/${STORE}/orders`);
    await page.getByLabel("Search").fill(BUYER_EMAIL);
    await page.getByRole("button", { name: "Filter" }).click();
    await expect(page.getByRole("link", { name: orderId })).toBeVisible();
    await look(page, testInfo, "orders");
    await page.getByRole("link", { name: orderId }).click();
    await expect(page.getByRole("heading", { name: orderId })).toBeVisible();

    // the worker sends the confirmation within a second or two: the captured message is on the order page
    await expect(async () => {
      await page.reload();
      await expect(page.getByText(`Sent to ${BUYER_EMAIL}.`)).toBeVisible({ timeout: 1000 });
    }).toPass({ timeout: 20_000 });
    await expect(page.getByText(/Thank you for your order at /)).toBeVisible();
    await expect(page.getByText(`/s/${STORE}/orders/${orderId}`)).toBeVisible();

    await page.getByLabel("Carrier").fill("UPS");
    await page.getByLabel("Tracking number").fill("1Z999AA10123456784");
    await page.getByRole("button", { name: "Mark as shipped" }).click();
    await expect(page.getByText("Every unit has shipped.")).toBeVisible();
    await expect(page.getByText("Fulfilment: shipped")).toBeVisible();
    await expect(page.getByText("UPS · 1Z999AA10123456784")).toBeVisible();

    // more decimals than the currency has: refused beside the field, nothing refunded
    await page.getByLabel(/^Amount/).fill("1.234");
    await page.getByRole("button", { name: "Refund", exact: true }).click();
    await expect(page.getByText("USD has 2 decimals: 1.234 has 3")).toBeVisible();
    await expect(page.getByLabel(/^Amount/)).toHaveAttribute("aria-invalid", "true");
    await page.getByLabel(/^Amount/).fill("1.50");
    await page.getByLabel("Reason (optional)").first().fill("Scuffed box");
    await page.getByRole("button", { name: "Refund", exact: true }).click();
    await expect(page.getByText(/Refund of \$1\.50 (paid back|on its way back)\./)).toBeVisible();
    await page.reload();
    await expect(page.getByText(/Refund completed/)).toBeVisible();
    await look(page, testInfo, "order");

    // the webhook log: each event of the order delivered to our receiver
    await expect(async () => {
      await page.goto(`/admin/stores/${STORE}/webhooks`);
      const rows = page.getByRole("row").filter({ hasText: orderId }).filter({ hasText: "delivered" });
      expect(await rows.count()).toBeGreaterThanOrEqual(4); // placed, paid, fulfilled, updated (refund)
    }).toPass({ timeout: 20_000 });
    await look(page, testInfo, "webhooks");
    const firstRedeliver = page
      .getByRole("row")
      .filter({ hasText: orderId })
      .first()
      .getByRole("button", { name: /^Redeliver/ });
    await firstRedeliver.click();
    await expect(page.getByText("Queued: it is sent again within seconds.")).toBeVisible();

    await page.goto(`/admin/stores/${STORE}/dashboard`);
    await expect(page.getByRole("heading", { name: "Dashboard" })).toBeVisible();
    await expect(page.getByRole("table", { name: "Sales by rail" }).getByText("svc.card")).toBeVisible();
    await expect(page.getByRole("table", { name: "Sales by agent" }).getByText(agentProfile)).toBeVisible();
    await look(page, testInfo, "dashboard");

    // a bad range is refused beside its field
    await page.goto(`/admin/stores/${STORE}/dashboard?from=2026-02-10&to=2026-01-01`);
    await expect(page.getByText("The start must not be after the end")).toBeVisible();
  } finally {
    receiver.close();
    profileServer.close();
  }
});
