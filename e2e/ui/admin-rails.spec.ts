import { randomBytes, randomUUID } from "node:crypto";
import path from "node:path";

import { expect, test, type Page } from "@playwright/test";

import { SANDBOX_WALLET_ADDRESS } from "../../lib/buyers/sandbox-wallet";
import { runAdminProcess } from "../../scripts/lib/served-app";
import { adminLook } from "../helpers/admin-looks";

// Payment rails and keys in Chromium: an owner signs up, creates a store, sets its crypto settings and its live
// Stripe keys (the secret shown back only as its last four), creates a merchant key (shown once, then only its
// prefix); a developer signs up, creates a platform key at /developers, calls the API with it and sees the call
// in "Your agent's calls". Each page is looked at in both themes at 390 and 1280 px (adminLook).

const BASE = `http://127.0.0.1:${process.env.E2E_PORT}`;
const RUN = `${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
const PASSWORD = "a long enough passphrase";

const signUp = async (page: Page, name: string, email: string) => {
  await page.goto(`${BASE}/admin/sign-up`);
  await page.getByLabel("Your name").fill(name);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("heading", { name: "Your stores" })).toBeVisible();
};

test("owner sets crypto and live Stripe keys, creates a merchant key; a developer sees a call made with their key", async ({
  page,
}, testInfo) => {
  // a guard against a hang on a shared 2-core machine, not a speed check
  test.setTimeout(240_000);
  const slug = `rails-${RUN}`;
  await signUp(page, "Olga Owner", `owner-${RUN}@example.com`);
  await page.goto(`${BASE}/admin/stores/new`);
  await page.getByLabel("Store name").fill("Rails Shop");
  await page.getByLabel("Address").fill(slug);
  await page.getByRole("button", { name: "Create store" }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/stores/${slug}$`));

  await page
    .getByRole("navigation", { name: "Store sections" })
    .getByRole("link", { name: "Payments" })
    .click();
  await expect(page.getByRole("heading", { name: "Payments", level: 1 })).toBeVisible();
  await expect(page.getByTestId("test-cards")).toBeVisible();

  // no coin ticked is refused beside the coins; then two are ticked and USDC moved first in preference
  await page.getByLabel("Accept crypto payments").check();
  await page.getByLabel("Payout address").fill(`0x${"ab".repeat(32)}`);
  await page.getByRole("button", { name: "Save crypto settings" }).click();
  await expect(page.getByText("Choose at least one coin")).toBeVisible();
  await expect(page.getByRole("checkbox", { name: "USDC", exact: true })).toHaveAttribute(
    "aria-invalid",
    "true",
  );
  await page.getByRole("checkbox", { name: "USDC", exact: true }).check();
  await page.getByRole("checkbox", { name: "SUI", exact: true }).check();
  await page.getByRole("button", { name: "Move USDC up" }).click();
  await page.getByRole("button", { name: "Save crypto settings" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Crypto settings saved." })).toBeVisible();

  const secret = `sk_live_${randomBytes(12).toString("hex")}`;
  await page.getByLabel("Secret key (live)").fill(secret);
  await page.getByLabel("Publishable key (live)").fill("pk_live_railsShop1234");
  await page.getByLabel("Webhook signing secret").fill("whsec_railsShopSigning");
  await page.getByRole("button", { name: "Save Stripe keys" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Stripe keys saved" })).toBeVisible();
  await page.reload();
  await expect(page.getByTestId("stripe-secret-hint")).toHaveText(
    `Stored, ending in ${secret.slice(-4)}. Leave blank to keep it.`,
  );
  await expect(page.getByLabel("Secret key (live)")).toHaveValue("");
  expect(await page.content()).not.toContain(secret);
  // the ticked coins come first, in the order saved
  const coins = page.getByRole("group", { name: "Accepted coins, in order of preference" });
  await expect(coins.getByRole("checkbox").nth(0)).toHaveAccessibleName("USDC");
  await expect(coins.getByRole("checkbox").nth(1)).toHaveAccessibleName("SUI");
  await expect(coins.getByRole("checkbox", { checked: true })).toHaveCount(2);
  await adminLook(page, testInfo, "payments");

  await page
    .getByRole("navigation", { name: "Store sections" })
    .getByRole("link", { name: "API keys" })
    .click();
  await page.getByLabel("Key name").fill("nightly export");
  // nothing starts ticked (least privilege): this key reads the settings
  await page.getByRole("checkbox", { name: /^Read store, payment/ }).check();
  await page.getByRole("button", { name: "Create merchant key" }).click();
  const merchantKey = (await page.getByTestId("new-merchant-key").textContent()) ?? "";
  expect(merchantKey).toMatch(/^acsm_[A-Za-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
  const settings = await fetch(`${BASE}/merchant/v1/stores/${slug}/settings`, {
    headers: { "x-api-key": merchantKey },
  });
  expect(settings.status).toBe(200);
  await page.reload();
  expect(await page.content()).not.toContain(merchantKey);
  await expect(page.getByRole("table", { name: "Merchant keys" })).toContainText(
    `${merchantKey.slice(0, 17)}_…`,
  );
  await adminLook(page, testInfo, "api-keys");

  // a developer
  await page.goto(`${BASE}/admin`);
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/admin\/sign-in$/);
  await signUp(page, "Dev Eloper", `developer-${RUN}@example.com`);
  await page.goto(`${BASE}/developers`);
  await page.getByLabel("Key name").fill("my agent");
  await page.getByRole("button", { name: "Create key" }).click();
  const platformKey = (await page.getByTestId("new-key").textContent()) ?? "";
  expect(platformKey).toMatch(/^acs_/);
  const requestId = randomUUID();
  const search = await fetch(`${BASE}/catalog/search`, {
    method: "POST",
    headers: { "x-api-key": platformKey, "request-id": requestId, "content-type": "application/json" },
    body: JSON.stringify({ query: "rain jacket" }),
  });
  expect(search.status).toBe(200);
  await expect(async () => {
    await page.goto(`${BASE}/developers`);
    await expect(page.getByTestId("key-call").first()).toContainText("POST /catalog/search", {
      timeout: 1000,
    });
  }).toPass({ timeout: 15_000 });
  await expect(page.getByRole("table", { name: "Recent calls with your keys" })).toContainText(requestId);
  await adminLook(page, testInfo, "developers");
});

test("the operator issues a service coupon from the operator page and sees it listed", async ({
  page,
}, testInfo) => {
  test.setTimeout(60_000);
  // the buyer holds an account once signed in (the sandbox wallet, test mode)
  await page.goto(`${BASE}/account/agents`);
  const wallet = page.getByRole("button", { name: /sandbox wallet/ });
  await wallet.click();
  await expect(wallet).toBeHidden();

  const email = `operator-${RUN}@example.com`;
  await signUp(page, "Otto Operator", email);
  const made = await runAdminProcess(["make-operator", "--email", email], {
    PGLITE_DIR: process.env.E2E_PGLITE_DIR,
    DATABASE_URL: undefined,
    DEMO_KEY_FILE: path.join(path.dirname(process.env.E2E_PGLITE_DIR!), "demo-platform-key.json"),
  });
  expect(made.code, made.output).toBe(0);
  await page.goto(`${BASE}/admin/operator`);
  await expect(page.getByRole("heading", { name: "Service coupons" })).toBeVisible();

  // more decimals than USD has: refused beside the field, nothing issued
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  await page.getByLabel("Amount off").fill("5.005");
  await page.getByLabel("Good until").fill(tomorrow);
  await page.getByLabel("Buyers' Sui addresses").fill(SANDBOX_WALLET_ADDRESS);
  await page.getByLabel("Description (optional)").fill(`Welcome ${RUN}`);
  await page.getByRole("button", { name: "Issue coupon" }).click();
  await expect(page.getByLabel("Amount off")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText("USD has 2 decimals: 5.005 has 3")).toBeVisible();

  await page.getByLabel("Amount off").fill("5");
  await page.getByRole("button", { name: "Issue coupon" }).click();
  await expect(page.getByRole("status").filter({ hasText: "$5.00 off, to 1 buyer" })).toBeVisible();
  const row = page
    .getByRole("table", { name: "Service coupons" })
    .getByRole("row", { name: `Welcome ${RUN}` });
  await expect(row).toContainText("$5.00");
  await adminLook(page, testInfo, "operator-coupons");

  // a store's Payments page says what the service owes the store for coupons (the operator may open any store)
  await page.goto(`${BASE}/admin/stores/summit-trail-outfitters/payments`);
  await expect(page.getByRole("heading", { name: "Owed by the service for coupons" })).toBeVisible();
  await adminLook(page, testInfo, "payments-coupon-payables");
});
