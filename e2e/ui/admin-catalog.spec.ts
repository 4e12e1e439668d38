import { expect, test, type Page } from "@playwright/test";

import { expectAccessible, shoot } from "../helpers/page-checks";

// A merchant's store settings and catalog in Chromium: sign up, create a store, edit its settings (a tax rate with
// too many decimals and a switch to live without live keys are refused beside their fields; a shipping rate with a
// free-shipping threshold is added), add a product with two variants (a price with three decimals refused, not
// rounded), then import a CSV of 1,000 good products and 3 bad rows: the progress bar moves while the server writes
// in batches, and the report names each rejected row. Each page is checked with axe at 375 and 1280 px.

const WIDTHS = [375, 1280] as const;
const BASE = `http://127.0.0.1:${process.env.E2E_PORT}`;
const PASSWORD = "a long enough passphrase";

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
  await page.setViewportSize({ width: 1280, height: 900 });
};

const catalogCsv = (): string => {
  const rows = ["handle,title,description,variant_title,sku,price,inventory,categories,tags,image_urls"];
  for (let i = 1; i <= 1000; i++) {
    rows.push(
      `item-${i},Imported item ${i},"Made in batch, number ${i}",Default,IMP-${i},${i % 90}.${String(i % 100).padStart(2, "0")},${i % 12},Home > Things,bulk|n${i % 5},https://cdn.example.com/items/${i}.jpg`,
    );
  }
  rows.push("bad-1,Too precise,,Default,BAD-1,3.999,1,,,");
  rows.push("bad-2,,,Default,BAD-2,3,1,,,");
  rows.push("bad-3,Bad image,,Default,BAD-3,3,1,,,ftp://example.com/x.jpg");
  return rows.join("\r\n");
};

test("store settings, a product with variants, and a 1,000-product CSV import with progress and a report", async ({
  page,
}, testInfo) => {
  test.setTimeout(150_000);
  await page.goto(`${BASE}/admin/sign-up`);
  await page.getByLabel("Your name").fill("Cat Alog");
  await page.getByLabel("Email").fill(`catalog-${Date.now()}@example.com`);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("heading", { name: "Your stores" })).toBeVisible();
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

  await page.getByLabel("Country", { exact: true }).first().fill("US");
  await page.getByLabel("Price (USD)").fill("5.999");
  await page.getByRole("button", { name: "Add shipping rate" }).click();
  await expect(page.getByText("USD has 2 decimals: 5.999 has 3")).toBeVisible();
  await page.getByLabel("Price (USD)").fill("5.99");
  await page.getByLabel("Free over (USD, optional)").fill("50");
  await page.getByRole("button", { name: "Add shipping rate" }).click();
  const rates = page.getByRole("table", { name: "Shipping rates" });
  await expect(rates).toContainText("5.99 USD");
  await expect(rates).toContainText("50.00 USD");
  await look(page, testInfo, "settings");

  // a product with two variants
  await nav.getByRole("link", { name: "Catalog" }).click();
  await expect(page.getByText("No products yet")).toBeVisible();
  await page.getByRole("link", { name: "Add a product" }).click();
  await page.getByLabel("Title").fill("Brass Desk Lamp");
  await page.getByLabel("Tags").fill("Lighting, brass");
  await page.getByLabel("Image URLs").fill("https://cdn.example.com/lamp.jpg");
  await page.getByLabel("Variant 1 name").fill("Small");
  await page.getByLabel("SKU").first().fill("LAMP-S");
  await page.getByLabel("Price (USD)").first().fill("49.995");
  await page.getByLabel("Inventory").first().fill("4");
  await page.getByRole("button", { name: "Add a variant" }).click();
  await page.getByLabel("Variant 2 name").fill("Large");
  await page.getByLabel("SKU").nth(1).fill("LAMP-L");
  await page.getByLabel("Price (USD)").nth(1).fill("69");
  await page.getByLabel("Inventory").nth(1).fill("2");
  await page.getByRole("button", { name: "Add product" }).click();
  await expect(page.getByText("USD has 2 decimals: 49.995 has 3")).toBeVisible();
  await expect(page.getByLabel("Price (USD)").first()).toHaveAttribute("aria-invalid", "true");
  await look(page, testInfo, "product-errors");
  await page.getByLabel("Price (USD)").first().fill("49.99");
  await page.getByRole("button", { name: "Add product" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Brass Desk Lamp" })).toBeVisible();
  await expect(page.getByLabel("Price (USD)").nth(1)).toHaveValue("69.00");
  await look(page, testInfo, "product");

  // bulk import
  await nav.getByRole("link", { name: "Catalog" }).click();
  await page.getByRole("link", { name: "Import CSV or JSON" }).click();
  await look(page, testInfo, "import");
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
  await expect(page.getByText("1001 products")).toBeVisible();
  await page.getByLabel("Search products").fill("IMP-777");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page.getByRole("table", { name: "Products" }).getByRole("link")).toHaveText([
    "Imported item 777",
  ]);
  await look(page, testInfo, "catalog");
});
