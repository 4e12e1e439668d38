import { randomUUID } from "node:crypto";

import { expect, test } from "@playwright/test";

import { SANDBOX_WALLET_ADDRESS } from "../../lib/buyers/sandbox-wallet";
import { mandateTerms } from "../../lib/mandates/mandate-terms";
import { signCheckoutMandate } from "../../lib/mandates/sign-checkout-mandate";
import { expectAccessible, shoot } from "../helpers/page-checks";
import { fund, SUI, USDC } from "../helpers/sui-sandbox";
import {
  accountTool,
  BASE,
  demoKey,
  linkWithSandboxWallet,
  readyCheckout,
  SANDBOX_URL,
  signAllowanceOnPage,
  startUiAgent,
  ucp,
  type Checkout,
} from "../helpers/ui-buyer-agent";

// My orders in Chromium, on the shared server: an order the buyer paid with their own wallet on the wallet page
// (a platform created the checkout; the buyer signed in there) is listed, although no agent bought it; and the
// orders one combined payment paid in two stores are listed together, as one payment, named by their stores.

const STORES = ["summit-trail-outfitters", "voltage-electronics"] as const;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  await fund(SANDBOX_URL, SANDBOX_WALLET_ADDRESS, USDC, [5_000_000_000n]);
  await fund(SANDBOX_URL, SANDBOX_WALLET_ADDRESS, SUI, [50n * 1_000_000_000n]);
});

test("My orders — an order the buyer paid on the wallet page while signed in, and one combined payment for two stores shown as one", async ({
  page,
}, testInfo) => {
  test.setTimeout(180_000);
  const agent = await startUiAgent(`Orders Agent ${randomUUID().slice(0, 6)}`);
  try {
    // the buyer links an agent (signing in with the sandbox wallet) and gives it an allowance
    const bearer = await linkWithSandboxWallet(page, agent);
    await signAllowanceOnPage(page, agent, "5000");

    // 1. a platform's crypto checkout the buyer pays themselves on the wallet page (signed in)
    const platform = { "x-api-key": demoKey() };
    const own = await readyCheckout(agent, STORES[0], platform, "svc.crypto");
    const escalated = await ucp<Checkout>(
      agent,
      STORES[0],
      "POST",
      `/checkout-sessions/${own.id}/complete`,
      platform,
      {
        payment: { instruments: [{ handler_id: "svc.crypto", selected: true }] },
        ap2: {
          checkout_mandate: await signCheckoutMandate(
            mandateTerms(own as unknown as Parameters<typeof mandateTerms>[0], STORES[0]),
            {
              ...agent.signer,
              exp: Math.floor(Date.now() / 1000) + 600,
            },
          ),
        },
      },
    );
    expect(escalated.status, JSON.stringify(escalated.messages)).toBe("requires_escalation");
    await page.goto(escalated.continue_url!);
    await page.getByRole("button", { name: "Pay with the test wallet" }).click();
    await expect(page.getByText(/your order is placed/i)).toBeVisible();
    const ownOrderId = (await page.getByTestId("receipt-order-id").textContent())!;
    await page.getByRole("main").getByRole("link", { name: "My orders" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "My orders" })).toBeVisible();
    const ownOrder = page.getByTestId("my-order").filter({ hasText: ownOrderId });
    await expect(ownOrder).toHaveCount(1);
    await expect(ownOrder).toContainText("Summit Trail Outfitters");
    await expect(ownOrder).toContainText("Crypto (USDC)");

    // 2. one combined payment for two stores, prepared by the agent, signed once by the buyer
    const checkouts = [
      await readyCheckout(agent, STORES[0], platform, "svc.crypto"),
      await readyCheckout(agent, STORES[1], platform, "svc.crypto"),
    ];
    const prepared = await accountTool<{
      continue_url: string;
      group_id: string;
      transaction: { digest: string };
    }>(bearer, "prepare_combined_payment", {
      checkouts: STORES.map((store, i) => ({ store_slug: store, checkout_id: checkouts[i]!.id })),
      buyer_address: SANDBOX_WALLET_ADDRESS,
    });
    await page.goto(prepared.continue_url);
    await page.getByRole("button", { name: "Pay all with the test wallet" }).click();
    await expect(page.getByTestId("group-checkout-order")).toHaveCount(2);

    await page.goto(`${BASE}/account/orders`);
    const group = page.getByTestId("my-payment-group").filter({ hasText: "Voltage Electronics" }).first();
    await expect(group.getByRole("heading", { name: "One payment for 2 stores" })).toBeVisible();
    await expect(group.getByTestId("my-order")).toHaveCount(2);
    // the group names its stores once, not again in each of its orders
    await expect(group.getByTestId("order-payment-group")).toHaveCount(0);
    await expect(group).toContainText("Summit Trail Outfitters");
    // named for people: no group id or transaction digest in sight
    await expect(group).not.toContainText(prepared.group_id);
    await expect(group.getByText(prepared.transaction.digest).first()).toBeHidden();
    await expect(page.getByTestId("my-order").filter({ hasText: ownOrderId })).toHaveCount(1);

    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await expectAccessible(page, `my orders ${width}`);
      await shoot(page, testInfo, `my-orders-${width}`);
    }
  } finally {
    await agent.close();
  }
});
