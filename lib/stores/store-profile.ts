import "server-only";

import { getDb } from "@/lib/config/db";
import { conformancePaymentHandlers } from "@/lib/conformance/payment-handlers";
import { AppError } from "@/lib/core/errors";
import type { Store, StoreSigningKey } from "@/lib/generated/prisma/client";
import { publishedRateLimits } from "@/lib/rate-limit/policies";
import { capabilityEntry, shoppingServices, type CapabilityName } from "@/lib/ucp/capabilities";
import { RAIL_HANDLER_IDS, RAIL_REGISTRY_KEYS, RAIL_VERSION } from "@/lib/ucp/rails";
import { advertisedOlderVersions, leafTransports, UCP_VERSION } from "@/lib/ucp/version";
import { CAPABILITIES_AT, handlerDocsAt, isOlderVersion } from "@/lib/ucp/versions";
import { leafProfile } from "@/lib/ucp/versions/profile";

import { cryptoSettingsOf } from "./crypto-settings";
import { getStoreOrThrow } from "./get-store-or-throw";
import { SIGNING_KEY_GRACE_MS } from "./signing-keys";
import { storeEndpoint } from "./store-endpoint";

// A store's UCP business profile at /s/<slug>/.well-known/ucp (CONTRACT.md §3, DECISIONS.md B2). The only place
// the rails' registry keys (`sh.svc.*`) are written. Stable: nothing per request or per session in it.

/** Capabilities this service serves for a store today; each capability's issue adds itself here. */
export const STORE_CAPABILITIES: readonly CapabilityName[] = [
  "dev.ucp.shopping.catalog.lookup",
  "dev.ucp.shopping.cart",
  // issue #4: checkout with its extensions (each entry carries `extends`) and orders
  "dev.ucp.shopping.checkout",
  "dev.ucp.shopping.fulfillment",
  "dev.ucp.shopping.discount",
  "dev.ucp.shopping.buyer_consent",
  "dev.ucp.shopping.order",
  "dev.ucp.shopping.catalog.search",
  // issue #5: AP2 mandates (checkout_mandate verified at completion; merchant_authorization when negotiated)
  "dev.ucp.shopping.ap2_mandate",
  // buyer identity: the service's OAuth server (RFC 8414 metadata on this origin) links buyers to agents
  "dev.ucp.common.identity_linking",
];

/**
 * identity_linking's `config.scopes` for a store: listing a scope makes every operation it covers require a buyer
 * token (UCP identity-linking.md "Scopes"; CONTRACT.md §12), and no store operation as a whole does: checkouts,
 * carts and card completion run on platform credentials; only the crypto rail (payment-intent, completing with
 * svc.crypto) needs the buyer's token, and it says so at run time (401 identity_required with WWW-Authenticate).
 * So the map is empty: `dev.ucp.shopping.checkout:manage` stays in the authorization server's `scopes_supported`,
 * UCP's optional layer (accepted, not gated).
 */
export const STORE_IDENTITY_LINKING_CONFIG = { scopes: {} };

const publicJwk = (jwk: unknown): Record<string, string> => {
  const source = (jwk ?? {}) as Record<string, unknown>;
  // never publish private members (`d`), whatever was stored
  const picked = ["kid", "kty", "crv", "x", "y", "use", "alg"].flatMap((k) =>
    typeof source[k] === "string" ? [[k, source[k]] as const] : [],
  );
  return Object.fromEntries(picked);
};

export const publishedSigningKeys = (keys: readonly StoreSigningKey[], now: Date) =>
  keys
    .filter((k) => !k.retiredAt || now.getTime() - k.retiredAt.getTime() < SIGNING_KEY_GRACE_MS)
    .map((k) => ({ ...publicJwk(k.publicJwk), kid: k.kid }));

export const paymentHandlers = (store: Store) => {
  const handlers: Record<string, unknown[]> = {};
  if (store.cardEnabled) {
    handlers[RAIL_REGISTRY_KEYS.card] = [
      {
        id: RAIL_HANDLER_IDS.card,
        version: RAIL_VERSION,
        available_instruments: [
          { type: "card", ...(store.cardBrands.length ? { constraints: { brands: store.cardBrands } } : {}) },
        ],
        config: { environment: store.mode === "live" ? "production" : "sandbox", currency: store.currency },
      },
    ];
  }
  if (store.cryptoEnabled) {
    const crypto = cryptoSettingsOf(store);
    handlers[RAIL_REGISTRY_KEYS.crypto] = [
      {
        id: RAIL_HANDLER_IDS.crypto,
        version: RAIL_VERSION,
        available_instruments: [{ type: "crypto" }],
        config: {
          environment: store.mode === "live" ? "production" : "sandbox",
          network: `sui:${crypto.network}`,
          accepted_coins: crypto.acceptedCoins.map((c) => ({
            symbol: c.symbol,
            coin_type: c.coinType,
            decimals: c.decimals,
          })),
          ...(crypto.payoutAddress ? { recipient: crypto.payoutAddress } : {}),
        },
      },
    ];
  }
  // the conformance store's test handlers, in conformance mode only (lib/conformance/payment-handlers.ts)
  return { ...handlers, ...conformancePaymentHandlers(store.slug) };
};

export const buildStoreProfile = (
  store: Store,
  keys: readonly StoreSigningKey[],
  baseUrl: string,
  now: Date,
) => {
  const endpoint = storeEndpoint(store, baseUrl);
  const older = advertisedOlderVersions();
  return {
    ucp: {
      version: UCP_VERSION,
      // each older version we serve → its leaf profile (04-08 overview.md:1861-1866)
      ...(older.length > 0
        ? {
            supported_versions: Object.fromEntries(older.map((v) => [v, `${endpoint}/.well-known/ucp/${v}`])),
          }
        : {}),
      services: shoppingServices(endpoint),
      capabilities: Object.fromEntries(
        STORE_CAPABILITIES.map((name) => [
          name,
          [
            name === "dev.ucp.common.identity_linking"
              ? capabilityEntry(name, STORE_IDENTITY_LINKING_CONFIG)
              : capabilityEntry(name),
          ],
        ]),
      ),
      payment_handlers: paymentHandlers(store),
    },
    signing_keys: publishedSigningKeys(keys, now),
    // our extension: the quotas every caller meets (docs/decisions.md "Rate limits")
    svc_rate_limits: publishedRateLimits(),
  };
};

/**
 * The profile of the store with this slug.
 * @throws AppError store_not_found
 */
export const getStoreProfile = async (slug: string, baseUrl: string, now = new Date()) => {
  const store = await getStoreOrThrow(slug);
  const db = await getDb();
  const keys = await db.storeSigningKey.findMany({
    where: { storeId: store.id },
    orderBy: { createdAt: "asc" },
  });
  return buildStoreProfile(store, keys, baseUrl, now);
};

/**
 * The store's leaf profile at an older version we serve (docs/ucp-versions.md §1.2): that version's shape, the
 * capabilities it defines, the transports it is served on.
 * @throws AppError store_not_found, route_not_found (a version we do not serve: no such leaf)
 */
export const getStoreLeafProfile = async (
  slug: string,
  version: string,
  baseUrl: string,
  now = new Date(),
) => {
  if (!isOlderVersion(version) || !advertisedOlderVersions().includes(version)) {
    throw new AppError("route_not_found", `No profile at UCP version ${version} here`);
  }
  const current = await getStoreProfile(slug, baseUrl, now);
  return leafProfile(version, current, {
    capabilities: STORE_CAPABILITIES.filter((name) => CAPABILITIES_AT[version].includes(name)),
    transports: leafTransports(version),
    docs: handlerDocsAt(baseUrl),
  });
};
