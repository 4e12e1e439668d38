import assert from "node:assert/strict";
import { createHash, generateKeyPairSync } from "node:crypto";
import { test } from "node:test";

import type { JWK } from "jose";

import { AppError } from "@/lib/core/errors";

import { mandatePayload, mandateTerms, type MandateTerms } from "./mandate-terms";
import { signCheckoutMandate } from "./sign-checkout-mandate";
import { keysFrom, verifyCheckoutMandate } from "./verify-checkout-mandate";

const pair = (kid: string) => {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return {
    kid,
    privateJwk: privateKey.export({ format: "jwk" }) as JWK,
    publicJwk: { ...publicKey.export({ format: "jwk" }), kid, alg: "ES256" } as Record<string, unknown>,
  };
};
const agent = pair("agent-1");
const other = pair("agent-2");
const now = new Date("2026-11-22T00:00:00Z");
const exp = Math.floor(now.getTime() / 1000) + 300;

const checkout = {
  id: "chk_1",
  currency: "USD",
  line_items: [{ id: "chli_1", item: { id: "var_1", price: 1450, title: "Socks" }, quantity: 2 }],
  totals: [
    { type: "subtotal", amount: 2900 },
    { type: "total", amount: 2900, display_text: "Total" },
  ],
  status: "ready_for_complete",
  buyer: { email: " ada@example.com ", first_name: "Ada" },
  fulfillment: {
    methods: [
      {
        id: "shipping",
        type: "shipping",
        line_item_ids: ["chli_1"],
        destinations: [
          {
            id: "dest_1",
            street_address: " 1 Market St ",
            address_locality: "Denver",
            address_region: "CO",
            postal_code: "80202",
            address_country: "us",
            extended_address: "",
            label: "home",
          },
        ],
        selected_destination_id: "dest_1",
        groups: [{ id: "g1", selected_option_id: "standard", options: [] }],
      },
    ],
  },
};
const terms: MandateTerms = mandateTerms(checkout, "acme");

const code = async (promise: Promise<unknown>): Promise<string> => {
  try {
    await promise;
    return "ok";
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    assert.equal(error.path, "$.ap2.checkout_mandate");
    return error.code;
  }
};
const verify = (mandate: string | undefined, t = terms, keys = [agent.publicJwk]) =>
  verifyCheckoutMandate(mandate, { terms: t, lookupKey: keysFrom(keys), now });

test("mandateTerms keeps exactly the B5 fields and JCS orders keys", () => {
  assert.deepEqual(terms, {
    checkout_id: "chk_1",
    merchant: "acme",
    currency: "USD",
    line_items: [{ item: { id: "var_1", price: 1450 }, quantity: 2 }],
    totals: [
      { type: "subtotal", amount: 2900 },
      { type: "total", amount: 2900 },
    ],
    buyer: { email: "ada@example.com" },
    // the destination normalized: UCP address fields only, trimmed, country upper-case, empty parts omitted
    fulfillment: {
      method: "shipping",
      destination: {
        street_address: "1 Market St",
        address_locality: "Denver",
        address_region: "CO",
        postal_code: "80202",
        address_country: "US",
      },
      option: "standard",
    },
  });
  assert.equal(
    new TextDecoder().decode(mandatePayload(terms)),
    '{"buyer":{"email":"ada@example.com"},"checkout_id":"chk_1","currency":"USD","fulfillment":{"destination":{"address_country":"US","address_locality":"Denver","address_region":"CO","postal_code":"80202","street_address":"1 Market St"},"method":"shipping","option":"standard"},"line_items":[{"item":{"id":"var_1","price":1450},"quantity":2}],"merchant":"acme","totals":[{"amount":2900,"type":"subtotal"},{"amount":2900,"type":"total"}]}',
  );
  // nothing chosen yet: the parts are empty, never guessed
  assert.deepEqual(
    mandateTerms({ ...checkout, buyer: undefined, fulfillment: undefined }, "acme").fulfillment,
    {},
  );
});

test("a change to the buyer's email, the destination or the option after signing fails the signature", async () => {
  const mandate = await signCheckoutMandate(terms, { privateJwk: agent.privateJwk, kid: agent.kid, exp });
  const method = checkout.fulfillment.methods[0]!;
  const changed = [
    { ...checkout, buyer: { email: "mallory@example.com" } },
    {
      ...checkout,
      fulfillment: {
        methods: [
          { ...method, destinations: [{ ...method.destinations[0]!, street_address: "9 Elsewhere Rd" }] },
        ],
      },
    },
    {
      ...checkout,
      fulfillment: {
        methods: [{ ...method, groups: [{ id: "g1", selected_option_id: "express", options: [] }] }],
      },
    },
  ];
  for (const c of changed) {
    await assert.rejects(verify(mandate, mandateTerms(c, "acme")), (error: AppError) => {
      assert.equal(error.code, "mandate_invalid_signature");
      assert.match(error.message, /the buyer's email or the shipment/);
      return true;
    });
  }
  // what does not change the terms (a label, whitespace, country case) does not break the signature
  const cosmetic = {
    ...checkout,
    fulfillment: {
      methods: [
        {
          ...method,
          destinations: [
            { ...method.destinations[0]!, label: "work", address_country: "US", postal_code: "80202 " },
          ],
        },
      ],
    },
  };
  assert.ok(await verify(mandate, mandateTerms(cosmetic, "acme")));
});

test("a mandate signed over the previous terms (lines and totals only) is refused with a message naming the new terms", async () => {
  const { buyer: _b, fulfillment: _f, ...previous } = terms;
  const mandate = await signCheckoutMandate(previous as MandateTerms, {
    privateJwk: agent.privateJwk,
    kid: agent.kid,
    exp,
  });
  await assert.rejects(verify(mandate), (error: AppError) => {
    assert.equal(error.code, "mandate_invalid_signature");
    assert.match(error.message, /previous terms .* buyer\.email and the fulfillment/);
    return true;
  });
});

test("a detached ES256 mandate over the live terms verifies and returns its header", async () => {
  const mandate = await signCheckoutMandate(terms, { privateJwk: agent.privateJwk, kid: agent.kid, exp });
  assert.match(mandate, /^[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+$/);
  const header = await verify(mandate);
  assert.deepEqual(header, { alg: "ES256", kid: "agent-1", exp, merchant: "acme", checkout_id: "chk_1" });
});

test("each broken rule gets its own code", async () => {
  const sign = (t: MandateTerms, opts: Partial<{ kid: string; exp: number; key: JWK }> = {}) =>
    signCheckoutMandate(t, {
      privateJwk: opts.key ?? agent.privateJwk,
      kid: opts.kid ?? agent.kid,
      exp: opts.exp ?? exp,
    });
  assert.equal(await code(verify(undefined)), "mandate_required");
  assert.equal(await code(verify("not-a-jws")), "mandate_invalid_signature");
  const attached = (await sign(terms)).replace("..", `.${Buffer.from("{}").toString("base64url")}.`);
  assert.equal(await code(verify(attached)), "mandate_invalid_signature");
  assert.equal(await code(verify(await sign(terms, { exp: exp - 600 }))), "mandate_expired");
  assert.equal(await code(verify(await sign({ ...terms, merchant: "other" }))), "mandate_scope_mismatch");
  assert.equal(await code(verify(await sign({ ...terms, checkout_id: "chk_2" }))), "mandate_scope_mismatch");
  assert.equal(await code(verify(await sign(terms, { kid: "unknown" }))), "agent_missing_key");
  // signed by a key that is not the one published under that kid
  assert.equal(await code(verify(await sign(terms, { key: other.privateJwk }))), "mandate_invalid_signature");
  // stale prices: signed over 1450, the live checkout now says 1500
  const live = mandateTerms(
    {
      ...checkout,
      line_items: [{ item: { id: "var_1", price: 1500 }, quantity: 2 }],
      totals: [
        { type: "subtotal", amount: 3000 },
        { type: "total", amount: 3000 },
      ],
    },
    "acme",
  );
  assert.equal(await code(verify(await sign(terms), live)), "mandate_invalid_signature");
});

test("signed over an earlier version of the checkout: the refusal names what changed since; otherwise it gives the current terms' digest", async () => {
  const mandate = await signCheckoutMandate(terms, { privateJwk: agent.privateJwk, kid: agent.kid, exp });
  const live = mandateTerms(
    {
      ...checkout,
      line_items: [{ item: { id: "var_1", price: 1450 }, quantity: 3 }],
      totals: [
        { type: "subtotal", amount: 4350 },
        { type: "total", amount: 4350 },
      ],
    },
    "acme",
  );
  const unrelated = { ...terms, currency: "EUR" };
  await assert.rejects(
    verifyCheckoutMandate(mandate, {
      terms: live,
      lookupKey: keysFrom([agent.publicJwk]),
      now,
      earlierTerms: [unrelated, terms, live],
    }),
    (error: AppError) => {
      assert.equal(error.code, "mandate_invalid_signature");
      assert.match(
        error.message,
        /earlier version of this checkout; since then line_items\[var_1\]\.quantity 2 → 3; totals\[subtotal\] 2900 → 4350; totals\[total\] 2900 → 4350 — re-read/,
      );
      return true;
    },
  );
  // not in the history (or no history): the message cannot know what differs, so it gives what to compare
  const digest = createHash("sha256").update(mandatePayload(live)).digest("base64url");
  await assert.rejects(
    verifyCheckoutMandate(mandate, {
      terms: live,
      lookupKey: keysFrom([agent.publicJwk]),
      now,
      earlierTerms: [unrelated],
    }),
    (error: AppError) => {
      assert.ok(error.message.includes(`SHA-256 ${digest}`), error.message);
      assert.match(error.message, /with key "agent-1"/);
      return true;
    },
  );
});
