import { AppError } from "@/lib/core/errors";

import { RAIL_HANDLER_IDS, RAIL_REGISTRY_KEYS } from "./rails";

// The published documents of our payment handlers (docs/ucp-versions.md §3.2): UCP 2026-01-11 requires every
// handler entry to name a `spec`, a `config_schema` and `instrument_schemas` by URI, so they are served at
// {base_url}/ucp/handlers/<registry key>[/config.json|/instrument.json] (lib/ucp/versions handlerDocsAt).

const SCHEMA = "https://json-schema.org/draft/2020-12/schema";

const environment = { type: "string", enum: ["sandbox", "production"] };

const tokenInstrument = (handlerId: string, type: string, token: string) => ({
  $schema: SCHEMA,
  title: `${handlerId} instrument`,
  type: "object",
  required: ["handler_id", "credential"],
  properties: {
    id: { type: "string" },
    handler_id: { const: handlerId },
    type: { const: type },
    selected: { type: "boolean" },
    credential: {
      type: "object",
      required: ["type", "token"],
      properties: { type: { type: "string" }, token: { type: "string", description: token } },
    },
  },
});

const DOCS: Record<string, { spec: object; config: object; instrument: object }> = {
  [RAIL_REGISTRY_KEYS.card]: {
    spec: {
      name: RAIL_REGISTRY_KEYS.card,
      id: RAIL_HANDLER_IDS.card,
      title: "Card payments (Stripe)",
      description:
        "Complete a checkout with one selected svc.card instrument whose credential is a Stripe payment-method " +
        "token (pm_…), with an AP2 checkout mandate (ap2.checkout_mandate, a detached ES256 JWS over the " +
        "checkout's terms). Without a token the buyer pays on the hosted page named by continue_url.",
    },
    config: {
      $schema: SCHEMA,
      title: "svc.card config",
      type: "object",
      properties: {
        environment,
        currency: { type: "string", description: "ISO 4217 currency of the store" },
        available_instruments: { type: "array", items: { type: "object" } },
      },
    },
    instrument: tokenInstrument(RAIL_HANDLER_IDS.card, "card", "Stripe payment-method id (pm_…)"),
  },
  [RAIL_REGISTRY_KEYS.crypto]: {
    spec: {
      name: RAIL_REGISTRY_KEYS.crypto,
      id: RAIL_HANDLER_IDS.crypto,
      title: "Stablecoin payments (Sui)",
      description:
        "prepare_checkout_payment (POST …/payment-intent) quotes the checkout and returns an unsigned Sui " +
        "transaction; the buyer's wallet signs and submits it; complete with one selected svc.crypto instrument " +
        "whose credential token is the transaction digest (the buyer's bearer token is required).",
    },
    config: {
      $schema: SCHEMA,
      title: "svc.crypto config",
      type: "object",
      properties: {
        environment,
        network: { type: "string", description: "sui:<network>" },
        accepted_coins: { type: "array", items: { type: "object" } },
        recipient: { type: "string" },
        available_instruments: { type: "array", items: { type: "object" } },
      },
    },
    instrument: tokenInstrument(RAIL_HANDLER_IDS.crypto, "crypto", "Sui transaction digest"),
  },
};

/**
 * One document of a handler: `spec` (no doc name), `config.json` or `instrument.json`.
 * @throws AppError route_not_found (an unknown handler or document)
 */
export const handlerDocument = (registryKey: string, doc?: string): object => {
  const docs = Object.hasOwn(DOCS, registryKey) ? DOCS[registryKey] : undefined;
  const found =
    doc === undefined
      ? docs?.spec
      : doc === "config.json"
        ? docs?.config
        : doc === "instrument.json"
          ? docs?.instrument
          : undefined;
  if (!found) throw new AppError("route_not_found", `No handler document ${registryKey}/${doc ?? ""}`);
  return found;
};
