import path from "node:path";

import { expect, test, type Page, type TestInfo } from "@playwright/test";

import { runAdminProcess } from "../../scripts/lib/served-app";
import { adminLook } from "../helpers/admin-looks";

// A merchant's account in Chromium: /admin sends a visitor to sign in; sign-up checks every field on the server and
// says what is wrong beside it; a new account lands in the admin (no store yet); sign-out, a wrong password, then
// a forgotten one: the reset link arrives through the mail port (the local capture, read with the admin CLI while
// the server runs), sets a new password once, and the new password signs in. Each page is checked with axe and
// photographed at 375 and 1280 px.

const BASE = `http://127.0.0.1:${process.env.E2E_PORT}`;
const EMAIL = `merchant-${Date.now()}@example.com`;
const PASSWORD = "a long enough passphrase";
const NEW_PASSWORD = "another long passphrase";

const look = (page: Page, testInfo: TestInfo, name: string) => adminLook(page, testInfo, `admin-${name}`);

/** Follows the newest link of the mail page whose address matches, as a person reading the mail would. */
const followMailLink = async (page: Page, pattern: RegExp) => {
  await page.goto(`${BASE}/admin/mail`);
  const href = await page.getByRole("link", { name: pattern }).first().getAttribute("href");
  await page.goto(href!.replace(/^https?:\/\/[^/]+/, BASE));
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
  // a hang guard: three argon2id hashes, two sign-ins and eight axe runs took over 120 s on a loaded 2-core machine
  test.setTimeout(240_000);
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
  await expect(page.getByRole("heading", { name: "Your stores" })).toBeVisible({ timeout: 15_000 });
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
  await expect(page.getByRole("heading", { name: "Your stores" })).toBeVisible({ timeout: 15_000 });
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
  await expect(page.getByRole("heading", { name: "Your stores" })).toBeVisible({ timeout: 15_000 });
  // the developer area is in the merchant frame's sidebar, beside the stores
  await page
    .getByRole("complementary", { name: "Merchant admin" })
    .getByRole("link", { name: "Developer area" })
    .click();
  await expect(page.getByRole("heading", { name: "Developers" })).toBeVisible();
  await expect(page.getByText("No key yet")).toBeVisible();
  // how to connect, with the bridge's address on this server (hosted) and the stdio command
  const bridgeConfig = page.getByLabel("Example: an MCP client configuration for the bridge");
  await expect(bridgeConfig).toContainText(`${BASE}/bridge/mcp`);
  await expect(bridgeConfig).toContainText('"--stdio"');

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
  await expect(
    page.getByRole("table", { name: "Your platform keys" }).getByRole("row", { name: /My shopping agent/ }),
  ).not.toContainText("never");
  await expect(page.getByText(key)).toHaveCount(0);

  await page.getByRole("button", { name: "Revoke My shopping agent" }).click();
  await expect(
    page.getByRole("table", { name: "Your platform keys" }).getByRole("row", { name: /My shopping agent/ }),
  ).toContainText("Revoked");
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
    await expect(page.getByRole("heading", { name: "Your stores" })).toBeVisible({ timeout: 15_000 });
  };
  await signUp("Store Owner");
  await page.getByRole("link", { name: "Create a store" }).click();
  await page.getByLabel("Store name").fill("Corner Shop");
  await page.getByLabel("Address").fill("summit-trail-outfitters");
  // the country is picked by name; the countries it ships to follow it until typed
  await page.getByLabel("Country", { exact: true }).selectOption({ label: "Germany" });
  await expect(page.getByLabel("Ships to")).toHaveValue("DE");
  await page.getByLabel("Currency").selectOption("EUR");
  await page.getByRole("button", { name: "Create store" }).click();
  await expect(page.getByText('The address "summit-trail-outfitters" is taken')).toBeVisible();
  // a refused form keeps what was chosen and typed, to be corrected
  await expect(page.getByLabel("Store name")).toHaveValue("Corner Shop");
  await expect(page.getByLabel("Country", { exact: true })).toHaveValue("DE");
  await expect(page.getByLabel("Currency")).toHaveValue("EUR");
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
  await page.getByRole("link", { name: "Your stores" }).click();
  await expect(page.getByRole("link", { name: "Corner Shop" })).toBeVisible();

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/admin\/sign-in$/);
  await signUp("Someone Else");
  const other = await page.goto(`${BASE}/admin/stores/${address}`);
  expect(other?.status()).toBe(404);
});

test("a store's team; a form sent from another site is refused; a planted session is replaced at sign-in", async ({
  page,
  browser,
}, testInfo) => {
  // a hang guard: four accounts (argon2id each), a verification by mail, an invitation and axe at two widths
  test.setTimeout(300_000);
  const stamp = Date.now().toString(36);
  const signUp = async (p: Page, name: string, email: string) => {
    await p.goto(`${BASE}/admin/sign-up`);
    await p.getByLabel("Your name").fill(name);
    await p.getByLabel("Email").fill(email);
    await p.getByLabel("Password").fill(PASSWORD);
    await p.getByRole("button", { name: "Create account" }).click();
    await expect(p.getByRole("heading", { name: "Your stores" })).toBeVisible({ timeout: 15_000 });
  };
  const ownerEmail = `team-owner-${stamp}@example.com`;
  const staffEmail = `team-staff-${stamp}@example.com`;
  const laterEmail = `team-later-${stamp}@example.com`;
  await signUp(page, "Team Owner", ownerEmail);
  const slug = `team-${stamp}`;
  await page.getByRole("link", { name: "Create a store" }).click();
  await page.getByLabel("Store name").fill("Team Shop");
  await page.getByLabel("Address").fill(slug);
  await page.getByRole("button", { name: "Create store" }).click();
  await expect(page.getByRole("heading", { name: "Team Shop" })).toBeVisible();

  const staffContext = await browser.newContext();
  const staffPage = await staffContext.newPage();
  await signUp(staffPage, "Team Staff", staffEmail);

  // the owner invites the staff member's address; the action's request is kept to be replayed below
  await page.getByRole("navigation", { name: "Store sections" }).getByRole("link", { name: "Team" }).click();
  await expect(page.getByRole("heading", { name: "Team", exact: true })).toBeVisible();
  await page.getByLabel("Email address").fill("not an email");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByText("Enter an email address such as you@example.com")).toBeVisible();
  const sent = page.waitForRequest((r) => r.method() === "POST" && r.headers()["next-action"] !== undefined);
  await page.getByLabel("Email address").fill(laterEmail);
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: `Invitation sent to ${laterEmail}` }),
  ).toBeVisible();
  const action = await sent;
  await page.getByLabel("Email address").fill(staffEmail);
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(
    page.getByRole("status").filter({ hasText: `Invitation sent to ${staffEmail}` }),
  ).toBeVisible();
  // the staff member verifies its address, then accepts the invitation, both through its mail
  await followMailLink(staffPage, /\/admin\/verify-email\?token=/);
  await staffPage.getByRole("button", { name: "Verify my email" }).click();
  await expect(staffPage.getByRole("status").filter({ hasText: "is verified." })).toBeVisible();
  await followMailLink(staffPage, /\/admin\/invitations\/accept\?token=/);
  await staffPage.getByRole("button", { name: "Accept the invitation" }).click();
  await expect(
    staffPage.getByRole("status").filter({ hasText: "You are now staff of Team Shop." }),
  ).toBeVisible();
  await page.reload();
  await expect(page.getByRole("row", { name: /Team Staff/ })).toContainText("Staff");
  await look(page, testInfo, "team");

  // the owner's last-owner guard, said beside the button
  await page.getByRole("button", { name: "Remove Team Owner" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "would have no owner" })).toBeVisible();

  // staff see the team and cannot change it
  await staffPage.goto(`${BASE}/admin/stores/${slug}/team`);
  await expect(staffPage.getByText("Only an owner of the store changes its team.")).toBeVisible();
  await expect(staffPage.getByRole("button", { name: /Send invitation|Remove|Withdraw/ })).toHaveCount(0);

  // Staff of this store are nobody in another store: every page of a second store of the same owner is "not found",
  // exactly like a store that does not exist, and the staff member's own store still opens.
  const other = `team-b-${stamp}`;
  await page.goto(`${BASE}/admin/stores/new`);
  await page.getByLabel("Store name").fill("Other Shop");
  await page.getByLabel("Address").fill(other);
  await page.getByRole("button", { name: "Create store" }).click();
  await expect(page.getByRole("heading", { name: "Other Shop" })).toBeVisible();
  const sections = ["", "/orders", "/catalog", "/catalog/new", "/catalog/import", "/dashboard", "/settings"];
  sections.push("/payments", "/webhooks", "/api-keys", "/team");
  for (const section of sections) {
    const visit = await staffPage.goto(`${BASE}/admin/stores/${other}${section}`);
    expect(visit?.status(), `staff of ${slug} on ${other}${section}`).toBe(404);
    expect((await staffPage.goto(`${BASE}/admin/stores/${slug}${section}`))?.status(), section).toBe(200);
  }

  // The invitation action replayed with the owner's cookies, asking to invite the same address as an owner: from
  // another site it is refused with a 403 and changes nothing; from our own origin the very same request works, so
  // it was the origin that was refused.
  const body = (action.postDataBuffer() ?? Buffer.alloc(0))
    .toString("latin1")
    .replace(/\r\n\r\nstaff\r\n/, "\r\n\r\nowner\r\n");
  const replay = (origin: string) =>
    page.request.post(action.url(), {
      headers: {
        "next-action": action.headers()["next-action"]!,
        "content-type": action.headers()["content-type"]!,
        accept: "text/x-component",
        origin,
      },
      data: Buffer.from(body, "latin1"),
      maxRedirects: 0,
    });
  const forged = await replay("https://evil.example");
  expect(forged.status()).toBe(403);
  expect(await forged.text()).toContain("sent from another site");
  const invited = () =>
    page.getByRole("table", { name: "Open invitations" }).getByRole("row", { name: new RegExp(laterEmail) });
  await page.goto(`${BASE}/admin/stores/${slug}/team`);
  await expect(invited()).toContainText("Staff");
  expect((await replay(BASE)).status()).toBe(200);
  await page.reload();
  await expect(invited()).toContainText("Owner");

  // next-auth's own sign-in refuses a post without its CSRF token: no session is issued
  const bare = await page.request.post(`${BASE}/api/auth/callback/merchant-password`, {
    form: { email: ownerEmail, password: PASSWORD },
    maxRedirects: 0,
  });
  expect(bare.headers()["set-cookie"] ?? "").not.toMatch(/session-token=[^;]/);

  // Session fixation: a session id chosen by an attacker and planted in the victim's browser grants nothing, and
  // signing in replaces it with a new token of the server's making, so the attacker's id never becomes a session.
  const cookieName = (await staffContext.cookies()).find((c) => c.name.includes("session-token"))!.name;
  const planted = { name: cookieName, value: "chosen-by-the-attacker", url: BASE };
  const victim = await browser.newContext();
  await victim.addCookies([planted]);
  const victimPage = await victim.newPage();
  await victimPage.goto(`${BASE}/admin`);
  await expect(victimPage).toHaveURL(/\/admin\/sign-in$/);
  await victimPage.getByLabel("Email").fill(ownerEmail);
  await victimPage.getByLabel("Password").fill(PASSWORD);
  await victimPage.getByRole("button", { name: "Sign in" }).click();
  await expect(victimPage.getByText(`Signed in as Team Owner (${ownerEmail})`)).toBeVisible();
  const issued = (await victim.cookies()).find((c) => c.name === cookieName)!;
  expect(issued.value).not.toBe(planted.value);
  const attacker = await browser.newContext();
  await attacker.addCookies([planted]);
  const attackerPage = await attacker.newPage();
  await attackerPage.goto(`${BASE}/admin`);
  await expect(attackerPage).toHaveURL(/\/admin\/sign-in$/);
  await attacker.close();
  await staffContext.close();
  await victim.close();
});
