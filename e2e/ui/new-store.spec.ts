import { randomBytes } from "node:crypto";

import { expect, test, type Page, type TestInfo } from "@playwright/test";

import { expectAccessible, shoot } from "../helpers/page-checks";

// A store that sells from its first minute, in Chromium: a merchant creates a store with the countries it ships to
// and a flat rate (an unknown country code is refused beside its field, nothing created), the overview's setup
// checklist shows shipping done and products to do, one product later both are ticked; the create form, the
// overview and the dashboard photographed at 390 and 1280 px, light and dark, with axe finding nothing serious.

const BASE = `http://127.0.0.1:${process.env.E2E_PORT}`;
const RUN = `${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
const WIDTHS = [390, 1280] as const;
const THEMES = ["light", "dark"] as const;

const look = async (page: Page, testInfo: TestInfo, name: string) => {
  for (const theme of THEMES) {
    await page.context().addCookies([{ name: "acs-theme", value: theme, url: BASE }]);
    await page.reload();
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth),
        `${name} ${width}`,
      ).toBeLessThanOrEqual(width);
      await shoot(page, testInfo, `new-store-${name}-${width}-${theme}`, "admin");
      await expectAccessible(page, `${name} ${width} ${theme}`);
    }
  }
  await page.context().addCookies([{ name: "acs-theme", value: "light", url: BASE }]);
  await page.setViewportSize({ width: 1280, height: 900 });
};

test("a new store ships from its first minute: create with a flat rate, the checklist ticks shipping, then products", async ({
  page,
}, testInfo) => {
  test.setTimeout(300_000);
  const slug = `first-${RUN}`;
  await page.goto(`${BASE}/admin/sign-up`);
  await page.getByLabel("Your name").fill("Fiona First");
  await page.getByLabel("Email").fill(`first-${RUN}@example.com`);
  await page.getByLabel("Password").fill("a long enough passphrase");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("heading", { name: "Your stores" })).toBeVisible({ timeout: 30_000 });

  await page.goto(`${BASE}/admin/stores/new`);
  await expect(page.getByLabel("Flat shipping rate")).toHaveValue("5.00");
  await page.getByLabel("Currency").selectOption("JPY");
  await expect(page.getByLabel("Flat shipping rate"), "the prefill follows the currency").toHaveValue("5");
  await page.getByLabel("Currency").selectOption("USD");
  await look(page, testInfo, "form");

  await page.getByLabel("Store name").fill("First Minute Goods");
  await page.getByLabel("Address").fill(slug);
  await page.getByLabel("Ships to").fill("US, XX");
  await page.getByLabel("Flat shipping rate").fill("4.50");
  await page.getByRole("button", { name: "Create store" }).click();
  await expect(page.getByText("XX is not a country code")).toBeVisible();
  await expect(page.getByLabel("Ships to")).toHaveAttribute("aria-invalid", "true");
  await expect(page).toHaveURL(/\/admin\/stores\/new$/);
  await page.getByLabel("Ships to").fill("US, CA");
  await page.getByRole("button", { name: "Create store" }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/stores/${slug}$`));

  const steps = page.getByRole("list", { name: "Setup steps" });
  const step = (key: string) => steps.locator(`[data-step="${key}"]`);
  await expect(step("shipping")).toContainText("Done");
  await expect(step("shipping")).toContainText("Ships to CA, US.");
  await expect(step("products")).toContainText("To do");
  await expect(step("card")).toContainText("Done");
  await expect(step("live")).toContainText("To do");

  await step("products")
    .getByRole("link", { name: /Add a product/ })
    .click();
  await page.getByLabel("Title").fill("Walnut Bowl");
  await page.getByLabel("Variant 1 name").fill("Large");
  await page.getByLabel("Price (USD)").first().fill("32");
  await page.getByLabel("Inventory").first().fill("8");
  await page.getByRole("button", { name: "Add product" }).click();
  await expect(page.getByRole("heading", { name: "Walnut Bowl" })).toBeVisible();

  const nav = page.getByRole("navigation", { name: "Store sections" });
  await nav.getByRole("link", { name: "Overview" }).click();
  await expect(step("products")).toContainText("Done");
  await expect(step("products")).toContainText("1 product in the catalog.");
  await expect(step("shipping")).toContainText("Done");
  await look(page, testInfo, "overview");

  await nav.getByRole("link", { name: "Dashboard" }).click();
  await expect(page.getByRole("heading", { name: "Dashboard", level: 1 })).toBeVisible();
  await expect(page.locator('dl[aria-label="Totals"]')).toContainText("Average order");
  await look(page, testInfo, "dashboard");
});
