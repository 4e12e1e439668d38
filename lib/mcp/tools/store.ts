import "server-only";

import { cancelCart } from "@/lib/carts/cancel-cart";
import { createCart } from "@/lib/carts/create-cart";
import { getCart } from "@/lib/carts/get-cart";
import { updateCart } from "@/lib/carts/update-cart";
import { listCatalogChanges } from "@/lib/catalog/changes/list-catalog-changes";
import { getProduct } from "@/lib/catalog/get-product";
import { lookupCatalog } from "@/lib/catalog/search/lookup-catalog";
import { searchCatalog } from "@/lib/catalog/search/search-catalog";
import { cancelCheckout } from "@/lib/checkout/cancel-checkout";
import { completeCheckout } from "@/lib/checkout/completion/complete-checkout";
import { createCheckout } from "@/lib/checkout/create-checkout";
import { prepareCheckoutPayment } from "@/lib/checkout/crypto/prepare-checkout-payment";
import { getCheckout } from "@/lib/checkout/get-checkout";
import { updateCheckout } from "@/lib/checkout/update-checkout";
import type { AnyOperation } from "@/lib/core/operation";
import { lookupLocations } from "@/lib/locations/lookup-locations";
import { searchLocations } from "@/lib/locations/search-locations";
import { getOrder } from "@/lib/orders/get-order";
import { requestOrderCancellation, requestOrderRefund } from "@/lib/orders/order-requests";
import { listOrderEvents } from "@/lib/webhooks/list-order-events";
import { listWebhookDeliveries } from "@/lib/webhooks/list-webhook-deliveries";
import { redeliverWebhookOp } from "@/lib/webhooks/redeliver-webhook";

import type { McpSurface } from "../handle-mcp-request";

// Tools of a store's MCP (`POST /s/<slug>/mcp`, seed §4).
export const STORE_TOOLS: readonly AnyOperation[] = [
  getProduct,
  createCart,
  getCart,
  updateCart,
  cancelCart,
  // issue #7: the order-events feed and the webhook delivery log
  listOrderEvents,
  listWebhookDeliveries,
  redeliverWebhookOp,
  // issue #4: checkout sessions and orders
  createCheckout,
  getCheckout,
  updateCheckout,
  cancelCheckout,
  getOrder,
  requestOrderCancellation,
  requestOrderRefund,
  searchCatalog,
  lookupCatalog,
  listCatalogChanges,
  searchLocations,
  lookupLocations,
  prepareCheckoutPayment,
  completeCheckout,
];

export const storeMcp = (storeSlug: string): McpSurface => ({
  name: `agent-commerce-service/store/${storeSlug}`,
  instructions: `Store "${storeSlug}" (UCP 2026-04-08). Send meta['ucp-agent'].profile on every call and meta['idempotency-key'] on state-changing tools; arguments sit under the catalog/cart/checkout namespace.`,
  tools: STORE_TOOLS,
  storeSlug,
});
