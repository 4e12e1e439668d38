import assert from "node:assert/strict";
import { test } from "node:test";

import { compactVerify, decodeProtectedHeader, importJWK } from "jose";

import { checkoutMandate, mandatePayload, mandateTerms, type MandateCheckout } from "./mandate.js";
import { generateAgentKey } from "./profile-server.js";

// The mandate terms (B5) as agents and the service compute them, and the detached ES256 JWS over their JCS bytes.

const checkout: MandateCheckout & { status: string; messages: unknown[] } = {
  id: "chk_1",
  status: "ready_for_complete",
  currency: "USD",
  line_items: [
    { item: { id: "var_b", price: 1450, title: "Sock" } as never, quantity: 2 },
    { item: { id: "var_a", price: 900 }, quantity: 1 },
  ],
  totals: [
    { type: "subtotal", amount: 3800 },
    { type: "fulfillment", amount: 500, display_text: "Standard" } as never,
    { type: "total", amount: 4300 },
  ],
  buyer: { email: "  ada@example.com ", first_name: "Ada" } as never,
  fulfillment: {
    methods: [
      {
        type: "shipping",
        destinations: [
          { id: "d1", street_address: "1 Elm St", address_country: "gb" },
          {
            id: "d2",
            street_address: " 1 Market St ",
            address_locality: "San Francisco",
            address_region: "",
            postal_code: "94105",
            address_country: "us",
            note: "not an address field",
          },
        ],
        selected_destination_id: "d2",
        groups: [{ selected_option_id: "standard" }],
      },
    ],
  },
  messages: [],
};

test("mandateTerms: exactly the B5 fields, in wire order; the selected destination normalized; the exact JCS bytes", () => {
  const terms = mandateTerms(checkout, "acme");
  assert.deepEqual(terms, {
    checkout_id: "chk_1",
    merchant: "acme",
    currency: "USD",
    line_items: [
      { item: { id: "var_b", price: 1450 }, quantity: 2 },
      { item: { id: "var_a", price: 900 }, quantity: 1 },
    ],
    totals: [
      { type: "subtotal", amount: 3800 },
      { type: "fulfillment", amount: 500 },
      { type: "total", amount: 4300 },
    ],
    buyer: { email: "ada@example.com" },
    fulfillment: {
      method: "shipping",
      destination: {
        street_address: "1 Market St",
        address_locality: "San Francisco",
        postal_code: "94105",
        address_country: "US",
      },
      option: "standard",
    },
  });
  assert.equal(
    new TextDecoder().decode(mandatePayload(terms)),
    '{"buyer":{"email":"ada@example.com"},"checkout_id":"chk_1","currency":"USD","fulfillment":{"destination":' +
      '{"address_country":"US","address_locality":"San Francisco","postal_code":"94105","street_address":"1 Market St"},' +
      '"method":"shipping","option":"standard"},"line_items":[{"item":{"id":"var_b","price":1450},"quantity":2},' +
      '{"item":{"id":"var_a","price":900},"quantity":1}],"merchant":"acme","totals":[{"amount":3800,"type":"subtotal"},' +
      '{"amount":500,"type":"fulfillment"},{"amount":4300,"type":"total"}]}',
  );
});

test("mandateTerms: no buyer, no fulfillment → empty objects; an unselected single destination is the one", () => {
  const bare = mandateTerms({ ...checkout, buyer: null, fulfillment: null }, "acme");
  assert.deepEqual([bare.buyer, bare.fulfillment], [{}, {}]);
  const single = mandateTerms(
    {
      ...checkout,
      fulfillment: { methods: [{ type: "shipping", destinations: [{ id: "d1", address_country: " de " }] }] },
    },
    "acme",
  );
  assert.deepEqual(single.fulfillment, { method: "shipping", destination: { address_country: "DE" } });
});

test("checkoutMandate: a detached ES256 JWS with kid/exp/merchant/checkout_id that verifies over the terms' bytes", async () => {
  const key = generateAgentKey("kit-test");
  const now = Date.UTC(2026, 10, 25, 9, 0, 0);
  const mandate = await checkoutMandate(checkout, "acme", key, { ttlSeconds: 120, now });
  const [header, payload, signature] = mandate.split(".");
  assert.equal(payload, "", "the payload is detached");
  assert.deepEqual(decodeProtectedHeader(mandate), {
    alg: "ES256",
    kid: "kit-test",
    exp: now / 1000 + 120,
    merchant: "acme",
    checkout_id: "chk_1",
  });
  const attached = `${header}.${Buffer.from(mandatePayload(mandateTerms(checkout, "acme"))).toString("base64url")}.${signature}`;
  const verified = await compactVerify(attached, await importJWK(key.publicJwk, "ES256"));
  assert.equal(verified.protectedHeader.kid, "kit-test");
  // the same signature over other terms (another price) does not verify
  const repriced = { ...checkout, totals: [{ type: "total", amount: 4299 }] };
  const forged = `${header}.${Buffer.from(mandatePayload(mandateTerms(repriced, "acme"))).toString("base64url")}.${signature}`;
  await assert.rejects(compactVerify(forged, await importJWK(key.publicJwk, "ES256")));
});

test("checkoutMandate: each key signs with itself when keys alternate (the imported key is kept per key)", async () => {
  const first = generateAgentKey("kit-first");
  const second = generateAgentKey("kit-second");
  const terms = Buffer.from(mandatePayload(mandateTerms(checkout, "acme"))).toString("base64url");
  const verifies = async (mandate: string, publicJwk: typeof first.publicJwk) => {
    const [header, , signature] = mandate.split(".");
    return compactVerify(`${header}.${terms}.${signature}`, await importJWK(publicJwk, "ES256")).then(
      () => true,
      () => false,
    );
  };
  for (const key of [first, second, first, second]) {
    const mandate = await checkoutMandate(checkout, "acme", key);
    assert.equal(await verifies(mandate, key.publicJwk), true);
    assert.equal(await verifies(mandate, (key === first ? second : first).publicJwk), false);
  }
  // a key that cannot be imported fails every time it is used, and does not stand for another key
  const broken = { ...first.privateJwk, d: "AAAA" };
  for (let i = 0; i < 2; i++) {
    await assert.rejects(checkoutMandate(checkout, "acme", { privateJwk: broken, kid: "kit-broken" }));
  }
  assert.equal(await verifies(await checkoutMandate(checkout, "acme", first), first.publicJwk), true);
});
