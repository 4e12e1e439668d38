import { generateKeyPairSync, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

import { expect, test } from "@playwright/test";
import type { JWK } from "jose";

import { mandateTerms } from "../../lib/mandates/mandate-terms";
import { signCheckoutMandate } from "../../lib/mandates/sign-checkout-mandate";
import { seedId } from "../../prisma/seed/seed-ids";
import { withMandateKey } from "../helpers/card-completion";

// Issue #5 §7: an agent's card completion needs 3-D Secure and returns requires_escalation; a person opens the
// continue_url in Chromium, passes the sandbox 3-DS challenge, and the session becomes completed with one
// order; the link is gone afterwards. The agent (this test) publishes its mandate key in a profile it serves
// on 127.0.0.1 (test-mode stores may fetch private addresses).

const STORE = "summit-trail-outfitters";

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
  currency: string;
  continue_url?: string;
  order?: { id: string };
  messages: { code?: string; content: string }[];
  line_items: { item: { id: string; price: number }; quantity: number }[];
  totals: { type: string; amount: number }[];
};

test("3-DS escalation: the buyer completes the sandbox challenge on continue_url; one order; the link then shows the receipt", async ({
  page,
  request,
}) => {
  // the agent's profile: the demo agent profile plus our ES256 mandate key
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const kid = "e2e-agent";
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

    const created = await request.post(`/s/${STORE}/checkout-sessions`, {
      headers: headers(),
      data: {
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
        payment: { instruments: [{ handler_id: "svc.card", selected: true }] },
      },
    });
    const checkout = (await created.json()) as Checkout;
    expect(checkout.status, JSON.stringify(checkout.messages)).toBe("ready_for_complete");

    const mandate = await signCheckoutMandate(mandateTerms(checkout, STORE), {
      privateJwk: privateKey.export({ format: "jwk" }) as JWK,
      kid,
      exp: Math.floor(Date.now() / 1000) + 600,
    });
    const completed = (await (
      await request.post(`/s/${STORE}/checkout-sessions/${checkout.id}/complete`, {
        headers: headers(),
        data: {
          payment: {
            instruments: [
              {
                handler_id: "svc.card",
                selected: true,
                credential: { type: "stripe_token", token: "pm_card_threeDSecure2Required" },
              },
            ],
          },
          ap2: { checkout_mandate: mandate },
        },
      })
    ).json()) as Checkout;
    expect(completed.status, JSON.stringify(completed.messages)).toBe("requires_escalation");
    expect(completed.messages.map((m) => m.code)).toContain("requires_3ds");
    const link = completed.continue_url!;
    expect(link).toMatch(new RegExp(`/s/${STORE}/pay/`));

    await page.goto(link);
    await expect(page.getByRole("heading", { level: 1, name: "Pay Summit Trail Outfitters" })).toBeVisible();
    await expect(page.getByTestId("pay-line")).toHaveCount(1);
    await expect(page.getByTestId("pay-total")).toContainText("$");
    // a reload during 3-DS: the page still shows the bank's question (the true state), nothing charged twice
    await page.reload();
    await expect(page.getByRole("button", { name: "Complete authentication" })).toBeVisible();
    await page.getByRole("button", { name: "Complete authentication" }).click();
    await expect(page.getByText(/your order is placed/i)).toBeVisible();

    const after = (await (
      await request.get(`/s/${STORE}/checkout-sessions/${checkout.id}`, { headers: headers() })
    ).json()) as Checkout;
    expect(after.status).toBe("completed");
    expect(after.order?.id).toMatch(/^ord_/);
    expect(after.continue_url).toBeUndefined();
    // a retried completion returns the same order (no second charge)
    const again = (await (
      await request.post(`/s/${STORE}/checkout-sessions/${checkout.id}/complete`, {
        headers: headers(),
        data: { payment: { instruments: [{ handler_id: "svc.card", selected: true }] } },
      })
    ).json()) as Checkout;
    expect(again.order?.id).toBe(after.order?.id);

    // the link opened again: the receipt of that order
    await page.goto(link);
    await expect(page.getByTestId("receipt-order-id")).toHaveText(after.order!.id);
  } finally {
    server.close();
  }
});
