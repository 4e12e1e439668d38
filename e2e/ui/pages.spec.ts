import { generateKeyPairSync, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

import { expect, test, type Page } from "@playwright/test";
import type { JWK } from "jose";
import * as oauth from "oauth4webapi";

import { seedId } from "../../prisma/seed/seed-ids";
import { cardCompletionBody, withMandateKey } from "../helpers/card-completion";
import { expectAccessible, shoot } from "../helpers/page-checks";

// The buyer's pages in Chromium (design system issue): every page at 375 px and 1280 px, light and dark, with a
// full-page screenshot attached to the report and an axe-core scan that must find no serious or critical
// violation; and the buyer's story end to end — sign in with the sandbox wallet, approve an agent on the consent
// page, the agent buys by card with the buyer's bearer, the buyer finds the order on My orders and revokes the
// agent, whose token then stops working. The agent (this test) serves its client metadata document, its callback
// and its UCP profile (with its ES256 mandate key) on loopback; test-mode stores may fetch private addresses (the
// served build runs as production, so playwright.config.ts sets OUTBOUND_ALLOW_PRIVATE=1).
// E2E_SHOTS_DIR=<dir> also writes the story's screenshots there as PNG files.

const STORE = "summit-trail-outfitters";
const STORE_NAME = "Summit Trail Outfitters";
const AGENT_NAME = "Pages Story Agent";
const WIDTHS = [375, 1280] as const;
const THEMES = ["light", "dark"] as const;
const BASE = `http://127.0.0.1:${process.env.E2E_PORT}`;

let agent: Server;
let origin = "";
let profile = "";
const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const signer = { privateJwk: privateKey.export({ format: "jwk" }) as JWK, kid: "pages-agent" };
// two clients on the same server: the story's agent (revoked at its end) and the page tour's, so the two tests can
// run side by side
const CLIENTS = { agent: AGENT_NAME, tour: "Page Tour Agent" } as const;
type ClientKey = keyof typeof CLIENTS;
const clientId = (c: ClientKey = "agent") => `${origin}/${c}/client.json`;
const redirectUri = (c: ClientKey = "agent") => `${origin}/${c}/callback`;
const profileUrl = () => `${origin}/agent/.well-known/ucp`;

test.beforeAll(async () => {
  const demo = (await (await fetch(`${BASE}/demo/agent/.well-known/ucp`)).json()) as object;
  profile = JSON.stringify(
    withMandateKey(demo, {
      ...publicKey.export({ format: "jwk" }),
      kid: signer.kid,
      alg: "ES256",
      use: "sig",
    }),
  );
  agent = createServer((req, res) => {
    const p = (req.url ?? "/").split("?")[0] ?? "";
    const client = (Object.keys(CLIENTS) as ClientKey[]).find((c) => p === `/${c}/client.json`);
    if (client) {
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          client_id: clientId(client),
          client_name: CLIENTS[client],
          client_uri: `${origin}/${client}`,
          redirect_uris: [redirectUri(client)],
        }),
      );
    } else if (p === "/agent/.well-known/ucp") {
      res.writeHead(200, { "content-type": "application/json" }).end(profile);
    } else if (p.endsWith("/callback")) {
      res
        .writeHead(200, { "content-type": "text/html" })
        .end("<!doctype html><title>agent</title><p>linked</p>");
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => agent.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(agent.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  agent.closeAllConnections();
  await new Promise<void>((resolve) => agent.close(() => resolve()));
});

const demoKey = (): string =>
  (
    JSON.parse(
      readFileSync(path.join(path.dirname(process.env.E2E_PGLITE_DIR!), "demo-platform-key.json"), "utf8"),
    ) as { key: string }
  ).key;

type Checkout = {
  id: string;
  status: string;
  continue_url?: string;
  order?: { id: string };
  messages: { code?: string; content: string }[];
  totals: { type: string; amount: number }[];
};

/** A UCP REST call as the agent: its profile in UCP-Agent and either the buyer's bearer or the demo platform key. */
const ucp = async <T>(method: string, p: string, credential: Record<string, string>, body?: unknown) => {
  const response = await fetch(`${BASE}/s/${STORE}${p}`, {
    method,
    headers: {
      "content-type": "application/json",
      "request-id": randomUUID(),
      "idempotency-key": randomUUID(),
      "ucp-agent": `profile="${profileUrl()}"`,
      ...credential,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
};

const inStockVariant = async (): Promise<string> => {
  for (let i = 0; i < 20; i++) {
    const { body } = await ucp<{
      product?: { variants: { id: string; availability?: { available?: boolean } }[] };
    }>("POST", "/catalog/product", {}, { id: seedId("product", STORE, i) });
    const id = body.product?.variants.find((v) => v.availability?.available !== false)?.id;
    if (id) return id;
  }
  throw new Error("no demo variant in stock");
};

const newCheckout = async (credential: Record<string, string>): Promise<Checkout> => {
  const { body } = await ucp<Checkout>("POST", "/checkout-sessions", credential, {
    line_items: [{ item: { id: await inStockVariant() }, quantity: 2 }],
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
  });
  expect(body.status, JSON.stringify(body.messages)).toBe("ready_for_complete");
  return body;
};

/** Starts the agent's authorization request (PKCE) in the browser; the page lands on the consent page. */
const startAuthorization = async (page: Page, client: ClientKey = "agent") => {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL("/ucp/oauth2/authorize", BASE);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: clientId(client),
    redirect_uri: redirectUri(client),
    scope: "purchase:complete offline_access",
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
  }).toString();
  const response = await page.goto(url.href);
  expect(new URL(page.url()).pathname).toBe("/oauth/consent");
  return { verifier, state, response };
};

const exchangeCode = async (landed: URL, state: string, verifier: string, c: ClientKey = "agent") => {
  const options = { [oauth.allowInsecureRequests]: true } as const;
  const issuer = new URL(BASE);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { ...options, algorithm: "oauth2" }),
  );
  const client: oauth.Client = { client_id: clientId(c) };
  const params = oauth.validateAuthResponse(as, client, landed, state);
  return oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      redirectUri(c),
      verifier,
      options,
    ),
  );
};

const signInWithSandbox = async (page: Page) => {
  await page.getByRole("button", { name: /sandbox wallet/ }).click();
  await expect(page.getByTestId("account-menu")).toBeVisible();
};

/** The buyer gives the agent a spending limit on the spend-cap page, signed with the sandbox wallet (DECISIONS B20). */
const giveAllowance = async (page: Page, client: ClientKey = "agent") => {
  await page.goto("/account/spend-caps");
  const caps = page.getByTestId("agent-caps").filter({ hasText: CLIENTS[client] });
  await caps.getByRole("button", { name: "New allowance" }).click();
  const form = caps.getByRole("form", { name: /New allowance/ });
  await form.getByLabel("Per day (USD)").fill("1000");
  await form.getByRole("button", { name: "Sign with your wallet" }).click();
  await expect(caps.getByTestId("allowance")).toHaveCount(1);
};

const setTheme = (page: Page, theme: (typeof THEMES)[number]) =>
  page.context().addCookies([{ name: "acs-theme", value: theme, url: BASE }]);

test("buyer story — sandbox wallet sign-in, approve the agent, the agent buys by card, the order on My orders, revoke", async ({
  page,
}, testInfo) => {
  // a guard against a hang, not a speed check: the story took 15 s alone on an idle 2-core machine and ran out of
  // the default 30 s in a fresh-clone CI run beside the other worker
  test.setTimeout(120_000);
  // 1. the agent asks; the buyer signs in with the sandbox wallet and sees who is asking and for what
  const { verifier, state, response } = await startAuthorization(page);
  const csp = response?.headers()["content-security-policy"] ?? "";
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
  await expect(page.getByTestId("client-name")).toHaveText(AGENT_NAME);
  // who is asking, and where the answer goes, before the buyer even signs in
  await expect(page.getByTestId("redirect-host")).toHaveText(new URL(origin).host);
  await signInWithSandbox(page);
  await expect(page.getByTestId("redirect-host")).toHaveText(new URL(origin).host);
  await expect(page.getByText(/not permission to spend/)).toBeVisible();
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await shoot(page, testInfo, `consent-${width}`);
  }
  await page.getByRole("button", { name: "Allow" }).click();
  // the limit step (DECISIONS B20) comes next; this story gives the allowance elsewhere, or none
  await page.getByRole("button", { name: "Skip" }).click();
  await page.waitForURL((url) => url.href.startsWith(redirectUri()));
  const tokens = await exchangeCode(new URL(page.url()), state, verifier);
  const bearer = { authorization: `Bearer ${tokens.access_token}` };

  // 2. consent is not spending: the buyer gives the agent a limit, then the agent buys by card with the buyer's
  // bearer (the checkout is the buyer's from creation)
  await giveAllowance(page);
  const checkout = await newCheckout(bearer);
  const completed = await ucp<Checkout>(
    "POST",
    `/checkout-sessions/${checkout.id}/complete`,
    bearer,
    await cardCompletionBody(checkout, STORE, signer, "pm_card_visa"),
  );
  expect(completed.body.status, JSON.stringify(completed.body.messages)).toBe("completed");
  const orderId = completed.body.order!.id;
  const total = completed.body.totals.find((t) => t.type === "total")!.amount;

  // 3. the buyer finds it on My orders: store, total, card payment, timeline; the store filter keeps it
  await page.goto("/account/orders");
  const order = page.getByTestId("my-order").filter({ hasText: orderId });
  await expect(order).toHaveCount(1);
  await expect(order).toContainText(STORE_NAME);
  await expect(order.getByTestId("order-total")).toHaveText(
    new Intl.NumberFormat("en", { style: "currency", currency: "USD" }).format(total / 100),
  );
  await expect(order.getByTestId("order-status")).toHaveText("Paid");
  await expect(order).toContainText("Visa •••• 4242");
  await expect(order.getByTestId("order-timeline")).toContainText("Order placed");
  await page.getByLabel("Store", { exact: true }).selectOption(STORE);
  await page.getByLabel("Status").selectOption("canceled");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByText("No orders match these filters")).toBeVisible();
  await page.getByLabel("Status").selectOption("paid");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByTestId("my-order").filter({ hasText: orderId })).toHaveCount(1);
  await page.goto("/account/orders");
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await shoot(page, testInfo, `my-orders-${width}`);
  }

  // 4. the buyer revokes the agent (after a confirmation), and its token stops working at once
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto("/account/agents");
  const row = page.getByTestId("linked-agent").filter({ hasText: AGENT_NAME });
  await row.getByRole("button", { name: "Revoke" }).click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText(`Revoke ${AGENT_NAME}?`);
  await dialog.getByRole("button", { name: "Revoke access" }).click();
  await expect(page.getByTestId("linked-agent").filter({ hasText: AGENT_NAME })).toHaveCount(0);
  await expect(page.getByText(`${AGENT_NAME} was unlinked`, { exact: true })).toBeVisible();
  const after = await ucp<Checkout>("POST", "/checkout-sessions", bearer, {
    line_items: [{ item: { id: await inStockVariant() }, quantity: 1 }],
  });
  expect(after.status).toBe(401);
});

test("every page at 375 and 1280 px, light and dark: screenshots in the report, no serious or critical axe violation", async ({
  page,
}, testInfo) => {
  // a guard against a hang, not a speed check: ten pages, each rendered four times with a screenshot and an axe
  // run, took 2 minutes on a slow 2-core CI machine and ran out of a 120 s budget there on its last page; with the
  // pages' new content it ran out of 240 s here beside an integration run
  test.setTimeout(420_000);
  const key = { "x-api-key": demoKey() };
  // a cart link, and a hosted payment link at the card step (the agent completed without a card token)
  const cart = await ucp<{ continue_url: string }>("POST", "/carts", key, {
    line_items: [{ item: { id: await inStockVariant() }, quantity: 2 }],
  });
  expect(cart.status).toBe(201);
  const checkout = await newCheckout(key);
  const escalated = await ucp<Checkout>(
    "POST",
    `/checkout-sessions/${checkout.id}/complete`,
    key,
    await cardCompletionBody(checkout, STORE, signer),
  );
  expect(escalated.body.status, JSON.stringify(escalated.body.messages)).toBe("requires_escalation");
  const payLink = escalated.body.continue_url!;

  // the nonce CSP must not block anything the pages themselves need
  const blocked: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) blocked.push(`${page.url()}: ${m.text()}`);
  });
  const tour = async (name: string, url: string | null) => {
    for (const theme of THEMES) {
      await setTheme(page, theme);
      if (url) await page.goto(url);
      else await page.reload();
      await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        // nothing wider than the viewport: the page never scrolls sideways
        expect(
          await page.evaluate(() => document.documentElement.scrollWidth),
          `${name} ${width}`,
        ).toBeLessThanOrEqual(width);
        await shoot(page, testInfo, `${name}-${theme}-${width}`, "tour");
        // axe in both themes and at both widths, not in all four looks (as the pay pages' looks do): it is the
        // slow part of this tour on a small machine
        if ((theme === "light") === (width === 1280))
          await expectAccessible(page, `${name} ${theme} ${width}`);
      }
    }
  };

  await tour("home", "/");
  await tour("cart", cart.body.continue_url);
  await tour("pay", payLink);
  await expect(page.getByTestId("pay-breakdown")).toContainText("Subtotal");
  // the sandbox card choices are picked, not typed: no card-number box beside them
  await expect(page.getByTestId("test-cards")).toHaveCount(0);
  // the sandbox tokens an agent sends as its credential are on the page too, not only in the README
  await expect(page.getByRole("radio", { name: /Visa 4242 \(succeeds\) pm_card_visa/ })).toBeChecked();
  // pay with the first sandbox card: the page then shows the order number and the receipt
  const payTotal = await page.getByTestId("pay-total").innerText();
  await page.getByRole("button", { name: "Pay" }).click();
  await expect(page.getByTestId("receipt-order-id")).toHaveText(/^ord_/);
  await expect(page.getByTestId("receipt-total")).toHaveText(payTotal);
  await tour("pay-done", null);
  // the sandbox bank's 3-D Secure step: the agent's card asked for a challenge
  const challenged = await newCheckout(key);
  const challenge = await ucp<Checkout>(
    "POST",
    `/checkout-sessions/${challenged.id}/complete`,
    key,
    await cardCompletionBody(challenged, STORE, signer, "pm_card_threeDSecure2Required"),
  );
  expect(challenge.body.status).toBe("requires_escalation");
  await tour("pay-challenge", challenge.body.continue_url!);
  await expect(page.getByText("This is the sandbox bank challenge.")).toBeVisible();
  await tour("not-found", `/s/${STORE}/cart/ct_${"x".repeat(22)}`);
  await tour("orders-signed-out", "/account/orders");
  const { verifier, state } = await startAuthorization(page, "tour");
  await tour("consent-signed-out", null);
  await signInWithSandbox(page);
  await tour("consent", null);
  // approve, and let the agent buy once, so the buyer's pages have something to show
  await page.getByRole("button", { name: "Allow" }).click();
  // the limit step (DECISIONS B20) comes next; this story gives the allowance elsewhere, or none
  await page.getByRole("button", { name: "Skip" }).click();
  await page.waitForURL((url) => url.href.startsWith(redirectUri("tour")));
  const tokens = await exchangeCode(new URL(page.url()), state, verifier, "tour");
  const bearer = { authorization: `Bearer ${tokens.access_token}` };
  await giveAllowance(page, "tour");
  const bought = await newCheckout(bearer);
  const paid = await ucp<Checkout>(
    "POST",
    `/checkout-sessions/${bought.id}/complete`,
    bearer,
    await cardCompletionBody(bought, STORE, signer, "pm_card_visa"),
  );
  expect(paid.body.status).toBe("completed");
  await tour("my-orders", "/account/orders");
  await tour("linked-agents", "/account/agents");
  expect(blocked).toEqual([]);
});

test("header from the keyboard: the theme menu persists the choice (rendered by the server on reload), the narrow menu opens and closes", async ({
  page,
}) => {
  await page.goto("/");
  await expect(page.locator("html")).not.toHaveAttribute("data-theme");
  await page.getByTestId("theme-menu").focus();
  await page.keyboard.press("Enter");
  await page.getByRole("menuitemradio", { name: "Dark" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  // a full reload: the server renders the choice on <html>, so the first paint is already dark
  const html = await (await page.request.get("/")).text();
  expect(html).toMatch(/<html[^>]*data-theme="dark"/);
  await page.reload();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");

  await page.setViewportSize({ width: 375, height: 800 });
  const open = page.getByRole("button", { name: "Open menu" });
  await open.focus();
  await page.keyboard.press("Enter");
  const sheet = page.getByRole("dialog", { name: "Menu" });
  await expect(sheet.getByRole("link", { name: "My orders" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(sheet).toHaveCount(0);
  await expect(open).toBeFocused();
});
