import assert from "node:assert/strict";
import { test } from "node:test";

import { EMPTY_FULFILLMENT, mergeFulfillment } from "./fulfillment";
import { firstImageOf, paymentPageDetailsOf } from "./payment-page-details";

const fulfillment = mergeFulfillment(EMPTY_FULFILLMENT, {
  shipping_address: {
    line1: "1 Market St",
    line2: "Suite 4",
    city: "Denver",
    region: "CO",
    postal_code: "80202",
    country: "US",
  },
  shipping_method_id: "standard",
});

test("a pay page shows the receipt email, the ship-to address as on a parcel and the shipping option", () => {
  const details = paymentPageDetailsOf(
    { buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" }, fulfillment },
    { title: "Standard" },
  );
  assert.deepEqual(details, {
    email: "ada@example.com",
    shipTo: { name: "Ada Lovelace", lines: ["1 Market St", "Suite 4", "Denver, CO 80202"], country: "US" },
    shippingOption: "Standard",
  });
});

test("nothing stored, nothing shown: no buyer, no destination, no option", () => {
  assert.deepEqual(paymentPageDetailsOf({ buyer: null, fulfillment: null }), {
    email: null,
    shipTo: null,
    shippingOption: null,
  });
  assert.deepEqual(paymentPageDetailsOf({ buyer: { email: "  " }, fulfillment: "junk" }).email, null);
});

test("a line's image is its product's first image, only from our origin or https", () => {
  assert.equal(
    firstImageOf([{ url: "/media/placeholder.svg" }, { url: "/b.png" }]),
    "/media/placeholder.svg",
  );
  assert.equal(firstImageOf([{ url: "https://cdn.example/x.png" }]), "https://cdn.example/x.png");
  assert.equal(firstImageOf([{ url: "javascript:alert(1)" }]), null);
  assert.equal(firstImageOf([{ url: "//elsewhere.example/x.png" }]), null);
  assert.equal(firstImageOf([]), null);
  assert.equal(firstImageOf(null), null);
});
