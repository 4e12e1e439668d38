// The one error table (STYLE.md §6, DECISIONS.md B9). Every AppError code lives here with how it renders.
// `protocol` errors render as non-2xx with the UCP error envelope (REST) or a JSON-RPC error (MCP);
// `business` outcomes render as HTTP 200 with `ucp.status: "error"` (UCP overview §Error Handling).
// `source` records who fixed the status: the seed spec, the UCP spec, or us where both are silent.

export type ErrorKind = "protocol" | "business";
export type Severity = "recoverable" | "requires_buyer_input" | "requires_buyer_review" | "unrecoverable";

export type ErrorSpec = {
  kind: ErrorKind;
  httpStatus: number;
  /** JSON-RPC error code on MCP (UCP §9 table: -32600/-32602 malformed, -32000 auth/conflict, -32001 profile). */
  mcpCode: number;
  severity: Severity;
  source: "seed" | "ucp" | "ours";
  docs: string;
};

const protocol = (
  httpStatus: number,
  mcpCode: number,
  source: ErrorSpec["source"],
  docs: string,
  severity: Severity = "unrecoverable",
): ErrorSpec => ({ kind: "protocol", httpStatus, mcpCode, severity, source, docs });

const business = (
  source: ErrorSpec["source"],
  docs: string,
  severity: Severity = "recoverable",
): ErrorSpec => ({
  kind: "business",
  httpStatus: 200,
  mcpCode: 0,
  severity,
  source,
  docs,
});

export const ERROR_CODES = {
  // ── credentials and trust ──────────────────────────────────────────────────────────────
  /** Thrown by resolvePrincipal: X-API-Key unknown or revoked (seed §7: 401). */
  invalid_api_key: protocol(401, -32000, "seed", "Unknown or revoked platform key: use a valid X-API-Key."),
  /** Thrown by the merchant REST API: unknown, malformed or revoked merchant key (ours: 401). */
  invalid_merchant_key: protocol(
    401,
    -32000,
    "ours",
    "Unknown or revoked merchant key: send X-API-Key with a merchant key (acsm_…) the store's owner created in /admin.",
  ),
  /** Thrown by resolvePrincipal: bearer expired or invalid (seed §5 rule 2: 401 + WWW-Authenticate). */
  invalid_token: protocol(
    401,
    -32000,
    "seed",
    "Expired or invalid bearer token: refresh it with refresh_token.",
  ),
  /** Thrown by assertTier: the operation needs a higher trust tier than the request reached (status ours). */
  insufficient_trust: protocol(403, -32000, "ours", "Trust tier too low: authenticate to the token tier."),
  /** Thrown by assertScope: the credential lacks a permission or scope (UCP: 403). */
  insufficient_scope: protocol(
    403,
    -32000,
    "ucp",
    "Missing permission: purchase:complete, orders:read or orders:request.",
  ),

  // ── HTTP message signatures (RFC 9421; UCP signatures.md, CONTRACT.md §13) ────────────────
  /** Thrown by verifyRequestSignature: Signature without Signature-Input or the reverse (UCP: 401). */
  signature_missing: protocol(401, -32000, "ucp", "Send Signature-Input and Signature together (RFC 9421)."),
  /** Thrown by verifyRequestSignature: a signature that does not verify, is malformed or expired (UCP: 401). */
  signature_invalid: protocol(
    401,
    -32000,
    "ucp",
    "Sign @method, @authority, @path (+ @query, ucp-agent, idempotency-key, content-digest, content-type) with created and keyid; the docs have a verification kit.",
  ),
  /** Thrown by verifyRequestSignature: keyid is not in the agent profile's signing_keys (UCP: 401). */
  key_not_found: protocol(401, -32000, "ucp", "Publish the key in your agent profile's signing_keys."),
  /** Thrown by verifyRequestSignature: Content-Digest missing for a body or not the sha-256 of it (UCP: 400). */
  digest_mismatch: protocol(400, -32000, "ucp", "Send Content-Digest: sha-256=:<base64 of the raw body>:."),
  /** Thrown by verifyRequestSignature: key type or alg we do not verify (ES256 is required; UCP: 400). */
  algorithm_unsupported: protocol(400, -32000, "ucp", "Sign with ES256 (P-256) and leave alg out."),
  /** Thrown by verifyRequestSignature: the same signature was already used (status ours). */
  signature_replayed: protocol(401, -32000, "ours", "Sign every request afresh (a new created time)."),

  // ── request envelope ───────────────────────────────────────────────────────────────────
  /** Thrown by readRequestEnvelope: no Request-Id header (seed §4; status ours). */
  missing_request_id: protocol(400, -32600, "ours", "Send a unique Request-Id header on every request."),
  /** Thrown by readRequestEnvelope: no UCP-Agent header (status ours). */
  missing_ucp_agent: protocol(400, -32600, "ours", 'Send UCP-Agent: profile="https://…/.well-known/ucp".'),
  /** Thrown by readRequestEnvelope: UCP-Agent is not an RFC 8941 dictionary with a string profile (status ours). */
  invalid_ucp_agent: protocol(
    400,
    -32600,
    "ours",
    'UCP-Agent must be an RFC 8941 dictionary: profile="<url>".',
  ),
  /** Thrown by readRequestEnvelope / MCP meta check: the profile is not an absolute http(s) URL (UCP: 400, -32001). */
  invalid_profile_url: protocol(400, -32001, "ucp", "The agent profile must be an absolute https URL."),
  /** Thrown by the REST wrapper: state-changing call without Idempotency-Key (status ours). */
  missing_idempotency_key: protocol(
    400,
    -32602,
    "ours",
    "Send an Idempotency-Key header on state-changing calls.",
  ),
  /** Thrown by getAgentProfile: the agent profile could not be fetched (timeout, non-2xx, redirect; UCP §4: 424). */
  profile_unreachable: protocol(
    424,
    -32001,
    "ucp",
    "Host your agent profile at an https URL that answers 200 JSON.",
  ),
  /** Thrown by getAgentProfile: the agent profile is not JSON or lacks `ucp.version` (UCP §4: 422). */
  profile_malformed: protocol(
    422,
    -32001,
    "ucp",
    "Your agent profile must be a UCP profile with ucp.version.",
  ),
  /** Thrown by negotiateVersion: the platform's UCP version is not served (UCP §4: 422, -32001). */
  version_unsupported: protocol(422, -32001, "ucp", "This service speaks UCP 2026-04-08."),
  /**
   * Thrown by requireCapability: the platform profile and the business share no version of a capability the
   * operation needs (UCP overview.md "Negotiation Failure": a business outcome, HTTP 200, MCP result).
   */
  capabilities_incompatible: business(
    "ucp",
    "Declare the capability named in the message (version 2026-04-08) in your platform profile's ucp.capabilities.",
    "unrecoverable",
  ),

  // ── malformed input and limits ─────────────────────────────────────────────────────────
  /** Thrown by operations and input parsing: the request is well-formed JSON but invalid (seed §7; 400 ours). */
  invalid_request: protocol(400, -32602, "seed", "The request does not match the operation's input schema."),
  /** Thrown by parseJsonBody: the body is not valid JSON (ours). */
  malformed_json: protocol(400, -32700, "ours", "The request body is not valid JSON."),
  /** Thrown by parseJsonBody: Content-Type is not application/json (ours). */
  unsupported_media_type: protocol(415, -32600, "ours", "Send Content-Type: application/json."),
  /** Thrown by parseJsonBody: body over the size limit (ours; 413). */
  payload_too_large: protocol(413, -32600, "ours", "The request body exceeds the size limit."),
  /** Thrown by batch operations over their item limit (UCP catalog lookup: 400, -32602). */
  request_too_large: protocol(400, -32602, "ucp", "Too many items in one request."),
  /**
   * Thrown by list_catalog_changes: `since` or the cursor's position is older than the change feed keeps (7 days,
   * docs/catalog-changes.md), or older than the feed itself; changes may be missing (ours: 410 Gone).
   */
  resync_required: protocol(
    410,
    -32000,
    "ours",
    "The catalog change feed no longer holds changes that old: re-read the catalog in full (search_catalog with filters.available false, or lookup_catalog), then follow the feed with since = the time that full read started.",
    "recoverable",
  ),
  /** Rendered by the HTTP server for oversized request headers (ours; 431). */
  headers_too_large: protocol(431, -32600, "ours", "Request headers exceed the size limit."),
  /** Thrown by route handlers for an unsupported HTTP method (ours). */
  method_not_allowed: protocol(405, -32600, "ours", "This path does not accept that HTTP method."),
  /** Thrown by the rate limiter (UCP: 429 + Retry-After). */
  rate_limited: protocol(
    429,
    -32000,
    "ucp",
    "Too many requests: retry after the Retry-After delay.",
    "recoverable",
  ),

  // ── resources and idempotency ──────────────────────────────────────────────────────────
  /** Thrown by getStoreOrThrow: no store with that slug under /s/<slug>/… (ours: 404). */
  store_not_found: protocol(404, -32602, "ours", "No store with that slug: check metadata.svc_seller.slug."),
  /** Rendered by the catch-all route: no such path or method on this service (seed §7: wrong path → 404). */
  route_not_found: protocol(404, -32601, "ours", "No such path: see the surfaces table in the README."),
  /** Thrown by loadCheckoutOrThrow: the checkout was created at another UCP version (ours: 409, nothing changes). */
  version_mismatch: protocol(
    409,
    -32000,
    "ours",
    "Continue the checkout at the UCP version it was created at (your profile's ucp.version), or start a new one.",
  ),
  /** Thrown when an operation conflicts with the resource's state (ours: 409). */
  conflict: protocol(409, -32000, "ours", "The resource is not in a state that allows this operation."),
  /** Thrown by withIdempotency: same key, different arguments (UCP: 409; the name is ours). */
  idempotency_key_reused: protocol(
    409,
    -32000,
    "ours",
    "This Idempotency-Key was used with other arguments.",
  ),
  /** Thrown by withIdempotency: the first call with this key is still running (409 + Retry-After; ours). */
  idempotency_in_flight: protocol(
    409,
    -32000,
    "ours",
    "A call with this Idempotency-Key is still in progress.",
  ),
  /** Thrown by withIdempotency when the key store is unavailable: fail closed (UCP §14: 503). */
  service_unavailable: protocol(
    503,
    -32000,
    "ucp",
    "Temporarily unavailable: retry after the Retry-After delay.",
  ),
  /** Anything unexpected: logged with the Request-Id; its message never reaches the client. */
  /** Thrown when a store secret must be stored or read but STORE_SECRETS_KEY lacks its key (ours: 503). */
  secrets_key_missing: protocol(
    503,
    -32603,
    "ours",
    "The operator must set STORE_SECRETS_KEY (with every key id still in use) before store secrets can be stored or read.",
  ),
  internal_error: protocol(500, -32603, "ucp", "Unexpected error; it has been logged with your Request-Id."),

  // ── OAuth authorization server (issue #6; rendered in RFC 6749 form by lib/oauth/render-oauth.ts) ──
  /** Thrown by the token endpoint and CIMD resolution: unknown client, bad secret, unusable metadata (RFC 6749 §5.2). */
  invalid_client: protocol(
    401,
    -32000,
    "ucp",
    "Unknown client or failed client authentication (RFC 6749 §5.2).",
  ),
  /** Thrown by the grants: code or refresh token unknown, expired, replayed, or bound elsewhere (RFC 6749 §5.2). */
  invalid_grant: protocol(
    400,
    -32000,
    "ucp",
    "The code or refresh token is invalid, expired or already used.",
  ),
  /** Thrown by the token endpoint: grant_type not one of authorization_code, refresh_token, client_credentials. */
  unsupported_grant_type: protocol(
    400,
    -32602,
    "ucp",
    "Use authorization_code, refresh_token or client_credentials.",
  ),
  /** Thrown by the account MCP: no buyer bearer token was sent (UCP identity linking: 401 + Bearer challenge). */
  identity_required: protocol(401, -32000, "ucp", "Send Authorization: Bearer <buyer access token>."),
  /** Thrown by the authorize/token endpoints: a scope the server or the client may not have (RFC 6749 §3.3). */
  invalid_scope: protocol(
    400,
    -32602,
    "ucp",
    "Request only scopes_supported: purchase:complete, offline_access.",
  ),
  /** Thrown by the token endpoint: the client may not use this grant type (RFC 6749 §5.2). */
  unauthorized_client: protocol(400, -32000, "ucp", "This client is not allowed to use that grant type."),
  /** Thrown by the authorize endpoint: response_type is not `code` (no implicit grant; RFC 9700 §2.1.2). */
  unsupported_response_type: protocol(400, -32602, "ucp", "Only response_type=code is supported."),
  /** Thrown when the buyer denies consent (RFC 6749 §4.1.2.1). */
  access_denied: protocol(403, -32000, "ucp", "The buyer denied the authorization request."),

  // ── merchant accounts and the admin ────────────────────────────────────────────────────
  /** The conformance store's simulate-shipping path without its `Simulation-Secret`, or with another one. */
  simulation_secret_invalid: protocol(
    403,
    -32000,
    "ours",
    "Send the Simulation-Secret the conformance store was started with (npm run conformance:serve).",
  ),
  /** Thrown by the merchant access check: a staff member asked for an owner-only action of the store. */
  owner_required: protocol(403, -32000, "ours", "Only an owner of the store may do this: ask one."),
  /** Thrown by the store team: the change would leave the store without an owner. */
  last_owner: protocol(
    409,
    -32000,
    "ours",
    "A store keeps at least one owner: make someone else an owner first.",
  ),
  /** Thrown by updateStoreSettings: the store has orders, so its currency can no longer change. */
  currency_locked: protocol(
    409,
    -32000,
    "ours",
    "A store's currency is fixed once it has an order (its totals and refunds are in it); open a new store instead.",
  ),
  /** Thrown by updateStoreSettings: a slug is part of every URL agents hold, so it never changes after creation. */
  slug_immutable: protocol(
    409,
    -32000,
    "ours",
    "A store's address (slug) cannot change: agents and buyers hold its links. Create a new store for a new one.",
  ),
  /** Thrown by updateStoreSettings: switching to live while an enabled rail lacks its live configuration. */
  live_requirements_missing: protocol(
    409,
    -32000,
    "ours",
    "Set the live card keys (or crypto payout address) on the payments page first; the store stays in test mode.",
  ),
  /** Thrown by the mail port: the SMTP server refused the message or could not be reached; nothing was sent. */
  mail_failed: protocol(502, -32000, "ours", "The mail could not be sent: try again in a moment."),

  // ── business outcomes (HTTP 200 + ucp.status "error") ──────────────────────────────────
  /** Thrown when an id (product, cart, checkout, order) is unknown or not visible to the caller (UCP: 200). */
  not_found: business(
    "ucp",
    "No such resource for this caller; start over from search or create.",
    "unrecoverable",
  ),
  /** Thrown by createCart when none of the requested variants is sold by the store (UCP standard code). */
  item_unavailable: business("ucp", "Use variant ids from this store's catalog (metadata.svc_seller.slug)."),
  /** Thrown by update/cancel checkout on a completed, canceled or completing session (UCP §7.2: immutable). */
  checkout_not_modifiable: business(
    "ours",
    "Completed and canceled checkouts are final: create a new checkout.",
    "unrecoverable",
  ),
  /** Thrown by placeOrder when a line's stock no longer covers its quantity at completion (UCP standard code). */
  out_of_stock: business("ucp", "Lower the quantity or remove the line, then complete again."),
  /** Thrown by selectRail: several rails and none selected; no order is placed (seed §4). */
  payment_selection_required: business("seed", "Read ucp.payment_handlers and retry with a handler_id."),
  /** Thrown by verifyCheckoutMandate: AP2 exp missing or past (seed §7). */
  mandate_expired: business("seed", "Mint a fresh checkout mandate."),
  /** Thrown by verifyCheckoutMandate: mandate bound to another store or checkout (seed §7). */
  mandate_scope_mismatch: business("seed", "Bind the mandate to this store slug and checkout."),
  // ── issue #5: card completion and AP2 checkout mandates ──────────────────────────────
  /** Thrown by verifyCheckoutMandate: a card completion without ap2.checkout_mandate (UCP AP2 error code). */
  mandate_required: business(
    "ucp",
    "Checkout mandate: send a detached ES256 JWS over mandateTerms(). Buyer's allowance: send the buyer to continue_url to sign one, then retry.",
  ),
  /** Thrown by verifyCheckoutMandate: malformed JWS, wrong alg or a signature over other terms (UCP AP2). */
  mandate_invalid_signature: business(
    "ucp",
    "Re-read the checkout, sign the JCS of mandateTerms(checkout, slug) with ES256 and send <h>..<sig>.",
  ),
  /** Thrown by verifyCheckoutMandate: the mandate's kid is not in the agent profile's signing_keys (UCP AP2). */
  agent_missing_key: business("ucp", "Publish the mandate's signing key (kid) in your agent profile."),
  /** Thrown by selectRail: handler_id is not an inner rail id we offer (a registry key such as sh.svc.card too). */
  unknown_payment_handler: business(
    "ours",
    "Use an inner handler id from ucp.payment_handlers (svc.card / svc.crypto), not the registry key.",
  ),
  /** Thrown by selectRail: more than one instrument is marked selected. */
  multiple_payment_selections: business("ours", "Mark exactly one payment instrument selected: true."),
  /** Thrown when a checkout selects (create, update) or completes with a rail the store lists but that cannot move
   * money yet, and by refunds through such a rail. */
  rail_not_available: business("ours", "This rail cannot move money yet (complete, refund): use svc.card."),
  /** Returned by completion when the rail's provider refused the payment (card declined, 3-DS failed; UCP
   * standard code, DECISIONS B18): the provider's reason is in the message; the session stays open. */
  payment_failed: business("ucp", "Ask the buyer for another payment method and complete again."),
  /** Thrown by a rail when its provider could not be reached or failed (nothing was charged): Stripe, the Sui
   * fullnode or the price oracle (details.provider, details.reason: timeout | unreachable | bad_response). */
  payment_provider_error: business("ours", "Retry the completion with the same idempotency key shortly."),
  /** Thrown by crypto prepare: the wallet cannot cover the total (seed §7). */
  insufficient_funds: business("seed", "The wallet balance does not cover the total."),
  /** Thrown by crypto prepare: coin not in the store's accepted coins (seed §7). */
  unsupported_coin: business("seed", "Use a coin listed in the store's accepted_coins."),
  /** Thrown by crypto prepare: not enough on-chain liquidity for the named coin (seed §7). */
  insufficient_liquidity: business("seed", "Choose another coin or let the service pick (auto)."),
  /** The order is over the buyer's signed allowance (intent mandate, DECISIONS B6): nothing was charged. */
  spend_cap_exceeded: business(
    "ours",
    "The buyer's allowance does not cover this order (details.remaining says what is left per window): ask the buyer to raise it on the spend-cap page.",
    "requires_buyer_input",
  ),
  /**
   * The buyer revoked the allowance, signed a newer version of it (an edit), or unlinked the agent it names
   * (DECISIONS B6, spend ledger): nothing was reserved or charged.
   */
  mandate_revoked: business(
    "ours",
    "Fetch the buyer's current allowances with list_my_allowances / get_intent_mandate, or ask the buyer to sign a new one.",
    "requires_buyer_input",
  ),
  /** The buyer paused the allowance on the spend-cap page: nothing was reserved or charged until they resume it. */
  allowance_paused: business(
    "ours",
    "Ask the buyer to resume the allowance on the spend-cap page, or use another of their allowances.",
    "requires_buyer_input",
  ),
  /** A service coupon (DECISIONS B16) past its expiry: nothing was applied. */
  coupon_expired: business(
    "ours",
    "Use another of the buyer's coupons (list_my_coupons), or pay without one.",
  ),
  /** The buyer's coupon was already redeemed on an order, or is applied to another open checkout. */
  coupon_used: business("ours", "Use another coupon (list_my_coupons) or cancel the checkout holding it."),
  /** The coupon is in another currency than the checkout: nothing was applied. */
  coupon_currency_mismatch: business("ours", "Use a coupon in the checkout's currency (list_my_coupons)."),
  /** The coupon is worth the whole total or more (a charge is never zero or negative): nothing was applied or
   * charged. */
  coupon_exceeds_total: business("ours", "Take the coupon off (coupon_id null) or use a smaller one."),
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

export const isErrorCode = (value: string): value is ErrorCode => Object.hasOwn(ERROR_CODES, value);
