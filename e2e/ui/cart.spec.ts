import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";

import { expect, test } from "@playwright/test";

import { seedId } from "../../prisma/seed/seed-ids";

// The cart's continue_url (seed §2: a continue-in-browser page we serve, not a payment page): an agent creates
// a cart over REST on the built service, a person opens the link in a browser and sees the same lines and
// total; once the cart is canceled the link shows nothing.

const STORE = "summit-trail-outfitters";
const AGENT = `http://127.0.0.1:${process.env.E2E_PORT}/demo/agent/.well-known/ucp`;
const envelope = () => ({ "request-id": randomUUID(), "ucp-agent": `profile="${AGENT}"` });

const demoKey = (): string => {
  const dir = process.env.E2E_PGLITE_DIR;
  if (!dir) throw new Error("E2E_PGLITE_DIR is set by playwright.config.ts");
  return (
    JSON.parse(readFileSync(path.join(path.dirname(dir), "demo-platform-key.json"), "utf8")) as {
      key: string;
    }
  ).key;
};

type Product = {
  product: { title: string; variants: { id: string; availability?: { available?: boolean } }[] };
};
type Cart = {
  id: string;
  continue_url: string;
  currency: string;
  line_items: { item: { title: string; price: number }; quantity: number }[];
  totals: { type: string; amount: number }[];
};

test("GET /s/:slug/cart/:token — the cart's continue_url shows its lines and total; gone once canceled", async ({
  page,
  request,
}) => {
  const product = (await (
    await request.post(`/s/${STORE}/catalog/product`, {
      headers: envelope(),
      data: { id: seedId("product", STORE, 0) },
    })
  ).json()) as Product;
  const variant = product.product.variants.find((v) => v.availability?.available !== false);
  expect(variant, "a demo variant in stock").toBeTruthy();

  const headers = { ...envelope(), "x-api-key": demoKey(), "idempotency-key": randomUUID() };
  const created = await request.post(`/s/${STORE}/carts`, {
    headers,
    data: { line_items: [{ item: { id: variant!.id }, quantity: 2 }] },
  });
  expect(created.status()).toBe(201);
  const cart = (await created.json()) as Cart;
  expect(cart.continue_url).toMatch(new RegExp(`/s/${STORE}/cart/ct_`));
  expect(cart.continue_url).not.toContain(cart.id);

  await page.goto(cart.continue_url);
  await expect(page.getByRole("heading", { level: 1, name: /Your cart at/ })).toBeVisible();
  const row = page.getByTestId("cart-line");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText(cart.line_items[0]!.item.title);
  await expect(row.locator("td").nth(1)).toHaveText("2");
  const subtotal = cart.totals.find((t) => t.type === "subtotal")!.amount;
  const expected = new Intl.NumberFormat("en", { style: "currency", currency: cart.currency }).format(
    `${Math.trunc(subtotal / 100)}.${String(subtotal % 100).padStart(2, "0")}` as unknown as number,
  );
  await expect(page.getByTestId("cart-total")).toHaveText(expected);
  await expect(page.getByText(/checkout and payment happen through your agent/i)).toBeVisible();

  const canceled = await request.post(`/s/${STORE}/carts/${cart.id}/cancel`, {
    headers: { ...envelope(), "x-api-key": demoKey(), "idempotency-key": randomUUID() },
  });
  expect(canceled.status()).toBe(200);
  const gone = await page.goto(cart.continue_url);
  expect(gone?.status()).toBe(404);
  const bogus = await page.goto(`/s/${STORE}/cart/ct_${"x".repeat(22)}`);
  expect(bogus?.status()).toBe(404);
});
