import assert from "node:assert/strict";
import { test } from "node:test";

import type { Destination } from "./fulfillment";
import { preflightMessages } from "./preflight";

const BUYER = { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" };
const TO_DE: Destination = {
  id: "dest_1",
  street_address: "Unter den Linden 1",
  address_locality: "Berlin",
  postal_code: "10117",
  address_country: "DE",
};

const undeliverable = (hasRatesForCountry: boolean) =>
  preflightMessages({
    lineCount: 1,
    buyer: BUYER,
    fulfillment: { destination: TO_DE, selectedOptionId: null },
    options: [],
    hasRatesForCountry,
    offeredHandlers: ["svc.card"],
    selectedHandler: "svc.card",
  }).filter((m) => m.code === "address_undeliverable");

test("address_undeliverable for a country without any rate names the country and that the merchant must add a shipping rate", () => {
  const [message, ...rest] = undeliverable(false);
  assert.equal(rest.length, 0);
  assert.equal(message?.path, "$.fulfillment.methods[0].destinations[0]");
  assert.equal(message && "severity" in message ? message.severity : undefined, "recoverable");
  assert.match(message!.content, /no shipping rate for Germany \(DE\)/);
  assert.match(message!.content, /merchant must add a shipping rate for DE/);
});

test("address_undeliverable where the country's rates exclude this order says none covers it, not that there is none", () => {
  const [message] = undeliverable(true);
  assert.match(message!.content, /None of this store's shipping rates for Germany \(DE\) covers this order/);
  assert.match(message!.content, /merchant must add a shipping rate that does/);
});
