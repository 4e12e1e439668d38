import "server-only";

import { z } from "zod";

import { OrderFilterSchema, ordersOfStore } from "@/lib/orders/admin-orders";
import { cancelOrder } from "@/lib/orders/cancel-order";
import { decideOrderRequest } from "@/lib/orders/order-requests";
import { recordFulfillmentEvent } from "@/lib/orders/record-fulfillment";
import { refundOrder } from "@/lib/orders/refund-order";
import { getStoreOrder } from "@/lib/orders/store-order";
import { orderToWire } from "@/lib/orders/to-wire";
import { AGENT_CANCELLATION_POLICIES, updateAgentRequestPolicy } from "@/lib/stores/agent-request-policy";
import { setCryptoSettings, SetCryptoSettingsSchema } from "@/lib/stores/crypto-settings";
import { forgetSavedAddresses } from "@/lib/stores/forget-saved-addresses";
import { getStoreOrThrow } from "@/lib/stores/get-store-or-throw";
import {
  closeOwedBackOfStore,
  CloseOwedBackSchema,
  owedBackOfStore,
  paymentRailsOf,
} from "@/lib/stores/payment-rails";
import { setStoreWebhookUrl } from "@/lib/stores/set-webhook-url";
import { taxRateText, updateStoreSettings } from "@/lib/stores/update-store-settings";
import { UCP_VERSION } from "@/lib/ucp/version";

import { defineMerchantRoute, type AnyMerchantRoute, type MerchantContext } from "./define";
import { onWire, STORE_ROUTES } from "./store-routes";

// The routes of the merchant REST API, each over the domain operation the admin uses. Money in minor units.

const orderView = async (ctx: MerchantContext, id: string) => {
  const order = await getStoreOrder(ctx.store, id);
  return orderToWire(order, { store: ctx.store, baseUrl: ctx.baseUrl, ucpVersion: UCP_VERSION });
};

const Empty = z.strictObject({});
const OrderId = z.strictObject({ id: z.string().min(1).max(200) });

const storeView = (store: MerchantContext["store"]) => ({
  id: store.id,
  slug: store.slug,
  name: store.name,
  description: store.description,
  mode: store.mode,
  currency: store.currency,
  country: store.country,
  tax_rate_bps: store.taxRateBps,
  agent_cancellations: store.agentCancellations,
  agent_refund_auto_minor: store.agentRefundAutoMinor,
  remember_addresses: store.rememberAddresses,
  webhook_url: store.webhookUrl,
  created_at: store.createdAt.toISOString(),
});

export const getStoreSettings = defineMerchantRoute({
  name: "merchant_get_store",
  title: "Get store settings",
  description:
    "The store's settings: name, mode (test/live), currency, tax rate in basis points, what agents' cancellation and refund requests do (agent_cancellations: automatic | review; agent_refund_auto_minor: refund requests up to this amount are paid at once, 0: every one waits), remember_addresses (shipping addresses an agent sends are kept per buyer e-mail and offered back to that agent only), webhook URL.",
  method: "GET",
  path: "/settings",
  permission: "settings:read",
  input: Empty,
  run: async (ctx) => storeView(ctx.store),
});

export const updateStoreSettingsRoute = defineMerchantRoute({
  name: "merchant_update_store",
  title: "Change store settings",
  description:
    "Changes the fields sent (the others stay): name, currency (only while the store has no order), mode (test/live: live needs the live configuration of its rails), tax_rate_bps (basis points, 825 = 8.25%), agent_cancellations (automatic | review), agent_refund_auto_minor (minor units), remember_addresses (true: keep the shipping addresses an agent sends per buyer e-mail and offer them back to that agent only; false: keep none and forget those kept). The slug never changes. Answers the settings.",
  method: "PATCH",
  path: "/settings",
  permission: "settings:write",
  input: z.strictObject({
    name: z.string().optional(),
    currency: z.string().optional(),
    mode: z.enum(["test", "live"], { error: "Choose test or live" }).optional(),
    tax_rate_bps: z
      .number({ error: "tax_rate_bps is an integer (basis points)" })
      .int("tax_rate_bps is an integer (basis points)")
      .min(0, "tax_rate_bps is from 0 to 10000")
      .max(10_000, "tax_rate_bps is from 0 to 10000")
      .optional(),
    agent_cancellations: z
      .enum(AGENT_CANCELLATION_POLICIES, { error: "agent_cancellations is automatic or review" })
      .optional(),
    agent_refund_auto_minor: z
      .number({ error: "agent_refund_auto_minor is an integer (minor units)" })
      .int("agent_refund_auto_minor is an integer (minor units)")
      .min(0, "agent_refund_auto_minor is 0 or more")
      .max(2_147_483_647, "agent_refund_auto_minor is too large")
      .optional(),
    remember_addresses: z.boolean({ error: "remember_addresses is true or false" }).optional(),
  }),
  run: async (ctx, input) => {
    const { store } = ctx;
    // the admin's operation takes every field and the tax rate as the form's percent text (825 → "8.25")
    const updated = await onWire(
      () =>
        updateStoreSettings(store, {
          name: input.name ?? store.name,
          currency: input.currency ?? store.currency,
          mode: input.mode ?? store.mode,
          taxRate: taxRateText(input.tax_rate_bps ?? store.taxRateBps),
        }),
      { taxRate: "tax_rate_bps" },
    );
    if (
      input.agent_cancellations === undefined &&
      input.agent_refund_auto_minor === undefined &&
      input.remember_addresses === undefined
    ) {
      return storeView(updated);
    }
    // already validated by the input schema above: this second write cannot be refused after the first
    return storeView(
      await updateAgentRequestPolicy(updated, {
        agentCancellations: input.agent_cancellations ?? updated.agentCancellations,
        agentRefundAutoMinor: input.agent_refund_auto_minor ?? updated.agentRefundAutoMinor,
        rememberAddresses: input.remember_addresses ?? updated.rememberAddresses,
      }),
    );
  },
});

export const forgetSavedAddressesRoute = defineMerchantRoute({
  name: "merchant_forget_saved_addresses",
  title: "Forget a buyer's saved addresses",
  description:
    "Deletes every shipping address agents saved for this buyer e-mail in the store (remember_addresses), whichever agent saved it. Answers the e-mail as kept (trimmed, lower-cased) and how many addresses were forgotten (0 when none were kept).",
  method: "POST",
  path: "/saved-addresses/forget",
  permission: "settings:write",
  input: z.strictObject({ email: z.string({ error: "email is the buyer's e-mail address" }) }),
  run: async (ctx, input) => onWire(() => forgetSavedAddresses(ctx.store, { email: input.email })),
});

export const getPaymentRails = defineMerchantRoute({
  name: "merchant_get_payment_rails",
  title: "Get payment rails",
  description:
    "Card (Stripe keys: only the last four characters of secrets, the publishable key whole) and crypto settings (accepted coins in order, payout address, network).",
  method: "GET",
  path: "/payments",
  permission: "settings:read",
  input: Empty,
  run: async (ctx) => paymentRailsOf(ctx.store),
});

export const setCryptoRail = defineMerchantRoute({
  name: "merchant_set_crypto_settings",
  title: "Set crypto settings",
  description:
    "Changes the crypto rail: enabled, accepted_coins (our symbols, in order of preference), payout_address, network (the live network). Omitted fields stay. Enabling needs a coin and a payout address.",
  method: "PUT",
  path: "/payments/crypto",
  permission: "settings:write",
  input: SetCryptoSettingsSchema,
  run: async (ctx, input) => {
    await setCryptoSettings(ctx.store.slug, input);
    return paymentRailsOf(await getStoreOrThrow(ctx.store.slug)).crypto;
  },
});

export const listOwedBack = defineMerchantRoute({
  name: "merchant_list_owed_back",
  title: "List money owed back in crypto",
  description:
    "Crypto owed back to buyers (over-payments, late payments, refunds of crypto orders), oldest first: open ones, or every one with all=true. Amounts are base units of each coin.",
  method: "GET",
  path: "/owed-back",
  permission: "settings:read",
  input: z.strictObject({ all: z.enum(["true", "false"]).optional() }),
  run: async (ctx, input) => ({ owed_back: await owedBackOfStore(ctx.store, { all: input.all === "true" }) }),
});

export const closeOwedBackRoute = defineMerchantRoute({
  name: "merchant_close_owed_back",
  title: "Close money owed back",
  description:
    "Closes a record with the digest of the transaction that paid the buyer back; the transaction is checked on the chain (final, successful, after the record, enough of every coin).",
  method: "POST",
  path: "/owed-back/{id}/close",
  permission: "settings:write",
  input: CloseOwedBackSchema,
  run: async (ctx, input) => closeOwedBackOfStore(ctx.store, input),
});

export const getWebhook = defineMerchantRoute({
  name: "merchant_get_webhook",
  title: "Get webhook endpoint",
  description: "The store's order-webhook URL (null: webhooks are off).",
  method: "GET",
  path: "/webhook",
  permission: "settings:read",
  input: Empty,
  run: async (ctx) => ({ webhook_url: ctx.store.webhookUrl }),
});

export const setWebhook = defineMerchantRoute({
  name: "merchant_set_webhook",
  title: "Set webhook endpoint",
  description: 'Sets the order-webhook URL (https; a live store needs a public host); "" turns webhooks off.',
  method: "PUT",
  path: "/webhook",
  permission: "settings:write",
  input: z.strictObject({ webhook_url: z.string().max(2000) }),
  run: async (ctx, input) => ({ webhook_url: await setStoreWebhookUrl(ctx.store.slug, input.webhook_url) }),
});

export const listOrdersRoute = defineMerchantRoute({
  name: "merchant_list_orders",
  title: "List orders",
  description:
    "The store's orders, newest first, 25 a page: filters status (or not_canceled: every order but the canceled ones), from and to (UTC days, YYYY-MM-DD), rail (svc.card | svc.crypto), agent (the agent's profile URL), q (order id or buyer email), page. Totals in minor units.",
  method: "GET",
  path: "/orders",
  permission: "orders:read",
  input: OrderFilterSchema,
  run: async (ctx, input) => {
    const page = await ordersOfStore(ctx.store, input);
    return {
      orders: page.orders.map((o) => ({
        id: o.id,
        created_at: o.createdAt.toISOString(),
        status: o.status,
        currency: o.currency,
        total: o.totalMinor,
        buyer_email: o.buyerEmail,
        rail: o.rail,
        agent: o.agent,
      })),
      page: page.filter.page,
      pages: page.pages,
      total_count: page.total,
    };
  },
});

export const getOrderRoute = defineMerchantRoute({
  name: "merchant_get_order",
  title: "Get order",
  description:
    "One order of the store, whoever placed it: lines, fulfilment, adjustments, totals in minor units.",
  method: "GET",
  path: "/orders/{id}",
  permission: "orders:read",
  input: OrderId,
  run: (ctx, input) => orderView(ctx, input.id),
});

export const fulfilOrder = defineMerchantRoute({
  name: "merchant_fulfil_order",
  title: "Record a fulfilment event",
  description:
    "Records a fulfilment event: type shipped (default every remaining unit, or line_items) with carrier and tracking, delivered, or another UCP event type. Returns the order.",
  method: "POST",
  path: "/orders/{id}/fulfilments",
  permission: "orders:write",
  input: OrderId.extend({
    type: z.string().min(1).max(40),
    line_items: z
      .array(z.strictObject({ id: z.string().min(1), quantity: z.number().int().min(1) }))
      .max(500)
      .optional(),
    carrier: z.string().min(1).max(100).optional(),
    tracking_number: z.string().min(1).max(200).optional(),
    tracking_url: z.string().max(2000).optional(),
    description: z.string().min(1).max(500).optional(),
  }),
  status: 201,
  run: async (ctx, input) => {
    await recordFulfillmentEvent(ctx.store.slug, input.id, {
      type: input.type,
      lineItems: input.line_items,
      carrier: input.carrier,
      trackingNumber: input.tracking_number,
      trackingUrl: input.tracking_url,
      description: input.description,
    });
    return orderView(ctx, input.id);
  },
});

export const cancelOrderRoute = defineMerchantRoute({
  name: "merchant_cancel_order",
  title: "Cancel order",
  description:
    "Cancels an order none of whose units shipped: stock back, the money refunded through the rail that charged. Cancelling a canceled order returns it.",
  method: "POST",
  path: "/orders/{id}/cancel",
  permission: "orders:write",
  input: OrderId.extend({ reason: z.string().min(1).max(500).optional() }),
  run: async (ctx, input) => {
    await cancelOrder(ctx.store.slug, input.id, { reason: input.reason });
    return orderView(ctx, input.id);
  },
});

export const refundOrderRoute = defineMerchantRoute({
  name: "merchant_refund_order",
  title: "Refund order",
  description:
    "Refunds a paid order in full (no amount) or in part (amount in minor units, at most what is left to refund). One refund at a time per order.",
  method: "POST",
  path: "/orders/{id}/refunds",
  permission: "orders:write",
  input: OrderId.extend({
    amount: z.number().int("amount is in minor units (an integer)").min(1).optional(),
    reason: z.string().min(1).max(500).optional(),
  }),
  status: 201,
  run: async (ctx, input) => {
    await refundOrder(ctx.store.slug, input.id, { amount: input.amount, reason: input.reason });
    return orderView(ctx, input.id);
  },
});

const RequestId = z.strictObject({ id: z.string().min(1).max(200) });

export const approveOrderRequestRoute = defineMerchantRoute({
  name: "merchant_approve_order_request",
  title: "Approve an agent's request",
  description:
    "Grants an agent's cancellation or refund request that waits for the store (requests[] of the order, status pending): the order is canceled, or the amount asked is refunded, through the rail that charged. Answers the order.",
  method: "POST",
  path: "/order-requests/{id}/approve",
  permission: "orders:write",
  input: RequestId,
  run: async (ctx, input) => {
    const order = await decideOrderRequest(ctx.store, input.id, { approve: true }, "merchant");
    return orderView(ctx, order.id);
  },
});

export const declineOrderRequestRoute = defineMerchantRoute({
  name: "merchant_decline_order_request",
  title: "Decline an agent's request",
  description:
    "Declines an agent's cancellation or refund request that waits for the store, with the reason the agent passes on to the buyer (order event order.request_declined). Answers the order.",
  method: "POST",
  path: "/order-requests/{id}/decline",
  permission: "orders:write",
  input: RequestId.extend({ reason: z.string().min(1).max(500) }),
  run: async (ctx, input) => {
    const order = await decideOrderRequest(
      ctx.store,
      input.id,
      { approve: false, reason: input.reason },
      "merchant",
    );
    return orderView(ctx, order.id);
  },
});

/** Every route of the merchant REST API (the catch-all route file dispatches through it, the OpenAPI lists it). */
export const MERCHANT_ROUTES: readonly AnyMerchantRoute[] = [
  getStoreSettings,
  updateStoreSettingsRoute,
  forgetSavedAddressesRoute,
  getPaymentRails,
  setCryptoRail,
  listOwedBack,
  closeOwedBackRoute,
  getWebhook,
  setWebhook,
  listOrdersRoute,
  getOrderRoute,
  fulfilOrder,
  cancelOrderRoute,
  refundOrderRoute,
  approveOrderRequestRoute,
  declineOrderRequestRoute,
  ...STORE_ROUTES,
];
