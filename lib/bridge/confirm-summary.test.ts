import assert from "node:assert/strict";
import { test } from "node:test";

import { purchaseSummary, type ResultSummary } from "./confirm-summary";

// confirm_purchase's top-level message must agree with its results: "Nothing was paid" only when no money moved.

const owedBack: ResultSummary = {
  checkout_id: "chk_short",
  status: "failed",
  error: {
    code: "payment_failed",
    message:
      "The payment failed: paid 2393 of 5874; the payment 9xYz is recorded as owed back to the buyer. Prepare the payment again",
  },
};
const refused: ResultSummary = {
  checkout_id: "chk_refused",
  status: "failed",
  error: { code: "terms_changed", message: "Nothing was charged: the checkout changed" },
};

test("a failed purchase whose only result was refused before any money moved says nothing was paid", () => {
  const summary = purchaseSummary({ results: [refused], rail: "card", digest: undefined });
  assert.deepEqual(summary, { status: "failed", message: "Nothing was paid (see each result's error)." });
});

test("a payment recorded as owed back is never summed up as 'Nothing was paid'", () => {
  const summary = purchaseSummary({ results: [owedBack], rail: "crypto", digest: "9xYz" });
  assert.equal(summary.status, "failed");
  assert.doesNotMatch(summary.message, /Nothing was paid/);
  assert.match(summary.message, /chk_short/);
  assert.match(summary.message, /owed back/);
  // beside a checkout where nothing moved, the message says which is which
  const mixed = purchaseSummary({ results: [owedBack, refused], rail: "crypto", digest: "9xYz" });
  assert.match(mixed.message, /owed back/);
  assert.match(mixed.message, /Nothing was paid for the others/);
});

test("a completion whose answer never came is unknown, not unpaid; a partial purchase names the money owed back", () => {
  const lost: ResultSummary = {
    checkout_id: "chk_lost",
    status: "failed",
    error: { code: "service_unavailable", message: "The commerce service did not answer" },
  };
  const summary = purchaseSummary({ results: [lost], rail: "card", digest: undefined });
  assert.doesNotMatch(summary.message, /Nothing was paid/);
  assert.match(summary.message, /did not answer for chk_lost/);
  const partial = purchaseSummary({
    results: [{ checkout_id: "chk_paid", status: "completed" }, owedBack],
    rail: "crypto",
    digest: "9xYz",
  });
  assert.equal(partial.status, "partial");
  assert.match(partial.message, /owed back/);
});
