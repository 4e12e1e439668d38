import path from "node:path";

import { expect, test, type Page } from "@playwright/test";

import { runAdminProcess } from "../../scripts/lib/served-app";
import { expectAccessible, shoot } from "../helpers/page-checks";

// A merchant's account in Chromium: /admin sends a visitor to sign in; sign-up checks every field on the server and
// says what is wrong beside it; a new account lands in the admin (no store yet); sign-out, a wrong password, then
// a forgotten one: the reset link arrives through the mail port (the local capture, read with the admin CLI while
// the server runs), sets a new password once, and the new password signs in. Each page is checked with axe and
// photographed at 375 and 1280 px.

const WIDTHS = [375, 1280] as const;
const BASE = `http://127.0.0.1:${process.env.E2E_PORT}`;
const EMAIL = `merchant-${Date.now()}@example.com`;
const PASSWORD = "a long enough passphrase";
const NEW_PASSWORD = "another long passphrase";

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

/** The newest captured mail to an address, through the admin CLI (the server holds the embedded database). */
const latestMailTo = async (to: string): Promise<string> => {
  const run = await runAdminProcess(["mail", "--to", to, "--json"], {
    PGLITE_DIR: process.env.E2E_PGLITE_DIR,
    DATABASE_URL: undefined,
    DEMO_KEY_FILE: path.join(path.dirname(process.env.E2E_PGLITE_DIR!), "demo-platform-key.json"),
  });
  expect(run.code, run.output).toBe(0);
  const mail = JSON.parse(run.output.trim().split("\n").pop()!) as { text: string }[];
  expect(mail.length).toBeGreaterThan(0);
  return mail[0]!.text;
};

test("merchant account: sign up, sign out, wrong password, reset by mail, sign in with the new password", async ({
  page,
}, testInfo) => {
  test.setTimeout(120_000);
  await page.goto(`${BASE}/admin`);
  await expect(page).toHaveURL(/\/admin\/sign-in$/);
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await look(page, testInfo, "sign-in");

  await page.getByRole("link", { name: "Create an account" }).click();
  await expect(page.getByRole("heading", { name: "Create an account" })).toBeVisible();
  // every field wrong at once: each says why, beside it, and the fields are marked invalid
  await page.getByLabel("Email").fill("not-an-email");
  await page.getByLabel("Password").fill("short");
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByText("Enter your name")).toBeVisible();
  await expect(page.getByText("Enter an email address such as you@example.com")).toBeVisible();
  await expect(page.getByText("Use at least 12 characters")).toBeVisible();
  await expect(page.getByLabel("Password")).toHaveAttribute("aria-invalid", "true");
  await look(page, testInfo, "sign-up-errors");

  await page.getByLabel("Your name").fill("Maya Merchant");
  await page.getByLabel("Email").fill(EMAIL);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("heading", { name: "Your stores" })).toBeVisible();
  await expect(page.getByText(`Signed in as Maya Merchant (${EMAIL})`)).toBeVisible();
  await expect(page.getByText("No store yet")).toBeVisible();
  // the header shows who is signed in (the merchant, not a buyer's wallet sign-in)
  await expect(page.getByRole("link", { name: "Merchant admin, signed in as Maya Merchant" })).toBeVisible();
  await look(page, testInfo, "home");

  // the same email twice is refused, beside the email field
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/admin\/sign-in$/);
  await page.goto(`${BASE}/admin/sign-up`);
  await page.getByLabel("Your name").fill("Someone Else");
  await page.getByLabel("Email").fill(EMAIL.toUpperCase());
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByText("An account with this email already exists")).toBeVisible();

  await page.goto(`${BASE}/admin/sign-in`);
  await page.getByLabel("Email").fill(EMAIL);
  await page.getByLabel("Password").fill("not the password at all");
  await page.getByRole("button", { name: "Sign in" }).click();
  // (Next's route announcer is an empty alert of its own: look for ours by its text)
  await expect(
    page.getByRole("alert").filter({ hasText: "The email or the password is not right." }),
  ).toBeVisible();

  await page.getByRole("link", { name: "Forgot your password?" }).click();
  await page.getByLabel("Email of your account").fill(EMAIL);
  await page.getByRole("button", { name: "Send me a reset link" }).click();
  await expect(page.getByRole("status")).toContainText("If an account uses this address");
  await look(page, testInfo, "forgot-password");

  const link = /https?:\/\/\S+\/admin\/reset-password\?token=[A-Za-z0-9_-]+/.exec(
    await latestMailTo(EMAIL),
  )![0];
  await page.goto(link.replace(/^https?:\/\/[^/]+/, BASE));
  await page.getByLabel("New password").fill(NEW_PASSWORD);
  await look(page, testInfo, "reset-password");
  await page.getByRole("button", { name: "Set the new password" }).click();
  await expect(page.getByRole("status")).toHaveText("Your password is changed: sign in with it.");
  // the link works once
  await page.goto(link.replace(/^https?:\/\/[^/]+/, BASE));
  await page.getByLabel("New password").fill("a third long passphrase");
  await page.getByRole("button", { name: "Set the new password" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "used or expired" })).toBeVisible();

  await page.goto(`${BASE}/admin/sign-in`);
  await page.getByLabel("Email").fill(EMAIL);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "is not right" })).toBeVisible();
  await page.getByLabel("Password").fill(NEW_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Your stores" })).toBeVisible();
});

test("developer area: a new account creates a platform key (shown once), the API accepts it, revoking ends it", async ({
  page,
}, testInfo) => {
  test.setTimeout(120_000);
  await page.goto(`${BASE}/developers`);
  await expect(page).toHaveURL(/\/admin\/sign-in\?next=(%2F|\/)developers$/);
  await page.getByRole("link", { name: "Create an account" }).click();
  await page.getByLabel("Your name").fill("Dev Eloper");
  await page.getByLabel("Email").fill(`dev-${Date.now()}@example.com`);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  await expect(page.getByRole("heading", { name: "Your stores" })).toBeVisible();
  await page.getByRole("link", { name: "Developers: platform keys" }).click();
  await expect(page.getByRole("heading", { name: "Developers" })).toBeVisible();
  await expect(page.getByText("No key yet")).toBeVisible();

  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByText("Name the key after the agent")).toBeVisible();
  await page.getByLabel("Key name").fill("My shopping agent");
  await page.getByRole("button", { name: "Create key" }).click();
  const key = (await page.getByTestId("new-key").textContent())!.trim();
  expect(key).toMatch(/^acs_[A-Za-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
  await expect(page.getByRole("table", { name: "Your platform keys" })).toContainText("My shopping agent");
  await look(page, testInfo, "developers");

  const call = async () =>
    fetch(`${BASE}/s/summit-trail-outfitters/checkout-sessions/chk_missing`, {
      headers: {
        "request-id": crypto.randomUUID(),
        "ucp-agent": `profile="${BASE}/demo/agent/.well-known/ucp"`,
        "x-api-key": key,
      },
    });
  expect((await call()).status).toBe(200);
  await page.reload();
  await expect(page.getByRole("row", { name: /My shopping agent/ })).not.toContainText("never");
  await expect(page.getByText(key)).toHaveCount(0);

  await page.getByRole("button", { name: "Revoke My shopping agent" }).click();
  await expect(page.getByRole("row", { name: /My shopping agent/ })).toContainText("Revoked");
  expect((await call()).status).toBe(401);
});

test("a merchant creates a store: fields checked, a taken address refused; another account cannot open it", async ({
  page,
}, testInfo) => {
  test.setTimeout(120_000);
  const signUp = async (name: string) => {
    await page.goto(`${BASE}/admin/sign-up`);
    await page.getByLabel("Your name").fill(name);
    await page.getByLabel("Email").fill(`${name.toLowerCase().replace(/\W/g, "")}-${Date.now()}@example.com`);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await expect(page.getByRole("heading", { name: "Your stores" })).toBeVisible();
  };
  await signUp("Store Owner");
  await page.getByRole("link", { name: "Create a store" }).click();
  await page.getByLabel("Store name").fill("Corner Shop");
  await page.getByLabel("Address").fill("summit-trail-outfitters");
  await page.getByLabel("Currency").fill("XX");
  await page.getByRole("button", { name: "Create store" }).click();
  await expect(page.getByText("Use a three-letter ISO 4217 currency code")).toBeVisible();
  // a refused form keeps what was typed, to be corrected
  await expect(page.getByLabel("Store name")).toHaveValue("Corner Shop");
  await page.getByLabel("Currency").fill("EUR");
  await page.getByRole("button", { name: "Create store" }).click();
  await expect(page.getByText('The address "summit-trail-outfitters" is taken')).toBeVisible();
  await look(page, testInfo, "new-store-errors");
  const address = `corner-${Date.now().toString(36)}`;
  await page.getByLabel("Address").fill(address);
  await page.getByRole("button", { name: "Create store" }).click();
  await expect(page.getByRole("heading", { name: "Corner Shop" })).toBeVisible();
  await expect(page.getByText("Test mode", { exact: true })).toBeVisible();
  await look(page, testInfo, "store");
  const profile = await fetch(`${BASE}/s/${address}/.well-known/ucp`);
  expect(profile.status).toBe(200);
  expect(((await profile.json()) as { signing_keys: unknown[] }).signing_keys).toHaveLength(1);
  await page.getByRole("link", { name: "All stores" }).click();
  await expect(page.getByRole("link", { name: "Corner Shop" })).toBeVisible();

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/admin\/sign-in$/);
  await signUp("Someone Else");
  const other = await page.goto(`${BASE}/admin/stores/${address}`);
  expect(other?.status()).toBe(404);
});
