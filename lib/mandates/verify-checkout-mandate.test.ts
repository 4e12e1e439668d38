import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
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
  });
  assert.equal(
    new TextDecoder().decode(mandatePayload(terms)),
    '{"checkout_id":"chk_1","currency":"USD","line_items":[{"item":{"id":"var_1","price":1450},"quantity":2}],"merchant":"acme","totals":[{"amount":2900,"type":"subtotal"},{"amount":2900,"type":"total"}]}',
  );
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
