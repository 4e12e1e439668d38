import { z } from "zod";

import { buyerCredentials, type BridgeContext } from "./context";
import { defineTool, type BridgeTool, type ToolAnnotations } from "./tools";

// The buyer account tools (`{base_url}/account/mcp`), proxied under their own names with the buyer's bearer alone
// (seed §5 rule 1). Listed statically so an MCP client sees them before it has a bearer (the account surface
// answers nothing without one); e2e/api/bridge keeps this list equal to the account surface's own tools/list
// (names, annotations). Annotations: read-only unless the account tool says otherwise (seed "Bridge rules").

const READ: ToolAnnotations = { readOnlyHint: true, openWorldHint: true };
const Anything = z.looseObject({});

const proxied = <S extends z.ZodType<Record<string, unknown>>>(tool: {
  name: string;
  title: string;
  description: string;
  input: S;
  annotations: ToolAnnotations;
}): BridgeTool =>
  defineTool({
    ...tool,
    output: Anything,
    run: async (ctx: BridgeContext, args) => {
      const answer = await ctx.account.tool("/account/mcp", tool.name, args, {
        credentials: buyerCredentials(ctx),
        ...(ctx.headers ? { headers: ctx.headers } : {}),
      });
      return answer.structuredContent;
    },
  });

const BUYER = " Needs the buyer's OAuth bearer (Authorization), sent to the service alone.";

export const ACCOUNT_TOOLS: readonly BridgeTool[] = [
  proxied({
    name: "list_linked_agents",
    title: "List linked agents",
    description: `The agents (OAuth clients) linked to the buyer's account: name, URL, scopes, when granted and last used.${BUYER}`,
    input: z.object({}).strict(),
    annotations: READ,
  }),
  proxied({
    name: "revoke_linked_agent",
    title: "Revoke a linked agent",
    description: `Unlink yourself (id = your OAuth client_id) from the buyer's account; your tokens stop working at once. Other agents are unlinked only by the buyer.${BUYER}`,
    input: z.object({ id: z.string().min(1).max(2048) }).strict(),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  }),
  proxied({
    name: "get_my_order",
    title: "Get my order",
    description: `One of the buyer's orders by id, in any store.${BUYER}`,
    input: z.object({ id: z.string().min(1).max(200) }).strict(),
    annotations: READ,
  }),
  proxied({
    name: "list_my_orders",
    title: "List my orders",
    description: `The buyer's orders across every store, newest first; pass the returned cursor for the next page.${BUYER}`,
    input: z
      .object({ limit: z.number().int().min(1).max(50).optional(), cursor: z.string().max(200).optional() })
      .strict(),
    annotations: READ,
  }),
  proxied({
    name: "get_intent_mandate",
    title: "Get the buyer's allowance",
    description: `The spend allowance (AP2 intent mandate) the buyer signed for you on the wallet page: id, currency, per-order maximum, expiry, and intent_mandate to send with a crypto completion. Give id for one allowance, or nothing for the newest valid one; not_found means the buyer has signed none for you yet (send them to the checkout's continue_url).${BUYER}`,
    input: z.object({ id: z.string().min(1).max(100).optional() }).strict(),
    annotations: READ,
  }),
  proxied({
    name: "prepare_combined_payment",
    title: "Prepare one crypto payment for several stores",
    description: `The raw combined prepare behind quote_purchase: checkouts [{store_slug, checkout_id}] (2–5, one per store, each ready), buyer_address (the buyer's wallet), optional input_coin_type. Returns one unsigned Sui transaction paying every merchant, its digest, the quote per checkout and continue_url (the wallet page). quote_purchase does this for you, in major units.${BUYER}`,
    input: z
      .object({
        checkouts: z
          .array(
            z.object({ store_slug: z.string().min(1).max(100), checkout_id: z.string().min(1).max(200) }),
          )
          .min(2)
          .max(5),
        buyer_address: z.string().min(1).max(100),
        input_coin_type: z.string().min(1).max(300).optional(),
      })
      .strict(),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  }),
  proxied({
    name: "list_my_allowances",
    title: "List the buyer's allowances",
    description: `The spend allowances the buyer signed for you, newest first: id (the payment_mandate_id), status (active, paused, revoked, expired), currency, per-order maximum, limits per rolling day/week/month and what remains of each now (minor units), allowed stores, expiry. Only active ones can pay; the buyer manages them on the spend-cap page.${BUYER}`,
    input: z.object({}).strict(),
    annotations: READ,
  }),
  proxied({
    name: "list_my_coupons",
    title: "List the buyer's service coupons",
    description: `The service coupons the buyer holds (funded by the service, not a store's discount codes): id, description, amount off (minor units) and currency, expiry, status (available, applied to an open checkout, redeemed, expired). confirm_purchase (card) and quote_purchase (crypto) apply_coupon use them, only when the buyer asked.${BUYER}`,
    input: z.object({}).strict(),
    annotations: READ,
  }),
  proxied({
    name: "apply_coupon_to_checkout",
    title: "Apply a service coupon to a checkout",
    description: `The raw opt-in behind confirm_purchase apply_coupon: store_slug, checkout_id, coupon_id (from list_my_coupons; null takes it off). A card completion then charges, and a crypto prepare quotes, the total minus the coupon; the service pays the merchant the coupon part. One coupon per checkout.${BUYER}`,
    input: z
      .object({
        store_slug: z.string().min(1).max(100),
        checkout_id: z.string().min(1).max(200),
        coupon_id: z.string().min(1).max(200).nullable(),
      })
      .strict(),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  }),
];
