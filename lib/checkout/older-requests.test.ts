import assert from "node:assert/strict";
import { test } from "node:test";

import { AppError } from "@/lib/core/errors";
import { checkoutUp } from "@/lib/ucp/versions/checkout";

import { CompleteCheckoutInputSchema, CreateCheckoutInputSchema } from "./schemas";

// Older checkout requests (docs/ucp-versions.md §3.3-§3.5) through lib/ucp/versions `checkoutUp` must parse as
// our input; without the translation the 01-11 shapes lose the buyer's name and the completion's instrument.

// the create request the official 2026-01-11 suite sends (docs/ucp-versions.md §4), as that tag allows it
const create0111 = () => ({
  id: "client-chosen",
  currency: "USD",
  line_items: [{ item: { id: "var_1", title: "Mug" }, quantity: 1 }],
  buyer: { full_name: "Ada Byron Lovelace", email: "ada@example.com" },
  payment: {
    handlers: [],
    selected_instrument_id: "instr_1",
    instruments: [
      {
        id: "instr_1",
        handler_id: "svc.card",
        type: "card",
        brand: "visa",
        last_digits: "4242",
        credential: { type: "token", token: "tok" },
      },
    ],
  },
  fulfillment: {
    methods: [
      {
        type: "shipping",
        destinations: [{ id: "dest_1", full_name: "Ada Lovelace", address_country: "US" }],
        selected_destination_id: "dest_1",
      },
    ],
  },
});

test("untranslated, the 2026-01-11 create request loses the buyer's name and the selection", () => {
  assert.equal(CreateCheckoutInputSchema.parse(create0111()).payment?.instruments[0]?.selected, undefined);
  assert.equal(CreateCheckoutInputSchema.parse(create0111()).buyer?.first_name, undefined);
});

test("checkoutUp at 2026-01-11 turns a create request into our input", () => {
  const input = checkoutUp("2026-01-11", "create_checkout", create0111(), { storeCurrency: "usd" }) as Record<
    string,
    never
  >;
  const parsed = CreateCheckoutInputSchema.parse(input);
  assert.deepEqual(parsed.buyer, {
    email: "ada@example.com",
    first_name: "Ada Byron",
    last_name: "Lovelace",
  });
  assert.equal("id" in input, false);
  assert.equal(parsed.payment?.instruments[0]?.selected, true);
  assert.equal(parsed.fulfillment?.methods[0]?.destinations?.[0]?.last_name, "Lovelace");
});

test("checkoutUp at 2026-01-11 refuses another currency and a body id other than the path's", () => {
  assert.throws(
    () =>
      checkoutUp(
        "2026-01-11",
        "create_checkout",
        { ...create0111(), currency: "EUR" },
        { storeCurrency: "USD" },
      ),
    (e: unknown) => e instanceof AppError && e.code === "invalid_request" && e.path === "$.currency",
  );
  assert.throws(
    () =>
      checkoutUp("2026-01-23", "update_checkout", { id: "chk_other" }, { id: "chk_1", storeCurrency: "USD" }),
    (e: unknown) => e instanceof AppError && e.code === "invalid_request" && e.path === "$.id",
  );
});

test("checkoutUp at 2026-01-11 turns payment_data into one selected instrument", () => {
  const body = {
    payment_data: {
      id: "instr_1",
      handler_id: "svc.card",
      type: "card",
      brand: "visa",
      last_digits: "4242",
      credential: { type: "token", token: "pm_card_visa" },
    },
    risk_signals: {},
    ap2: { checkout_mandate: "a..b" },
  };
  const input = checkoutUp("2026-01-11", "complete_checkout", body, { id: "chk_1", storeCurrency: "USD" });
  const parsed = CompleteCheckoutInputSchema.parse({ ...(input as object), id: "chk_1" });
  assert.equal(parsed.payment?.instruments[0]?.selected, true);
  assert.equal(parsed.payment?.instruments[0]?.credential?.token, "pm_card_visa");
  assert.equal(parsed.ap2?.checkout_mandate, "a..b");
  assert.equal("payment_data" in (input as object), false);
});
