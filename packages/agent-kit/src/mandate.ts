import { CompactSign, importJWK, type JWK } from "jose";

import { canonicalJson } from "./jcs.js";

// The AP2 checkout mandate (DECISIONS.md B5, as amended): the terms of a live, re-priced checkout an agent signs —
// what is charged (lines, totals, currency), to whom (the buyer's email) and where it goes (the fulfillment method,
// its normalized destination and the chosen option), so a destination or option changed after signing fails
// verification — and the detached ES256 JWS over their JCS bytes. The service verifies with these same functions
// (its lib/mandates imports this module), so the bytes an agent signs and the bytes it checks cannot drift apart.

/** The postal address fields UCP defines (postal_address.json), in the order the terms list them. */
export const ADDRESS_FIELDS = [
  "first_name",
  "last_name",
  "street_address",
  "extended_address",
  "address_locality",
  "address_region",
  "postal_code",
  "address_country",
  "phone_number",
] as const;

export type MandateAddress = Partial<Record<(typeof ADDRESS_FIELDS)[number], string>>;

export type MandateTerms = {
  checkout_id: string;
  merchant: string;
  currency: string;
  line_items: { item: { id: string; price: number }; quantity: number }[];
  totals: { type: string; amount: number }[];
  buyer: { email?: string };
  fulfillment: { method?: string; destination?: MandateAddress; option?: string };
};

type WireDestination = { id?: string } & Partial<Record<string, unknown>>;

/** The subset of a checkout response (UCP checkout.json + fulfillment extension) the terms are read from. */
export type MandateCheckout = {
  id: string;
  currency: string;
  line_items: readonly { item: { id: string; price: number }; quantity: number }[];
  totals: readonly { type: string; amount: number }[];
  buyer?: { email?: unknown } | null;
  fulfillment?: {
    methods?: readonly {
      type?: string;
      destinations?: readonly WireDestination[];
      selected_destination_id?: string | null;
      groups?: readonly { selected_option_id?: string | null }[];
    }[];
  } | null;
};

const text = (value: unknown): string | undefined => {
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  return trimmed === "" ? undefined : trimmed;
};

/** The destination as signed: UCP's address fields, trimmed, country upper-case, absent parts omitted. */
export const normalizeDestination = (destination: WireDestination): MandateAddress => {
  const out: MandateAddress = {};
  for (const field of ADDRESS_FIELDS) {
    const value = text(destination[field]);
    if (value !== undefined) out[field] = field === "address_country" ? value.toUpperCase() : value;
  }
  return out;
};

const fulfillmentOf = (checkout: MandateCheckout): MandateTerms["fulfillment"] => {
  const method = checkout.fulfillment?.methods?.[0];
  if (!method) return {};
  const destination =
    method.destinations?.find((d) => d.id !== undefined && d.id === method.selected_destination_id) ??
    (method.selected_destination_id ? undefined : method.destinations?.[0]);
  const option = text(method.groups?.[0]?.selected_option_id);
  return {
    ...(text(method.type) ? { method: text(method.type) } : {}),
    ...(destination ? { destination: normalizeDestination(destination) } : {}),
    ...(option ? { option } : {}),
  };
};

/** The mandate terms of a checkout (response shape) for a store slug: the fields B5 names, in wire order. */
export const mandateTerms = (checkout: MandateCheckout, merchant: string): MandateTerms => {
  const email = text(checkout.buyer?.email);
  return {
    checkout_id: checkout.id,
    merchant,
    currency: checkout.currency,
    line_items: checkout.line_items.map((l) => ({
      item: { id: l.item.id, price: l.item.price },
      quantity: l.quantity,
    })),
    totals: checkout.totals.map((t) => ({ type: t.type, amount: t.amount })),
    buyer: email ? { email } : {},
    fulfillment: fulfillmentOf(checkout),
  };
};

/** The signed payload: the RFC 8785 (JCS) bytes of the terms. */
export const mandatePayload = (terms: object): Uint8Array => new TextEncoder().encode(canonicalJson(terms));

export type MandateSigner = {
  /** The agent's private ES256 (P-256) key; its public half is in the agent profile's signing_keys. */
  privateJwk: JWK;
  /** The `kid` of that key in signing_keys. */
  kid: string;
};

// A signer's key is imported once per key object (the import costs about as much as the signature): an agent or
// a bridge signs every purchase with the same key.
const importedKeys = new WeakMap<JWK, ReturnType<typeof importJWK>>();
const signingKey = (privateJwk: JWK): ReturnType<typeof importJWK> => {
  let key = importedKeys.get(privateJwk);
  if (!key) {
    key = importJWK({ ...privateJwk, alg: "ES256" }, "ES256");
    // a key that fails to import is not remembered: the caller sees the failure, and the next call tries again
    key.catch(() => importedKeys.delete(privateJwk));
    importedKeys.set(privateJwk, key);
  }
  return key;
};

/**
 * Signs the terms: ES256 over their JCS bytes, `kid`/`exp`/`merchant`/`checkout_id` in the protected header, the
 * payload dropped from the compact form (`<header>..<signature>`, RFC 7515 appendix F). Send it as
 * `ap2.checkout_mandate`.
 */
export const signCheckoutMandate = async (
  terms: MandateTerms,
  { privateJwk, kid, exp }: MandateSigner & { exp: number },
): Promise<string> => {
  const key = await signingKey(privateJwk);
  const jws = await new CompactSign(mandatePayload(terms))
    .setProtectedHeader({ alg: "ES256", kid, exp, merchant: terms.merchant, checkout_id: terms.checkout_id })
    .sign(key);
  const [header, , signature] = jws.split(".");
  return `${header}..${signature}`;
};

/**
 * The mandate for a checkout as last read (the get/update response) in store `merchant`: its terms, signed, valid
 * for `ttlSeconds` (default 300). Re-read and sign again after any change to the checkout.
 */
export const checkoutMandate = (
  checkout: MandateCheckout,
  merchant: string,
  signer: MandateSigner,
  { ttlSeconds = 300, now = Date.now() }: { ttlSeconds?: number; now?: number } = {},
): Promise<string> =>
  signCheckoutMandate(mandateTerms(checkout, merchant), {
    ...signer,
    exp: Math.floor(now / 1000) + ttlSeconds,
  });
