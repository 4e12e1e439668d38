import { expect, test, type Page, type TestInfo } from "@playwright/test";

import { adminLook } from "../helpers/admin-looks";

// Verified accounts in Chromium: a new account reads on the mail page only its own verification link (anyone can
// sign up with any address), follows it and is verified; its owner invites a teammate by email, who signs up,
// verifies the same way, then finds the invitation in its mail and accepts it with the invited address. Each new
// page at 390 and 1280 px, light and dark, with axe.

const BASE = `http://127.0.0.1:${process.env.E2E_PORT}`;
const PASSWORD = "a long enough passphrase";

const look = (page: Page, testInfo: TestInfo, name: string) => adminLook(page, testInfo, `verify-${name}`);

const signUp = async (page: Page, name: string, email: string) => {
  await page.goto(`${BASE}/admin/sign-up`);
  await page.getByLabel("Your name").fill(name);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Create account" }).click();
  // a hang guard, not a speed check: sign-up then signs in through next-auth (four requests, each route cold on
  // a fresh server) before the admin opens
  await expect(page.getByRole("heading", { name: "Your stores" })).toBeVisible({ timeout: 15_000 });
};

/** Follows the newest link of the mail page whose address matches, as a person reading the mail would. */
const followMailLink = async (page: Page, pattern: RegExp) => {
  await page.goto(`${BASE}/admin/mail`);
  const href = await page.getByRole("link", { name: pattern }).first().getAttribute("href");
  await page.goto(href!.replace(/^https?:\/\/[^/]+/, BASE));
};

test("verified accounts: the mail page shows an unverified account only its link; an invited teammate accepts", async ({
  page,
  browser,
}, testInfo) => {
  test.setTimeout(240_000);
  const stamp = Date.now().toString(36);
  const ownerEmail = `verify-owner-${stamp}@example.com`;
  const mateEmail = `verify-mate-${stamp}@example.com`;

  await signUp(page, "Vera Owner", ownerEmail);
  await expect(page.getByText("Your email is not verified yet")).toBeVisible();

  // the mail page: one sentence says why, and only this account's verification link is there
  await page.goto(`${BASE}/admin/mail`);
  await expect(
    page.getByText("until yours is verified you see only your own verification link"),
  ).toBeVisible();
  const mails = page.getByRole("list", { name: "Captured mail, newest first" }).getByRole("listitem");
  await expect(mails).toHaveCount(1);
  await expect(mails.first()).toContainText("Verify your email");
  await expect(mails.first()).toContainText(`To ${ownerEmail}`);
  await look(page, testInfo, "mail-unverified");

  await followMailLink(page, /\/admin\/verify-email\?token=/);
  await expect(page.getByRole("heading", { name: "Verify your email" })).toBeVisible();
  await look(page, testInfo, "verify-link");
  const link = page.url();
  await page.getByRole("button", { name: "Verify my email" }).click();
  await expect(page.getByRole("status").filter({ hasText: `${ownerEmail} is verified.` })).toBeVisible();
  // the link works once
  await page.goto(link);
  await page.getByRole("button", { name: "Verify my email" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "already used" })).toBeVisible();
  await page.goto(`${BASE}/admin`);
  await expect(page.getByText("Your email is not verified yet")).toHaveCount(0);

  // a store, and an invitation of the teammate's address as staff
  const slug = `verify-${stamp}`;
  await page.getByRole("link", { name: "Create a store" }).click();
  await page.getByLabel("Store name").fill("Verified Goods");
  await page.getByLabel("Address").fill(slug);
  await page.getByRole("button", { name: "Create store" }).click();
  await expect(page.getByRole("heading", { name: "Verified Goods" })).toBeVisible();
  await page.goto(`${BASE}/admin/stores/${slug}/team`);
  await page.getByLabel("Email address").fill(mateEmail);
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: `Invitation sent to ${mateEmail} as staff` }),
  ).toBeVisible();
  await expect(page.getByRole("table", { name: "Open invitations" })).toContainText(mateEmail);
  await look(page, testInfo, "team-invited");

  // the teammate signs up: unverified, the invitation to its address is not shown to it yet
  const mateContext = await browser.newContext();
  const mate = await mateContext.newPage();
  await signUp(mate, "Milo Mate", mateEmail);
  await mate.goto(`${BASE}/admin/mail`);
  await expect(mate.getByText("invites you to Verified Goods")).toHaveCount(0);
  await followMailLink(mate, /\/admin\/verify-email\?token=/);
  await mate.getByRole("button", { name: "Verify my email" }).click();
  await expect(mate.getByRole("status").filter({ hasText: "is verified." })).toBeVisible();

  // verified, it reads the invitation and accepts it with the invited address
  await mate.goto(`${BASE}/admin/mail`);
  await expect(mate.getByText("You see the messages sent to your verified address.")).toBeVisible();
  await expect(
    mate.getByRole("heading", { name: "Vera Owner invites you to Verified Goods as staff" }),
  ).toBeVisible();
  await followMailLink(mate, /\/admin\/invitations\/accept\?token=/);
  await expect(mate.getByRole("heading", { name: "Join a store's team" })).toBeVisible();
  await expect(mate.getByText(/Vera Owner invites .* to run Verified Goods as staff/)).toBeVisible();
  await look(mate, testInfo, "invitation");
  await mate.getByRole("button", { name: "Accept the invitation" }).click();
  await expect(
    mate.getByRole("status").filter({ hasText: "You are now staff of Verified Goods." }),
  ).toBeVisible();
  await mate.getByRole("link", { name: "Open the store" }).click();
  await expect(mate.getByRole("heading", { name: "Verified Goods" })).toBeVisible();

  await page.reload();
  await expect(page.getByRole("row", { name: /Milo Mate/ })).toContainText("Staff");
  await expect(page.getByRole("table", { name: "Open invitations" })).toHaveCount(0);
  await mateContext.close();
});
