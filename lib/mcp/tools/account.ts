import "server-only";

import { listMyLinkedAgents } from "@/lib/buyers/list-my-linked-agents";
import { revokeMyLinkedAgent } from "@/lib/buyers/revoke-my-linked-agent";
import { prepareCombinedPayment } from "@/lib/checkout/crypto/prepare-combined-payment";
import type { AnyOperation } from "@/lib/core/operation";
import { applyCouponToCheckout, listMyCoupons } from "@/lib/coupons/operations";
import { getIntentMandate, listMyAllowances } from "@/lib/mandates/intent-mandates";
import { getMyOrder, listMyOrders } from "@/lib/orders/my-orders";

import type { McpSurface } from "../handle-mcp-request";

// Tools of the buyer account MCP (`{base_url}/account/mcp`, seed §4): bearer-only, no Request-Id / UCP-Agent
// (seed §5 rule 9).
export const ACCOUNT_TOOLS: readonly AnyOperation[] = [
  listMyLinkedAgents,
  revokeMyLinkedAgent,
  getMyOrder,
  listMyOrders,
  getIntentMandate,
  prepareCombinedPayment,
  listMyAllowances,
  listMyCoupons,
  applyCouponToCheckout,
];

export const ACCOUNT_MCP: McpSurface = {
  name: "agent-commerce-service/account",
  instructions:
    "The buyer's own account. Authenticate with the buyer's OAuth access token (Authorization: Bearer); no meta or envelope headers are needed.",
  tools: ACCOUNT_TOOLS,
  auth: "buyer-bearer",
};
