import { expect, test, type Page } from "@playwright/test";

import { adminLook } from "../helpers/admin-looks";

// A merchant's store settings and catalog in Chromium: sign up, create a store, edit its settings (a tax rate with
// too many decimals and a switch to live without live keys are refused beside their fields; a shipping rate with a
// free-shipping threshold is added), add a product with two variants (a price with three decimals refused, not
// rounded). Each page is looked at in both themes at 390 and 1280 px (adminLook). The 1,000-product CSV import with its progress bar
// and report of rejected rows is in merchant-story.spec.ts.

const BASE = `http://127.0.0.1:${process.env.E2E_PORT}`;
const PASSWORD = "a long enough passphrase";

/** The top and height of a control, to see that a neighbour's error did not move it. */
const box = async (page: Page, label: string) => {
  const b = await page.getByLabel(label, { exact: true }).boundingBox();
  if (!b) throw new Error(`${label} is not on the page`);
  return { top: Math.round(b.y), height: Math.round(b.height) };
};

test("store settings and a product with variants, with bad input refused beside its field", async ({
  page,
}, testInfo) => {
  // a guard against a hang: each look is four screenshots and four axe runs, slow on a shared 2-core machine
  test.setTimeout(420_000);
  await page.goto(`${BASE}/admin/sign-up`);
  await page.getByLabel("Your name").fill("Cat Alog");
  await page.getByLabel("Email").fill(`catalog-${Date.now()}@example.com`);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  // signing up hashes a passphrase: slow when the machine is busy
  await expect(page.getByRole("heading", { name: "Your stores" })).toBeVisible({ timeout: 20_000 });
  await page.getByRole("link", { name: "Create a store" }).click();
  const slug = `catalog-${Date.now().toString(36)}`;
  await page.getByLabel("Store name").fill("Lamp Shop");
  await page.getByLabel("Address").fill(slug);
  await page.getByRole("button", { name: "Create store" }).click();
  await expect(page.getByRole("heading", { name: "Lamp Shop" })).toBeVisible();

  // settings
  const nav = page.getByRole("navigation", { name: "Store sections" });
  await nav.getByRole("link", { name: "Settings" }).click();
  await expect(page.getByRole("heading", { name: "Settings", level: 1 })).toBeVisible();
  await page.getByLabel("Store name").fill("Lamp & Light");
  await page.getByLabel("Tax rate (%)").fill("8.255");
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByText("Enter a percentage from 0 to 100 with at most two decimals")).toBeVisible();
  await expect(page.getByLabel("Tax rate (%)")).toHaveAttribute("aria-invalid", "true");
  await page.getByLabel("Tax rate (%)").fill("8.25");
  await page.getByLabel("Mode").selectOption("live");
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByText(/cannot go live yet: it needs a live Stripe secret key/)).toBeVisible();
  await page.getByLabel("Mode").selectOption("test");
  await page.getByRole("button", { name: "Save settings" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Settings saved." })).toBeVisible();

  // what agents' cancellation and refund requests do: refused amount beside its field, then saved and shown
  const requests = page.getByRole("form", { name: "Requests from agents" });
  await expect(requests.getByLabel("Cancellation before shipping")).toHaveValue("automatic");
  await requests.getByLabel("Cancellation before shipping").selectOption("review");
  await requests.getByLabel("Refund at once up to (USD)").fill("25.555");
  await requests.getByRole("button", { name: "Save" }).click();
  await expect(requests.getByText("USD has 2 decimals: 25.555 has 3")).toBeVisible();
  await expect(requests.getByLabel("Cancellation before shipping")).toHaveValue("review");
  await requests.getByLabel("Refund at once up to (USD)").fill("25");
  await expect(requests.getByLabel("Addresses agents send")).toHaveValue("off");
  await requests.getByLabel("Addresses agents send").selectOption("on");
  await requests.getByRole("button", { name: "Save" }).click();
  await expect(requests.getByRole("status")).toHaveText(/agents follow these rules/);
  await page.reload();
  await expect(requests.getByLabel("Cancellation before shipping")).toHaveValue("review");
  await expect(requests.getByLabel("Refund at once up to (USD)")).toHaveValue("25.00");
  await expect(requests.getByLabel("Addresses agents send")).toHaveValue("on");
  // with addresses kept, one buyer's can be forgotten: a bad e-mail refused beside its field, then the count
  const forget = page.getByRole("form", { name: "Forget a buyer's addresses" });
  await forget.getByLabel("Buyer's e-mail").fill("ada@");
  await forget.getByRole("button", { name: "Forget their addresses" }).click();
  await expect(forget.getByText("Enter an email address such as you@example.com")).toBeVisible();
  await forget.getByLabel("Buyer's e-mail").fill("Ada@Example.com");
  await forget.getByRole("button", { name: "Forget their addresses" }).click();
  await expect(forget.getByRole("status")).toHaveText("No address was kept for ada@example.com.");

  await page.getByLabel("Country", { exact: true }).first().selectOption("US");
  await page.getByLabel("Price (USD)").fill("5.999");
  await page.getByRole("button", { name: "Add shipping rate" }).click();
  await expect(page.getByText("USD has 2 decimals: 5.999 has 3")).toBeVisible();
  await page.getByLabel("Price (USD)").fill("5.99");
  await page.getByLabel("Free over (USD, optional)").fill("50");
  await page.getByLabel("Free for tag (optional)").fill("Lighting");
  await page.getByRole("button", { name: "Add shipping rate" }).click();
  const rates = page.getByRole("table", { name: "Shipping rates" });
  await expect(rates).toContainText("$5.99");
  await expect(rates).toContainText("Over $50.00");
  await expect(rates).toContainText("Every item tagged “lighting”");
  await adminLook(page, testInfo, "settings");

  // a product with two variants
  await nav.getByRole("link", { name: "Catalog" }).click();
  await expect(page.getByText("No products yet")).toBeVisible();
  await page.getByRole("link", { name: "Add a product" }).click();
  await page.getByLabel("Title").fill("Brass Desk Lamp");
  await page.getByLabel("Tags").fill("Lighting, brass");
  // two image rows with previews (the app's own images: nothing leaves the machine), two attribute rows
  await page.getByLabel("Image 1 URL").fill(`${BASE}/media/placeholder.svg`);
  await page.getByRole("button", { name: "Add an image" }).click();
  await page.getByLabel("Image 2 URL").fill("ftp://cdn.example.com/lamp.jpg");
  await page.getByLabel("Image 2 Alt text (optional)").fill("The lamp lit");
  await page.getByLabel("Attribute 1 name").fill("material");
  await page.getByLabel("Attribute 1 Value").fill("brass");
  await page.getByRole("button", { name: "Add an attribute" }).click();
  await page.getByLabel("Attribute 2 name").fill("bulb");
  await page.getByLabel("Attribute 2 Value").fill("E27");
  await page.getByLabel("Variant 1 name").fill("Small");
  await page.getByLabel("SKU").first().fill("LAMP-S");
  await page.getByLabel("Price (USD)").first().fill("49.995");
  await page.getByLabel("Inventory").first().fill("4");
  await page.getByRole("button", { name: "Add a variant" }).click();
  await page.getByLabel("Variant 2 name").fill("Large");
  await page.getByLabel("SKU").nth(1).fill("LAMP-L");
  await page.getByLabel("Price (USD)").nth(1).fill("69");
  await page.getByLabel("Inventory").nth(1).fill("2");
  // an image URL that is not http(s): refused beside it, and the alt text beside it in the row does not move
  const urlBefore = await box(page, "Image 2 URL");
  const altBefore = await box(page, "Image 2 Alt text (optional)");
  expect(altBefore.top).toBe(urlBefore.top);
  await page.getByRole("button", { name: "Add product" }).click();
  await expect(page.getByText("Use an http(s) URL such as https://example.com/image.jpg")).toBeVisible();
  await expect(page.getByLabel("Image 2 URL")).toHaveAttribute("aria-invalid", "true");
  const urlAfter = await box(page, "Image 2 URL");
  const altAfter = await box(page, "Image 2 Alt text (optional)");
  expect(altAfter.top, "the neighbour stays level with the refused field").toBe(urlAfter.top);
  expect(altAfter.height).toBe(altBefore.height);
  // what was typed is still there, rows included
  await expect(page.getByLabel("Attribute 2 Value")).toHaveValue("E27");
  await adminLook(page, testInfo, "product-errors");
  await page.getByLabel("Image 2 URL").fill(`${BASE}/icon.svg`);
  await page.getByRole("button", { name: "Add product" }).click();
  await expect(page.getByText("USD has 2 decimals: 49.995 has 3")).toBeVisible();
  await expect(page.getByLabel("Price (USD)").first()).toHaveAttribute("aria-invalid", "true");
  await page.getByLabel("Price (USD)").first().fill("49.99");
  await page.getByRole("button", { name: "Add product" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Brass Desk Lamp" })).toBeVisible();
  await expect(page.getByLabel("Price (USD)").nth(1)).toHaveValue("69.00");
  await expect(page.getByLabel("Image 2 URL")).toHaveValue(`${BASE}/icon.svg`);
  await expect(page.getByLabel("Image 2 Alt text (optional)")).toHaveValue("The lamp lit");
  await expect(page.getByLabel("Attribute 2 name")).toHaveValue("bulb");
  // both previews show their image
  await expect
    .poll(() =>
      page
        .getByTestId("image-preview")
        .locator("img")
        .evaluateAll((imgs) => imgs.map((img) => (img as HTMLImageElement).naturalWidth > 0)),
    )
    .toEqual([true, true]);
  await adminLook(page, testInfo, "product");

  await nav.getByRole("link", { name: "Catalog" }).click();
  await expect(page.getByRole("table", { name: "Products" })).toContainText("$49.99");
  await adminLook(page, testInfo, "catalog");
});
