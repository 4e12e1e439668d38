import assert from "node:assert/strict";
import { test } from "node:test";

import { EMPTY_FULFILLMENT, listedDestinations, mergeFulfillment, sentDestinationId } from "./fulfillment";
import { preflightMessages } from "./preflight";

const ADDRESS = {
  line1: "1 Main St",
  city: "Springfield",
  region: "IL",
  postal_code: "62701",
  country: "US",
};

test("the seed shipping_address maps into a UCP destination; shipping_method_id is the selected option", () => {
  const state = mergeFulfillment(EMPTY_FULFILLMENT, {
    shipping_address: ADDRESS,
    shipping_method_id: "express",
  });
  assert.deepEqual(state, {
    destination: {
      id: "dest_1",
      street_address: "1 Main St",
      address_locality: "Springfield",
      address_region: "IL",
      postal_code: "62701",
      address_country: "US",
    },
    selectedOptionId: "express",
  });
});

test("UCP form: selected_destination_id picks among destinations; groups[0] sets the option; omitted = unchanged", () => {
  const state = mergeFulfillment(EMPTY_FULFILLMENT, {
    fulfillment: {
      methods: [
        {
          type: "shipping",
          destinations: [
            { id: "home", street_address: "A", address_country: "US" },
            { id: "work", street_address: "B", address_country: "US" },
          ],
          selected_destination_id: "work",
          groups: [{ selected_option_id: "standard" }],
        },
      ],
    },
  });
  assert.equal(state.destination?.id, "work");
  assert.equal(state.selectedOptionId, "standard");
  assert.deepEqual(mergeFulfillment(state, {}), state);
  assert.deepEqual(mergeFulfillment(state, { fulfillment: { methods: [] } }), EMPTY_FULFILLMENT);
});

test("preflight: every blocker at once, in a stable order, all recoverable", () => {
  const messages = preflightMessages({
    lineCount: 0,
    buyer: { email: "a@b.co" },
    fulfillment: { destination: { id: "d", address_country: "US" }, selectedOptionId: null },
    options: [{ id: "standard", title: "Standard", amount: 500 }],
    hasRatesForCountry: true,
    offeredHandlers: ["svc.card", "svc.crypto"],
    selectedHandler: null,
  });
  assert.deepEqual(
    messages.map((m) => [m.code, m.path]),
    [
      ["missing", "$.line_items"],
      ["missing", "$.buyer.first_name"],
      ["missing", "$.buyer.last_name"],
      ["missing", "$.fulfillment.methods[0].destinations[0].street_address"],
      ["missing", "$.fulfillment.methods[0].destinations[0].address_locality"],
      ["missing", "$.fulfillment.methods[0].destinations[0].postal_code"],
      ["missing", "$.fulfillment.methods[0].groups[0].selected_option_id"],
      ["payment_selection_required", "$.payment.instruments"],
    ],
  );
  // the rail choice is information (the completing call checks it); every other blocker is an error
  assert.deepEqual(
    messages.filter((m) => m.type !== "error").map((m) => [m.type, m.code]),
    [["info", "payment_selection_required"]],
  );
  assert.ok(
    messages
      .filter((m) => m.type === "error")
      .every((m) => m.type === "error" && m.severity === "recoverable"),
  );
});

test("offered saved addresses: selected_destination_id picks one (listed first); an unknown id changes nothing; the agent's own destinations or a shipping_address replace the offer", () => {
  const home = { id: "addr_home", street_address: "1 Home St", address_country: "US" };
  const work = { id: "addr_work", street_address: "2 Work St", address_country: "US" };
  const offering = { ...EMPTY_FULFILLMENT, offered: [home, work] };
  assert.deepEqual(listedDestinations(offering), [home, work]);
  const pick = (id: string) =>
    mergeFulfillment(offering, {
      fulfillment: { methods: [{ type: "shipping", selected_destination_id: id }] },
    });
  const picked = pick("addr_work");
  assert.deepEqual(picked.destination, work);
  assert.deepEqual(listedDestinations(picked), [work, home]);
  assert.deepEqual(pick("addr_elsewhere"), offering);
  const own = mergeFulfillment(picked, {
    fulfillment: { methods: [{ type: "shipping", destinations: [{ street_address: "3 New St" }] }] },
  });
  assert.equal(own.offered, undefined);
  assert.deepEqual(listedDestinations(own), [{ id: "dest_1", street_address: "3 New St" }]);
  const seedForm = mergeFulfillment(picked, { shipping_address: ADDRESS });
  assert.equal(seedForm.offered, undefined);
  assert.equal(seedForm.destination?.street_address, "1 Main St");
  assert.deepEqual(mergeFulfillment(picked, { fulfillment: { methods: [] } }), EMPTY_FULFILLMENT);
});

test("sentDestinationId: the id the request gave its chosen destination, never one for a shipping_address", () => {
  const methods = (m: object) => ({ fulfillment: { methods: [{ type: "shipping" as const, ...m }] } });
  assert.equal(sentDestinationId(methods({ destinations: [{ id: "mine", street_address: "A" }] })), "mine");
  assert.equal(sentDestinationId(methods({ destinations: [{ street_address: "A" }] })), undefined);
  assert.equal(
    sentDestinationId(methods({ destinations: [{ id: "a" }, { id: "b" }], selected_destination_id: "b" })),
    "b",
  );
  assert.equal(sentDestinationId({ shipping_address: ADDRESS }), undefined);
  assert.equal(sentDestinationId({}), undefined);
});
