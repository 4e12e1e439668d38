import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { expect, test } from "@playwright/test";
import * as oauth from "oauth4webapi";

import { SANDBOX_WALLET_ADDRESS } from "../../lib/buyers/sandbox-wallet";
import { cardCompletionBody } from "../helpers/card-completion";
import { expectAccessible, shoot } from "../helpers/page-checks";
import { fund, SUI, USDC } from "../helpers/sui-sandbox";
import {
  accountTool,
  BASE,
  linkWithSandboxWallet,
  readyCheckout,
  SANDBOX_URL,
  signAllowanceOnPage,
  startUiAgent,
  totalOf,
  ucp,
  usd,
  type Checkout,
} from "../helpers/ui-buyer-agent";

// The spend-cap page in Chromium against the built service (DECISIONS B6): the sandbox buyer links an agent on the
// consent page, follows the consent centre's link to the spend caps, creates an allowance (the sandbox wallet signs
// its payload as a personal message), edits it (a new signature, the same allowance), pauses and resumes it, and
// revokes it; the agent's own view (list_my_allowances on /account/mcp) follows each step at once. Then another agent
// buys for the buyer by card (with the buyer's bearer) and by crypto, and the page lists both purchases with the
// day window's spent and left agreeing with them.

let agent: Server;
let origin = "";
const CLIENT_PATH = "/caps-agent/client.json";
const clientId = () => `${origin}${CLIENT_PATH}`;
const redirectUri = () => `${origin}/caps-agent/callback`;

test.beforeAll(async () => {
  agent = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === CLIENT_PATH) {
      res.writeHead(200, { "content-type": "application/json" }).end(
        JSON.stringify({
          client_id: clientId(),
          client_name: "Spend Cap Test Agent",
          redirect_uris: [redirectUri()],
        }),
      );
    } else if (path === "/caps-agent/callback") {
      res
        .writeHead(200, { "content-type": "text/html" })
        .end("<!doctype html><title>agent</title><p>back</p>");
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => agent.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(agent.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  agent.closeAllConnections();
  await new Promise<void>((resolve) => agent.close(() => resolve()));
});

test("spend-cap page — create, edit, pause and revoke an allowance signed with the sandbox wallet; the agent sees each change at once", async ({
  page,
  baseURL,
}, testInfo) => {
  // many steps (consent, token, two axe scans and screenshots per width): more than the default 30 s on 2 cores
  test.setTimeout(120_000);
  // the buyer links the agent (consent page, sandbox wallet) and the agent gets its bearer
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL("/ucp/oauth2/authorize", baseURL);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: clientId(),
    redirect_uri: redirectUri(),
    scope: "purchase:complete",
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
  }).toString();
  await page.goto(url.href);
  await page.getByRole("button", { name: /sandbox wallet/ }).click();
  await page.getByRole("button", { name: "Allow" }).click();
  // the limit step (DECISIONS B20) comes next; this story gives the allowance elsewhere, or none
  await page.getByRole("button", { name: "Skip" }).click();
  await page.waitForURL((u) => u.href.startsWith(redirectUri()));
  const options = { [oauth.allowInsecureRequests]: true } as const;
  const issuer = new URL(baseURL!);
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { ...options, algorithm: "oauth2" }),
  );
  const client: oauth.Client = { client_id: clientId() };
  const params = oauth.validateAuthResponse(as, client, new URL(page.url()), state);
  const tokens = await oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.None(),
      params,
      redirectUri(),
      verifier,
      options,
    ),
  );
  type Listed = {
    id: string;
    status: string;
    limits: { day: number | null; week: number | null };
    remaining: { day: number | null };
    merchants: string[] | "*";
  };
  const agentView = async (): Promise<Listed[]> => {
    const response = await page.request.post("/account/mcp", {
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        accept: "application/json, text/event-stream",
      },
      data: {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "list_my_allowances", arguments: {} },
      },
    });
    const text = await response.text();
    const json = JSON.parse(text.includes("data:") ? text.split("data:")[1]!.trim() : text) as {
      result: { structuredContent: { allowances: Listed[] } };
    };
    return json.result.structuredContent.allowances;
  };
  expect(await agentView()).toEqual([]);

  // the consent centre links to the spend caps
  await page.goto("/account/agents");
  await page.getByRole("main").getByRole("link", { name: "your spend caps" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Your spend caps" })).toBeVisible();
  const section = page.getByTestId("agent-caps").filter({ hasText: "Spend Cap Test Agent" });
  await expect(section.getByText(/No allowance yet/)).toBeVisible();

  // create: 40.00 per order, 100.00 a day, 300.00 a week, any store
  await page.setViewportSize({ width: 1280, height: 900 });
  await section.getByRole("button", { name: "New allowance" }).click();
  const form = section.getByRole("form", { name: /New allowance/ });
  await form.getByLabel("Per order (USD)").fill("40.00");
  await form.getByLabel("Per day (USD)").fill("100.00");
  await form.getByLabel("Per week (USD)").fill("300");
  await expectAccessible(page, "spend caps form 1280");
  await shoot(page, testInfo, "spend-caps-form-1280");
  await form.getByRole("button", { name: "Sign with your wallet" }).click();
  const allowance = section.getByTestId("allowance");
  await expect(allowance).toHaveCount(1);
  await expect(allowance.getByTestId("allowance-status")).toHaveText("Active");
  await expect(allowance.getByTestId("window-day")).toContainText("$100.00");
  await expect(allowance.getByTestId("allowance-reserved")).toContainText("$0.00");
  let seen = await agentView();
  expect(seen).toHaveLength(1);
  expect(seen[0]!.limits).toMatchObject({ day: 10_000, week: 30_000 });
  expect(seen[0]!.remaining.day).toBe(10_000);
  const id = seen[0]!.id;
  await page.getByRole("button", { name: "Dismiss" }).click();
  await expectAccessible(page, "spend caps 1280");
  await shoot(page, testInfo, "spend-caps-1280");
  await page.setViewportSize({ width: 375, height: 800 });
  await expectAccessible(page, "spend caps 375");
  await shoot(page, testInfo, "spend-caps-375");
  await page.setViewportSize({ width: 1280, height: 900 });

  // edit: a new signature over the same allowance, a lower day limit, two stores picked by name
  expect(seen[0]!.merchants).toBe("*");
  await allowance.getByRole("button", { name: "Edit" }).click();
  const edit = section.getByRole("form", { name: /Edit allowance/ });
  await edit.getByLabel("Per day (USD)").fill("60");
  await edit.getByLabel("Only the stores I tick").check();
  // none ticked yet: nothing to sign
  await expect(edit.getByText("Tick at least one store, or choose any store.")).toBeVisible();
  await expect(edit.getByRole("button", { name: "Sign with your wallet" })).toBeDisabled();
  const picker = edit.getByRole("list", { name: "Stores it may buy from" });
  await picker.getByLabel("Summit Trail Outfitters").check();
  await picker.getByLabel("Voltage Electronics").check();
  await edit.getByRole("button", { name: "Sign with your wallet" }).click();
  await expect(allowance.getByTestId("window-day")).toContainText("$60.00");
  await expect(allowance).toContainText("Summit Trail Outfitters, Voltage Electronics");
  seen = await agentView();
  expect(seen.map((a) => [a.id, a.limits.day, a.merchants])).toEqual([
    [id, 6000, ["summit-trail-outfitters", "voltage-electronics"]],
  ]);

  // pause, resume: at once for the agent
  await allowance.getByRole("button", { name: "Pause" }).click();
  await expect(allowance.getByTestId("allowance-status")).toHaveText("Paused");
  expect((await agentView())[0]!.status).toBe("paused");
  await allowance.getByRole("button", { name: "Resume" }).click();
  await expect(allowance.getByTestId("allowance-status")).toHaveText("Active");

  // revoke, behind a confirmation
  await allowance.getByRole("button", { name: "Revoke" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke allowance" }).click();
  await expect(allowance.getByTestId("allowance-status")).toHaveText("Revoked");
  expect((await agentView())[0]!.status).toBe("revoked");
  await expect(allowance.getByRole("button", { name: "Edit" })).toHaveCount(0);
  await expectAccessible(page, "spend caps revoked");
  await shoot(page, testInfo, "spend-caps-revoked-1280");
});

test("spend-cap page — after the agent bought by card with the buyer's bearer and by crypto: each purchase with its store, rail and amount, spent and left per window agreeing with them", async ({
  page,
}, testInfo) => {
  test.setTimeout(180_000);
  const STORE = "summit-trail-outfitters";
  const agent = await startUiAgent(`Purchases Agent ${randomUUID().slice(0, 6)}`);
  try {
    // the sandbox wallet pays the crypto purchase on the shared server's Sui sandbox
    await fund(SANDBOX_URL, SANDBOX_WALLET_ADDRESS, USDC, [5_000_000_000n]);
    await fund(SANDBOX_URL, SANDBOX_WALLET_ADDRESS, SUI, [50n * 1_000_000_000n]);
    const bearer = await linkWithSandboxWallet(page, agent);
    const asBuyer = { authorization: `Bearer ${bearer}` };
    const section = await signAllowanceOnPage(page, agent, "5000");
    await expect(section.getByTestId("agent-spent")).toHaveText("$0.00");
    const { intent_mandate } = await accountTool<{ intent_mandate: string }>(
      bearer,
      "get_intent_mandate",
      {},
    );

    // 1. by card, with the buyer's bearer (the checkout is the buyer's from creation) and the buyer's allowance
    const card = await readyCheckout(agent, STORE, asBuyer, "svc.card");
    const body = await cardCompletionBody(card, STORE, agent.signer, "pm_card_visa");
    const paidByCard = await ucp<Checkout>(
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
    expect(paidByCard.status, JSON.stringify(paidByCard.messages)).toBe("completed");

    // 2. by crypto: the agent prepares with the bearer, the buyer pays on the wallet page with the test wallet
    const crypto = await readyCheckout(agent, STORE, asBuyer, "svc.crypto");
    const prepared = await ucp<{ continue_url: string }>(
      agent,
      STORE,
      "POST",
      `/checkout-sessions/${crypto.id}/payment-intent`,
      asBuyer,
      { buyer_address: SANDBOX_WALLET_ADDRESS },
    );
    await page.goto(prepared.continue_url);
    await page.getByRole("button", { name: "Pay with the test wallet" }).click();
    // the receipt, not the page's "After you pay" note (which says "your order is placed" before paying): leaving
    // before the payment's answer would read the spend-cap page without the crypto order
    await expect(page.getByTestId("receipt-order-id")).toHaveText(/^ord_/);

    // the page: both purchases (store, rail, amount), what they cost, and the day window agreeing with them
    await page.goto(`${BASE}/account/spend-caps`);
    const purchases = section.getByTestId("agent-purchase");
    await expect(purchases).toHaveCount(2);
    await expect(purchases.nth(0)).toContainText("Summit Trail Outfitters");
    await expect(purchases.nth(0).getByTestId("purchase-rail")).toHaveText("Crypto (USDC)");
    await expect(purchases.nth(0).getByTestId("purchase-amount")).toHaveText(usd(totalOf(crypto)));
    await expect(purchases.nth(1).getByTestId("purchase-rail")).toHaveText("Card");
    await expect(purchases.nth(1).getByTestId("purchase-amount")).toHaveText(usd(totalOf(paidByCard)));
    await expect(purchases.filter({ hasText: "Counted" })).toHaveCount(2);
    const spent = totalOf(crypto) + totalOf(paidByCard);
    await expect(section.getByTestId("agent-spent")).toHaveText(usd(spent));
    const day = section.getByTestId("window-day");
    await expect(day).toContainText(usd(spent));
    await expect(day).toContainText(usd(500_000 - spent));
    await expect(section.getByTestId("agent-uncounted")).toHaveCount(0);
    await expect(section.getByText(/cannot pay for you/)).toHaveCount(0);

    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await expectAccessible(page, `spend caps with purchases ${width}`);
      await shoot(page, testInfo, `spend-caps-purchases-${width}`);
    }
  } finally {
    await agent.close();
  }
});
