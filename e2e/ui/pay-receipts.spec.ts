import { generateKeyPairSync, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

import { expect, test } from "@playwright/test";
import type { JWK } from "jose";

import { seedId } from "../../prisma/seed/seed-ids";
import { cardCompletionBody, withMandateKey } from "../helpers/card-completion";
import { everyLook } from "../helpers/pay-page-looks";

// The card pay page as a buyer meets it, held beside Stripe Checkout: an agent completed a checkout without a card
// (requires_escalation); the buyer opens continue_url and sees everything paid for — the lines, where it ships and
// how, the receipt email, subtotal, shipping, tax and the total — and the amount on the button. The sandbox card
// choices have no card-number box. A declined card is said beside the card; then the buyer pays with Visa 4242 and
// gets a receipt ("Visa •••• 4242", the store, the total, a link to My orders), shown again when the paid page is
// opened again, and when the bare payment link itself is opened after paying. Every state in light and dark at
// 1280 and 390 px.

const STORE = "summit-trail-outfitters";
const STORE_NAME = "Summit Trail Outfitters";

const demoKey = (): string => {
  const dir = process.env.E2E_PGLITE_DIR;
  if (!dir) throw new Error("E2E_PGLITE_DIR is set by playwright.config.ts");
  return (
    JSON.parse(readFileSync(path.join(path.dirname(dir), "demo-platform-key.json"), "utf8")) as {
      key: string;
    }
  ).key;
};

type Checkout = {
  id: string;
  status: string;
  continue_url?: string;
  messages: { code?: string; content: string }[];
  totals: { type: string; amount: number }[];
};

const usd = (minor: number) =>
  new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(minor / 100);

test("card pay page: everything paid for, amount on the button, declined then paid, receipt with the card, shown again", async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(420_000);
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const kid = "pay-receipts-agent";
  const base = (await (await request.get("/demo/agent/.well-known/ucp")).json()) as Record<string, unknown>;
  const profile = JSON.stringify(
    withMandateKey(base, { ...publicKey.export({ format: "jwk" }), kid, alg: "ES256", use: "sig" }),
  );
  const server = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "application/json" }).end(profile),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const agent = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/ucp`;
  const headers = () => ({
    "request-id": randomUUID(),
    "ucp-agent": `profile="${agent}"`,
    "x-api-key": demoKey(),
    "idempotency-key": randomUUID(),
  });
  try {
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
          buyer: { email: "grace@example.com", first_name: "Grace", last_name: "Hopper" },
          shipping_address: {
            line1: "77 Receipt Row",
            city: "Boulder",
            region: "CO",
            postal_code: "80301",
            country: "US",
          },
          shipping_method_id: "standard",
          payment: { instruments: [{ handler_id: "svc.card", selected: true }] },
        },
      })
    ).json()) as Checkout;
    expect(checkout.status, JSON.stringify(checkout.messages)).toBe("ready_for_complete");
    const escalated = (await (
      await request.post(`/s/${STORE}/checkout-sessions/${checkout.id}/complete`, {
        headers: headers(),
        data: await cardCompletionBody(checkout, STORE, {
          privateJwk: privateKey.export({ format: "jwk" }) as JWK,
          kid,
        }),
      })
    ).json()) as Checkout;
    expect(escalated.status, JSON.stringify(escalated.messages)).toBe("requires_escalation");
    const amount = (type: string) => escalated.totals.find((t) => t.type === type)?.amount ?? 0;
    const total = usd(amount("total"));

    // everything paid for, above the total
    await page.goto(escalated.continue_url!);
    await expect(page.getByRole("heading", { level: 1, name: `Pay ${STORE_NAME}` })).toBeVisible();
    await expect(page.getByTestId("pay-line")).toHaveCount(1);
    await expect(page.getByTestId("pay-ship-to")).toContainText("Grace Hopper");
    await expect(page.getByTestId("pay-ship-to")).toContainText("77 Receipt Row");
    await expect(page.getByTestId("pay-ship-to")).toContainText("Boulder, CO 80301");
    await expect(page.getByTestId("pay-ship-to")).toContainText("United States");
    await expect(page.getByTestId("pay-shipping-option")).not.toBeEmpty();
    await expect(page.getByTestId("pay-email")).toHaveText("grace@example.com");
    const breakdown = page.getByTestId("pay-breakdown");
    await expect(breakdown).toContainText(`Subtotal${usd(amount("subtotal"))}`);
    await expect(breakdown).toContainText(`Shipping${usd(amount("fulfillment"))}`);
    await expect(breakdown).toContainText(usd(amount("tax")));
    await expect(page.getByTestId("pay-total")).toHaveText(total);
    // the sandbox card choices, no card-number box that does nothing; the amount on the button
    await expect(page.getByRole("radio")).toHaveCount(3);
    await expect(page.getByTestId("test-cards")).toHaveCount(0);
    const pay = page.getByRole("button", { name: `Pay ${total}`, exact: true });
    await expect(pay).toBeVisible();
    await everyLook(page, testInfo, "pay-card");

    // a declined card: said in the card step, beside the cards
    await page.getByRole("radio", { name: /Visa 0002 \(declined\)/ }).check();
    await pay.click();
    const card = page.getByRole("region", { name: /Card \(sandbox\)/ });
    await expect(card.getByTestId("pay-notice")).toContainText("declined");
    await everyLook(page, testInfo, "pay-card-declined");

    // paid with Visa 4242, by a double click on Pay (the form posts twice): one charge, the receipt
    await page.getByRole("radio", { name: /Visa 4242 \(succeeds\)/ }).check();
    await pay.dblclick();
    await expect(page.getByText(/your order is placed/i)).toBeVisible();
    const receipt = page.getByTestId("receipt");
    await expect(receipt.getByTestId("receipt-paid-with")).toHaveText("Visa •••• 4242");
    await expect(receipt).not.toContainText("pi_");
    await expect(receipt.getByTestId("receipt-store")).toHaveText(STORE_NAME);
    await expect(receipt.getByTestId("receipt-total")).toHaveText(total);
    await expect(receipt.getByTestId("pay-line")).toHaveCount(1);
    await expect(receipt.getByTestId("pay-ship-to")).toContainText("77 Receipt Row");
    await expect(page.getByTestId("my-orders-link")).toHaveAttribute("href", "/account/orders");
    const orderId = await receipt.getByTestId("receipt-order-id").textContent();
    expect(orderId).toMatch(/^ord_/);
    await everyLook(page, testInfo, "pay-card-receipt");

    // the paid page opened again (a new tab, the same address): the same receipt
    const paidUrl = page.url();
    const again = await page.context().newPage();
    await again.goto(paidUrl);
    await expect(again.getByTestId("receipt-order-id")).toHaveText(orderId!);
    await expect(again.getByTestId("receipt-paid-with")).toHaveText("Visa •••• 4242");
    await again.close();

    // the bare link (continue_url) opened again after paying: the same receipt, where it is kept later
    await page.goto(escalated.continue_url!);
    expect(new URL(page.url()).search, "the bare link stays bare").toBe("");
    await expect(page.getByTestId("pay-gone")).toContainText(`your order is placed with ${STORE_NAME}`);
    await expect(page.getByTestId("receipt-order-id")).toHaveText(orderId!);
    await expect(page.getByTestId("receipt-paid-with")).toHaveText("Visa •••• 4242");
    await expect(page.getByTestId("receipt-total")).toHaveText(total);
    await expect(page.getByTestId("my-orders-link")).toHaveAttribute("href", "/account/orders");
    await everyLook(page, testInfo, "pay-card-reopened");
  } finally {
    server.close();
  }
});
