import "server-only";

import { SANDBOX_PAYMENT_METHODS } from "@/lib/payments/card/sandbox-client";
import { RAIL_HANDLER_IDS, RAIL_VERSION } from "@/lib/ucp/rails";

import { conformanceModeActive, conformanceModeFor } from "./mode";

// The conformance store's test payment handlers (docs/conformance.md): the handler ids the official suite
// discovers and pays with. Each is a name for our card rail on the Stripe sandbox, nothing else: the suite's test
// tokens become sandbox payment methods (`success_token` a card that succeeds, `fail_token` one that is declined)
// and the completion then runs the real card path, so the order total is the PaymentIntent's amount. They exist
// only in conformance mode, only for the conformance store.

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** registry key → handler id, in the suite's names; `shop_pay`'s `shop_id` is the store's slug. */
const HANDLERS = [
  { key: "dev.ucp.mock_payment_handler", id: "mock_payment_handler" },
  { key: "google.pay", id: "google_pay" },
  { key: "com.shopify.shop_pay", id: "shop_pay" },
] as const;

const HANDLER_IDS: ReadonlySet<string> = new Set(HANDLERS.map((h) => h.id));

/** The suite's test tokens → the sandbox payment methods they stand for. */
const TOKENS: Readonly<Record<string, string>> = {
  success_token: SANDBOX_PAYMENT_METHODS.succeeds,
  fail_token: SANDBOX_PAYMENT_METHODS.declined,
};

/** The handlers' entries for the store's `ucp.payment_handlers` (none outside conformance mode). */
export const conformancePaymentHandlers = (storeSlug: string): Record<string, unknown[]> => {
  if (!conformanceModeFor(storeSlug)) return {};
  return Object.fromEntries(
    HANDLERS.map(({ key, id }) => [
      key,
      [
        {
          id,
          version: RAIL_VERSION,
          available_instruments: [{ type: "card" }],
          config: {
            environment: "sandbox",
            settles_with: RAIL_HANDLER_IDS.card,
            ...(id === "shop_pay" ? { shop_id: storeSlug } : {}),
          },
        },
      ],
    ]),
  );
};

/**
 * A completion's instruments in conformance mode: an instrument of a test handler whose token is a test token
 * becomes a card-rail instrument with the sandbox payment method; anything else is left as it came (an unknown
 * token stays on its handler, which no rail takes: refused as any unknown handler is).
 */
export const conformanceInstruments = (storeSlug: string | undefined, input: unknown): unknown => {
  if (!conformanceModeFor(storeSlug) || !isObject(input) || !isObject(input.payment)) return input;
  const instruments = input.payment.instruments;
  if (!Array.isArray(instruments)) return input;
  return {
    ...input,
    payment: {
      ...input.payment,
      instruments: instruments.map((instrument: unknown) => {
        if (!isObject(instrument) || typeof instrument.handler_id !== "string") return instrument;
        if (!HANDLER_IDS.has(instrument.handler_id)) return instrument;
        const credential = isObject(instrument.credential) ? instrument.credential : {};
        const method = typeof credential.token === "string" ? TOKENS[credential.token] : undefined;
        if (!method) return instrument;
        return {
          ...instrument,
          handler_id: RAIL_HANDLER_IDS.card,
          credential: { type: "stripe_token", token: method },
        };
      }),
    },
  };
};

/**
 * The published documents of a test handler (2026-01-11 names a spec, a config schema and instrument schemas per
 * handler entry: lib/ucp/handler-docs.ts serves our rails'), in conformance mode only; null otherwise.
 */
export const conformanceHandlerDocument = (registryKey: string, doc?: string): object | null => {
  const handler = HANDLERS.find((h) => h.key === registryKey);
  if (!handler || !conformanceModeActive()) return null;
  const schema = "https://json-schema.org/draft/2020-12/schema";
  if (doc === undefined) {
    return {
      name: handler.key,
      id: handler.id,
      title: `${handler.id} (conformance store test handler)`,
      description:
        `A test handler of the conformance store: complete with one ${handler.id} instrument whose credential ` +
        "token is success_token (a sandbox card that succeeds) or fail_token (one that is declined); the payment " +
        `runs on ${RAIL_HANDLER_IDS.card} against the Stripe sandbox.`,
    };
  }
  if (doc === "config.json") {
    return {
      $schema: schema,
      title: `${handler.id} config`,
      type: "object",
      properties: {
        environment: { const: "sandbox" },
        settles_with: { const: RAIL_HANDLER_IDS.card },
        shop_id: { type: "string" },
        available_instruments: { type: "array", items: { type: "object" } },
      },
    };
  }
  if (doc === "instrument.json") {
    return {
      $schema: schema,
      title: `${handler.id} instrument`,
      type: "object",
      required: ["handler_id", "credential"],
      properties: {
        handler_id: { const: handler.id },
        credential: {
          type: "object",
          required: ["type", "token"],
          properties: { type: { const: "token" }, token: { enum: Object.keys(TOKENS) } },
        },
      },
    };
  }
  return null;
};
