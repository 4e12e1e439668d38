import { AppError } from "@/lib/core/errors";

import { messagesDown, ucpDown } from "./envelope";
import type { HandlerDocs, OlderVersion } from "./index";
import { totalsDown } from "./totals";

// Checkout at 2026-01-11 and 2026-01-23 (docs/ucp-versions.md §3.3-§3.12). `down`: our checkout answer → the
// older shape; `up`: an older request body → our input (lib/checkout/schemas.ts, which strips unknown fields).

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * 04-08 `ucp.payment_handlers` (registry key → instances) → the 01-11 `payment.handlers[]` entries
 * `{id, name, version, spec, config_schema, instrument_schemas, config}`, all required (01-11
 * `types/payment_handler.json`): `name` is the registry key, `version` the protocol version we answer in (product
 * call: our rails carry 04-08), `available_instruments` folded into `config` so card brands stay visible.
 */
export const handlersTo0111 = (
  paymentHandlers: unknown,
  docs: (registryKey: string) => HandlerDocs,
): Json[] =>
  isObject(paymentHandlers)
    ? Object.entries(paymentHandlers).flatMap(([name, entries]) =>
        (Array.isArray(entries) ? entries : []).filter(isObject).map((entry) => ({
          id: String(entry.id),
          name,
          version: "2026-01-11",
          ...docs(name),
          config: {
            ...(isObject(entry.config) ? entry.config : {}),
            ...(entry.available_instruments ? { available_instruments: entry.available_instruments } : {}),
          },
        })),
      )
    : [];

const mapArray = (value: unknown, fn: (item: Json) => Json): unknown =>
  Array.isArray(value) ? value.map((item) => (isObject(item) ? fn(item) : item)) : value;

const lineDown = (line: Json): Json => ({ ...line, totals: totalsDown(line.totals) });

const fulfillmentDown = (fulfillment: unknown): unknown => {
  if (!isObject(fulfillment)) return fulfillment;
  return {
    ...fulfillment,
    methods: mapArray(fulfillment.methods, ({ destinations, selected_destination_id, ...method }) => ({
      ...method,
      // no destination yet is an absent `destinations` at the older tags, as their examples show it (§3.9)
      ...(Array.isArray(destinations) && destinations.length === 0
        ? {}
        : { destinations, selected_destination_id }),
      groups: mapArray(method.groups, (group) => ({
        ...group,
        options: mapArray(group.options, (option) => ({ ...option, totals: totalsDown(option.totals) })),
      })),
    })),
  };
};

// `provisional` and `eligibility` are 04-08 (eligibility claims do not exist before it): dropped
const discountsDown = (discounts: unknown): unknown => {
  if (!isObject(discounts)) return discounts;
  return {
    ...discounts,
    applied: mapArray(discounts.applied, ({ provisional: _p, eligibility: _e, ...rest }) => rest),
  };
};

/**
 * Our checkout answer at an older version. At both: the `ucp` block (§3.1), unsigned totals everywhere (§3.8),
 * messages (§3.14), no `context`/`signals`/`attribution`/`cart_id` (04-08 fields; request echoes, so lossless),
 * no `order.label`, no discount `provisional`/`eligibility`. At 01-11: `payment` is required and carries the
 * handlers (§3.12); stored instruments are not echoed there (01-11 `payment_instrument.json` is card-only with
 * brand and digits we do not keep), the selected one is named by `selected_instrument_id`; with none stored,
 * `instruments` is an empty list.
 */
export const checkoutDown = (
  version: OlderVersion,
  checkout: Json,
  docs: (registryKey: string) => HandlerDocs,
): Json => {
  const {
    ucp,
    context: _context,
    signals: _signals,
    attribution: _attribution,
    cart_id: _cartId,
    ...rest
  } = checkout;
  const out: Json = {
    ...rest,
    ucp: ucpDown(version, ucp),
    line_items: mapArray(checkout.line_items, lineDown),
    totals: totalsDown(checkout.totals),
    ...(checkout.messages !== undefined ? { messages: messagesDown(checkout.messages) } : {}),
    ...(checkout.fulfillment !== undefined ? { fulfillment: fulfillmentDown(checkout.fulfillment) } : {}),
    ...(checkout.discounts !== undefined ? { discounts: discountsDown(checkout.discounts) } : {}),
  };
  if (isObject(checkout.order)) {
    const { label: _label, ...order } = checkout.order;
    out.order = order;
  }
  if (version === "2026-01-11") {
    const instruments = isObject(checkout.payment) ? checkout.payment.instruments : undefined;
    const selected = Array.isArray(instruments)
      ? instruments.find((i): i is Json => isObject(i) && i.selected === true)
      : undefined;
    out.payment = {
      handlers: handlersTo0111(isObject(ucp) ? ucp.payment_handlers : undefined, docs),
      ...(typeof selected?.id === "string" ? { selected_instrument_id: selected.id } : {}),
      // none stored: say so (an agent echoing `payment.instruments` back in a whole-checkout update reads a list)
      ...(Array.isArray(instruments) && instruments.length > 0 ? {} : { instruments: [] }),
    };
  }
  return out;
};

/**
 * 01-11 `full_name` (buyer and postal address) → `first_name`/`last_name` when those are absent: split on the
 * last space, one word → `first_name` (product call, lossy for names that do not split that way; the 01-11
 * schema itself says first/last take precedence).
 */
const splitFullName = (person: Json): Json => {
  const { full_name: fullName, ...rest } = person;
  if (typeof fullName !== "string" || rest.first_name !== undefined || rest.last_name !== undefined) {
    return rest;
  }
  const trimmed = fullName.trim();
  const at = trimmed.lastIndexOf(" ");
  if (trimmed === "") return rest;
  return at < 0
    ? { ...rest, first_name: trimmed }
    : { ...rest, first_name: trimmed.slice(0, at).trim(), last_name: trimmed.slice(at + 1) };
};

/**
 * An older instrument → ours: 01-11 top-level `brand`/`last_digits` become `display` (01-23 shape); `selected`
 * from the 01-11 `payment.selected_instrument_id`. The credential passes through: a raw card number is refused
 * later as today (we take tokens only).
 */
const instrumentUp = (instrument: Json, selectedId: unknown): Json => {
  const { brand, last_digits: lastDigits, ...rest } = instrument;
  const display = {
    ...(isObject(rest.display) ? rest.display : {}),
    ...(brand !== undefined ? { brand } : {}),
    ...(lastDigits !== undefined ? { last_digits: lastDigits } : {}),
  };
  return {
    ...rest,
    ...(Object.keys(display).length > 0 ? { display } : {}),
    ...(typeof selectedId === "string" ? { selected: rest.id === selectedId } : {}),
  };
};

/** 01-11 `payment {handlers, selected_instrument_id, instruments}` → ours (`handlers` is response-only there). */
const paymentUp = (payment: unknown): unknown => {
  if (!isObject(payment)) return payment;
  const { handlers: _handlers, selected_instrument_id: selectedId, instruments } = payment;
  return instruments === undefined
    ? undefined
    : { instruments: mapArray(instruments, (i) => instrumentUp(i, selectedId)) };
};

export type CheckoutUpContext = {
  /** The checkout id from the path (REST) or the `id` argument (MCP), for update and complete. */
  id?: string;
  /** The store's currency: 01-11 requires `currency` in create requests and we do not convert. */
  storeCurrency: string;
};

/**
 * An older checkout request body → our input for `operation` (create_checkout, update_checkout,
 * complete_checkout; the others take no body).
 * @throws AppError invalid_request (01-11 `currency` other than the store's; a body `id` other than the path's)
 */
export const checkoutUp = (
  version: OlderVersion,
  operation: string,
  body: unknown,
  { id, storeCurrency }: CheckoutUpContext,
): unknown => {
  if (!isObject(body)) return body;
  const input: Json = { ...body };
  if (operation === "create_checkout") delete input.id; // create omits it (`ucp_request.create: "omit"`): ours is assigned
  if (typeof body.id === "string" && id !== undefined && body.id !== id) {
    // a mismatch is a client bug, not something to pick a side on (§3.4)
    throw new AppError("invalid_request", `id "${body.id}" in the body is not the checkout ${id}`, {
      path: "$.id",
    });
  }
  if (version === "2026-01-11" && operation !== "complete_checkout" && body.currency !== undefined) {
    if (typeof body.currency !== "string" || body.currency.toUpperCase() !== storeCurrency.toUpperCase()) {
      throw new AppError(
        "invalid_request",
        `currency ${JSON.stringify(body.currency)} is not this store's currency ${storeCurrency}: checkouts are not converted`,
        { path: "$.currency" },
      );
    }
  }
  delete input.currency;
  if (version !== "2026-01-11") return input;
  if (isObject(body.buyer)) input.buyer = splitFullName(body.buyer);
  if (isObject(body.fulfillment)) {
    input.fulfillment = {
      ...body.fulfillment,
      methods: mapArray(body.fulfillment.methods, (method) => ({
        ...method,
        destinations: mapArray(method.destinations, splitFullName),
      })),
    };
  }
  if (operation === "complete_checkout" && isObject(body.payment_data)) {
    // 01-11 completes with `{payment_data: <instrument>, risk_signals?}` (01-11 openapi): one selected instrument
    const { payment_data: instrument, risk_signals: _riskSignals, ...others } = input;
    return {
      ...others,
      payment: { instruments: [{ ...instrumentUp(instrument as Json, undefined), selected: true }] },
    };
  }
  if (body.payment !== undefined) {
    const payment = paymentUp(body.payment);
    if (payment === undefined) delete input.payment;
    else input.payment = payment;
  }
  return input;
};
