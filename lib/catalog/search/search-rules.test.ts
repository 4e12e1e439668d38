import assert from "node:assert/strict";
import { test } from "node:test";

import { quote } from "./meilisearch";
import { SearchInputSchema } from "./schemas";
import { queryTerms, toSearchRequest } from "./search-catalog";
import { likePattern } from "./seller-match";

test("queryTerms: lower-cased words; SQL, regex and quotes only separate words; at most 12, deduplicated", () => {
  assert.deepEqual(queryTerms("Waterproof  HIKING boots"), ["waterproof", "hiking", "boots"]);
  assert.deepEqual(queryTerms("'); DROP TABLE x; -- .* [a-z]+"), ["drop", "table", "x", "a", "z"]);
  assert.deepEqual(queryTerms("boot boot Boot"), ["boot"]);
  assert.equal(queryTerms(Array.from({ length: 30 }, (_, i) => `w${i}`).join(" ")).length, 12);
  assert.deepEqual(queryTerms("%_'\";"), []);
  assert.deepEqual(queryTerms("Größe café"), ["größe", "café"]);
});

test("toSearchRequest: defaults and the fingerprint a cursor is bound to", () => {
  const parse = (body: unknown) => SearchInputSchema.parse(body);
  const a = toSearchRequest(parse({ query: "boots" }), null);
  assert.equal(a.sort, "relevance");
  assert.equal(a.filters.available, true);
  assert.equal(toSearchRequest(parse({ filters: { available: false } }), null).sort, "newest");
  // word order and case do not change the search; the store scope and filters do
  assert.equal(toSearchRequest(parse({ query: "Boots" }), null).fingerprint, a.fingerprint);
  assert.notEqual(toSearchRequest(parse({ query: "boots" }), "store_1").fingerprint, a.fingerprint);
  assert.notEqual(
    toSearchRequest(parse({ query: "boots", filters: { tags: ["x"] } }), null).fingerprint,
    a.fingerprint,
  );
  // page size is not part of it: a cursor works with another limit
  assert.equal(
    toSearchRequest(parse({ query: "boots", pagination: { limit: 3 } }), null).fingerprint,
    a.fingerprint,
  );
  assert.throws(() => toSearchRequest(parse({ pagination: { limit: 3 } }), null), /query and\/or filters/);
});

test("filter price currency: from filters.price.currency, else context.currency, upper-cased", () => {
  const r = toSearchRequest(
    SearchInputSchema.parse({ filters: { price: { max: 100 } }, context: { currency: "eur" } }),
    null,
  );
  assert.equal(r.filters.currency, "EUR");
  const own = toSearchRequest(
    SearchInputSchema.parse({
      filters: { price: { max: 100, currency: "usd" } },
      context: { currency: "eur" },
    }),
    null,
  );
  assert.equal(own.filters.currency, "USD");
});

test("likePattern escapes LIKE metacharacters; quote escapes Meilisearch filter strings", () => {
  assert.equal(likePattern("100%_off\\"), "%100\\%\\_off\\\\%");
  assert.equal(quote('say "hi" \\ bye'), '"say \\"hi\\" \\\\ bye"');
});
