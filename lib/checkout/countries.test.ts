import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { COUNTRY_CODES, countryOptions } from "./countries";

describe("countryOptions", () => {
  test("every assigned code once, named in English and sorted by name", () => {
    const options = countryOptions();
    assert.deepEqual(new Set(options.map((o) => o.code)), COUNTRY_CODES);
    assert.equal(options.length, COUNTRY_CODES.size);
    assert.equal(options.find((o) => o.code === "DE")?.name, "Germany");
    assert.equal(options.find((o) => o.code === "US")?.name, "United States");
    const names = options.map((o) => o.name);
    assert.deepEqual(
      names,
      [...names].sort((a, b) => a.localeCompare(b, "en")),
    );
    // a name, never the bare code, for each of them
    assert.ok(options.every((o) => o.name !== o.code && o.name.length > 2));
  });
});
