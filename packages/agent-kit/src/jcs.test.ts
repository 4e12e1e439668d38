import assert from "node:assert/strict";
import { test } from "node:test";

import canonicalize from "canonicalize";
import fc from "fast-check";

import { canonicalJson } from "./jcs.js";

// The kit's RFC 8785 writer must produce the bytes of the reference implementation the service used before
// (canonicalize), for every JSON value: a mandate signed over different bytes would never verify.

test("canonicalJson writes what canonicalize writes, for any JSON value (bounded property run)", () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
      assert.equal(canonicalJson(value), canonicalize(value));
    }),
    { numRuns: 300, seed: 26 },
  );
});

test("canonicalJson: members sorted by UTF-16 code units, no whitespace, RFC 8785 number forms", () => {
  assert.equal(
    canonicalJson({ b: [1, "x", null, true], a: { "\u00e9": 1, z: 2, Z: 3 }, c: 1e21, d: -0, e: 0.1 }),
    '{"a":{"Z":3,"z":2,"é":1},"b":[1,"x",null,true],"c":1e+21,"d":0,"e":0.1}',
  );
  // U+1F600 (surrogates D83D…) sorts before U+FB01 by code units, after it by code points
  assert.equal(canonicalJson({ "\ufb01": 1, "\u{1f600}": 2 }), '{"\u{1f600}":2,"\ufb01":1}');
  assert.equal(canonicalJson({ gone: undefined, kept: 1 }), '{"kept":1}');
});

test("canonicalJson refuses values JSON cannot carry", () => {
  assert.throws(() => canonicalJson(Number.NaN), /no JSON form/);
  assert.throws(() => canonicalJson({ a: Number.POSITIVE_INFINITY }), /no JSON form/);
  assert.throws(() => canonicalJson(() => 1), /no JSON form/);
});
