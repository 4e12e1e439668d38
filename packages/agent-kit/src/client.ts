import { randomUUID } from "node:crypto";

import { signRequest, type RequestSigner } from "./http-signature.js";
import { checkoutMandate, type MandateSigner } from "./mandate.js";
import { newIdempotencyKey, withRetries, type RetryPolicy } from "./retry.js";
import type {
  Checkout,
  CheckoutComplete,
  CheckoutCreate,
  CheckoutUpdate,
  Order,
  Product,
  SearchRequest,
  SearchResponse,
  UcpMessage,
} from "./types.js";

// A typed client of one store's REST shopping surface (`{base}/s/<store>/…`): catalog search and product, checkout
// create/get/update/complete/cancel, order get. Every request carries what the service requires: a fresh
// Request-Id, UCP-Agent naming the agent's profile, the API key, and on state-changing calls an Idempotency-Key
// kept across the retries of that call (retry.ts). Optionally every request is RFC 9421-signed with the agent's
// key. A non-2xx answer throws UcpError; a business outcome (HTTP 200 with messages[]) is returned as is.

export class UcpError extends Error {
  readonly status: number;
  /** UCP's `code` (top level), or the first message's code. */
  readonly code: string;
  readonly messages: UcpMessage[];
  readonly requestId: string | null;
  readonly body: unknown;
  /** The answer's headers (a 401's WWW-Authenticate is relayed unchanged by proxies such as an MCP bridge). */
  readonly headers: Headers;

  constructor(status: number, body: unknown, requestId: string | null, headers: Headers = new Headers()) {
    const envelope = (body ?? {}) as { code?: unknown; content?: unknown; messages?: UcpMessage[] };
    const messages = Array.isArray(envelope.messages) ? envelope.messages : [];
    const code = typeof envelope.code === "string" ? envelope.code : (messages[0]?.code ?? `http_${status}`);
    const content = typeof envelope.content === "string" ? envelope.content : (messages[0]?.content ?? "");
    const where = messages[0]?.path ? ` (at ${messages[0].path})` : "";
    super(`${status} ${code}: ${content}${where}`);
    this.name = "UcpError";
    this.status = status;
    this.code = code;
    this.messages = messages;
    this.requestId = requestId;
    this.body = body;
    this.headers = headers;
  }
}

export type ShoppingClientOptions = {
  /** The service's base URL, e.g. http://127.0.0.1:3000. */
  baseUrl: string;
  /** The store's slug: the client talks to `{baseUrl}/s/<store>`. */
  store: string;
  /** A platform API key (X-API-Key); checkout needs one, card completion one with `purchase:complete`. */
  apiKey?: string;
  /** The URL of the agent's UCP profile (sent as `UCP-Agent: profile="…"`). */
  agentProfileUrl: string;
  /** Sign every request (RFC 9421) with this key, published in the profile's signing_keys. */
  requestSigner?: RequestSigner;
  retry?: RetryPolicy;
  /** Another fetch (a proxy, a test's in-process router). */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
};

export type CallOptions = {
  /** Reuse a key to make this call a retry of an earlier one; a fresh key by default. */
  idempotencyKey?: string;
};

export const createShoppingClient = (options: ShoppingClientOptions) => {
  const storeBase = `${options.baseUrl.replace(/\/+$/, "")}/s/${encodeURIComponent(options.store)}`;
  const send = options.fetch ?? ((url: string, init: RequestInit) => fetch(url, init));

  const call = async <T>(
    method: string,
    path: string,
    body?: unknown,
    { idempotencyKey }: CallOptions = {},
  ) => {
    const url = `${storeBase}${path}`;
    const text = body === undefined ? null : JSON.stringify(body);
    const key = method === "GET" ? undefined : (idempotencyKey ?? newIdempotencyKey());
    const response = await withRetries(async () => {
      let headers = new Headers({
        accept: "application/json",
        "request-id": randomUUID(),
        "ucp-agent": `profile="${options.agentProfileUrl}"`,
        ...(options.apiKey ? { "x-api-key": options.apiKey } : {}),
        ...(key ? { "idempotency-key": key } : {}),
        ...(text !== null ? { "content-type": "application/json" } : {}),
      });
      if (options.requestSigner) {
        headers = await signRequest({ method, url, headers, body: text }, options.requestSigner);
      }
      return send(url, { method, headers, ...(text !== null ? { body: text } : {}) });
    }, options.retry);
    const answer: unknown = await response.json().catch(() => null);
    if (!response.ok)
      throw new UcpError(response.status, answer, response.headers.get("request-id"), response.headers);
    return answer as T;
  };

  const checkoutPath = (id: string) => `/checkout-sessions/${encodeURIComponent(id)}`;

  return {
    store: options.store,
    searchCatalog: (request: SearchRequest) => call<SearchResponse>("POST", "/catalog/search", request),
    getProduct: async (id: string) =>
      (await call<{ product: Product }>("POST", "/catalog/product", { id })).product,
    createCheckout: (body: CheckoutCreate, opts?: CallOptions) =>
      call<Checkout>("POST", "/checkout-sessions", body, opts),
    getCheckout: (id: string) => call<Checkout>("GET", checkoutPath(id)),
    updateCheckout: (id: string, body: CheckoutUpdate, opts?: CallOptions) =>
      call<Checkout>("PUT", checkoutPath(id), body, opts),
    completeCheckout: (id: string, body: CheckoutComplete, opts?: CallOptions) =>
      call<Checkout>("POST", `${checkoutPath(id)}/complete`, body, opts),
    cancelCheckout: (id: string, opts?: CallOptions) =>
      call<Checkout>("POST", `${checkoutPath(id)}/cancel`, {}, opts),
    getOrder: (id: string) => call<Order>("GET", `/orders/${encodeURIComponent(id)}`),
  };
};

export type ShoppingClient = ReturnType<typeof createShoppingClient>;

/**
 * The completion body for a card payment: one selected `svc.card` instrument and the AP2 checkout mandate over the
 * checkout as last read, signed with the agent's mandate key. With a payment-method `token` (in test mode e.g.
 * `pm_card_visa`) the store charges it; without one the answer is `requires_escalation` with a `continue_url` where
 * the buyer pays.
 */
export const cardCompletion = async (
  checkout: Checkout,
  store: string,
  { token, mandateSigner, ttlSeconds }: { token?: string; mandateSigner: MandateSigner; ttlSeconds?: number },
): Promise<CheckoutComplete> => ({
  payment: {
    instruments: [
      {
        handler_id: "svc.card",
        selected: true,
        ...(token ? { credential: { type: "stripe_token", token } } : {}),
      },
    ],
  },
  ap2: {
    checkout_mandate: await checkoutMandate(checkout, store, mandateSigner, ttlSeconds ? { ttlSeconds } : {}),
  },
});
