import { randomUUID } from "node:crypto";

import { expect, test, type Page, type TestInfo } from "@playwright/test";
import * as oauth from "oauth4webapi";

import { cardCompletionBody } from "../helpers/card-completion";
import { expectAccessible, shoot } from "../helpers/page-checks";
import {
  accountTool,
  BASE,
  readyCheckout,
  startUiAgent,
  totalOf,
  ucp,
  usd,
  type Checkout,
} from "../helpers/ui-buyer-agent";

// The consent page's second step in Chromium against the built service (DECISIONS B20: consent is not spending):
// the buyer allows an agent, then signs it a spending limit with the sandbox wallet on the limit step, and only then
// does the browser reach the agent's redirect_uri — with code, state and iss as before. The agent can pay at once
// (its allowance is there), buys by card, and the linked agents page shows the purchase, what it cost and a link to
// its limits. Last, the authorization endpoint's error page in the site's frame. Each page is shot at 1280 and 390
// px in light and dark and scanned with axe.

const WIDTHS = [1280, 390] as const;
const THEMES = ["light", "dark"] as const;
const STORE = "summit-trail-outfitters";

/** Screenshots at both widths in both themes, never a sideways scroll; axe once per theme (light wide, dark narrow). */
const look = async (page: Page, testInfo: TestInfo, name: string) => {
  for (const theme of THEMES) {
    await page.context().addCookies([{ name: "acs-theme", value: theme, url: BASE }]);
    await page.reload();
    await expect(page.locator("html")).toHaveAttribute("data-theme", theme);
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth),
        `${name} ${width}`,
      ).toBeLessThanOrEqual(width);
      await shoot(page, testInfo, `${name}-${theme}-${width}`);
      // axe takes long on 2 shared cores: each theme once, at one of the widths
      if ((theme === "light") === (width === 1280)) await expectAccessible(page, `${name} ${theme} ${width}`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
};

test("consent → the limit step → the wallet signs → the agent's redirect_uri with code, state and iss; the agent can pay, and its purchase shows on linked agents", async ({
  page,
}, testInfo) => {
  // three pages shot in four looks each, a token exchange and a card purchase, on 2 shared cores
  test.setTimeout(480_000);
  const agent = await startUiAgent(`Limit Step Agent ${randomUUID().slice(0, 6)}`);
  try {
    const redirectUri = agent.clientId.replace("/client.json", "/callback");
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL("/ucp/oauth2/authorize", BASE);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: agent.clientId,
      redirect_uri: redirectUri,
      scope: "purchase:complete offline_access",
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
    }).toString();
    await page.goto(url.href);
    await page.getByRole("button", { name: /sandbox wallet/ }).click();
    await expect(page.getByRole("button", { name: "Allow" })).toBeVisible();
    // the scopes in plain words
    await expect(page.getByText(/not permission to spend/)).toBeVisible();
    await expect(page.getByText(/renew its access without asking you again/)).toBeVisible();
    await look(page, testInfo, "consent");

    // Allow → the limit step, not the agent yet
    await page.getByRole("button", { name: "Allow" }).click();
    await page.waitForURL((u) => u.pathname === "/oauth/consent/limit");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(
      `Set a spending limit for ${agent.name}`,
    );
    await expect(page.getByTestId("skip-note")).toHaveText(
      `If you skip, ${agent.name} cannot pay for you until you sign it an allowance on your spend caps.`,
    );
    // the limit step is not framable either (RFC 9700 §4.16)
    const stepHeaders = (await page.request.get("/oauth/consent/limit")).headers();
    expect(stepHeaders["x-frame-options"]).toBe("DENY");
    expect(stepHeaders["referrer-policy"]).toBe("no-referrer");
    await look(page, testInfo, "consent-limit");

    const form = page.getByRole("form", { name: `New allowance for ${agent.name}` });
    await form.getByLabel("Per day (USD)").fill("5000");
    await form.getByRole("button", { name: "Sign with your wallet" }).click();
    await page.waitForURL((u) => u.href.startsWith(redirectUri));
    const landed = new URL(page.url());
    expect(landed.searchParams.get("state")).toBe(state);
    expect(landed.searchParams.get("iss")).toBe(BASE);
    expect(landed.searchParams.get("code")).toMatch(/^oac_/);

    // the agent's token, and the allowance the buyer signed on the step: it can pay now
    const options = { [oauth.allowInsecureRequests]: true } as const;
    const issuer = new URL(BASE);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { ...options, algorithm: "oauth2" }),
    );
    const client: oauth.Client = { client_id: agent.clientId };
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.None(),
        oauth.validateAuthResponse(as, client, landed, state),
        redirectUri,
        verifier,
        options,
      ),
    );
    const asBuyer = { authorization: `Bearer ${tokens.access_token}` };
    const { allowances } = await accountTool<{
      allowances: { status: string; limits: { day: number | null } }[];
    }>(tokens.access_token, "list_my_allowances", {});
    expect(allowances.map((a) => [a.status, a.limits.day])).toEqual([["active", 500_000]]);

    // the agent buys by card under that allowance
    const { intent_mandate } = await accountTool<{ intent_mandate: string }>(
      tokens.access_token,
      "get_intent_mandate",
      {},
    );
    const card = await readyCheckout(agent, STORE, asBuyer, "svc.card");
    const body = await cardCompletionBody(card, STORE, agent.signer, "pm_card_visa");
    const paid = await ucp<Checkout>(
      agent,
      STORE,
      "POST",
      `/checkout-sessions/${card.id}/complete`,
      asBuyer,
      {
        ...body,
        ap2: { ...body.ap2, intent_mandate },
      },
    );
    expect(paid.status, JSON.stringify(paid.messages)).toBe("completed");

    // linked agents: the purchase, what it cost, that it can pay, and a link to its limits
    await page.goto("/account/agents");
    const row = page.getByTestId("linked-agent").filter({ hasText: agent.name });
    await expect(row.getByTestId("agent-purchase")).toHaveCount(1);
    await expect(row.getByTestId("agent-purchase")).toContainText("Summit Trail Outfitters");
    await expect(row.getByTestId("purchase-amount")).toHaveText(usd(totalOf(paid)));
    await expect(row.getByTestId("agent-spent")).toHaveText(usd(totalOf(paid)));
    await expect(row.getByTestId("agent-can-pay")).toHaveText(/can pay for you within the allowance/);
    await expect(row.getByText(/renew its access without asking you again/)).toBeVisible();
    await look(page, testInfo, "linked-agents");
    await row.getByRole("link", { name: `Spending limits of ${agent.name}` }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Your spend caps" })).toBeVisible();
    const anchor = `agent-${agent.clientId}`.replace(/[^a-zA-Z0-9_-]/g, "_");
    expect(new URL(page.url()).hash).toBe(`#${anchor}`);
    await expect(page.locator(`[id="${anchor}"]`)).toHaveText(agent.name);
  } finally {
    await agent.close();
  }
});

test("authorization endpoint error — shown on the site's own page, styled, saying what happened and what to do", async ({
  page,
}, testInfo) => {
  test.setTimeout(180_000);
  const url = new URL("/ucp/oauth2/authorize", BASE);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: "https://agent.example/client.json",
    redirect_uri: "https://attacker.example/steal",
  }).toString();
  url.searchParams.append("state", "a");
  url.searchParams.append("state", "b");
  await page.goto(url.href);
  expect(new URL(page.url()).pathname).toBe("/oauth/error");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(
    "This authorization request cannot be processed",
  );
  await expect(page.getByTestId("oauth-error-description")).toHaveText("The state parameter is repeated");
  await expect(page.locator("[data-error]")).toHaveAttribute("data-error", "invalid_request");
  await expect(page.getByTestId("oauth-error-advice")).toContainText("Go back to the application");
  // the site's frame: its header and the design system's styles, not a bare document
  await expect(page.getByRole("link", { name: /Agent Commerce Service|ACS/ }).first()).toBeVisible();
  await look(page, testInfo, "oauth-error");

  // words of someone else's cannot be put on the page: a forged ticket shows only the generic advice
  await page.goto("/oauth/error?ticket=eyJhbGciOiJub25lIn0.eyJlcnJvciI6Imludm.");
  await expect(page.getByTestId("oauth-error-description")).toHaveCount(0);
  await expect(page.getByTestId("oauth-error-advice")).toHaveText(/^Nothing was linked to your account/);
});
