import assert from "node:assert/strict";
import { test } from "node:test";

import { capabilitiesAsMap } from "./profile";

test("a 2026-01-11 capability array becomes the map form, config kept for the webhook URL", () => {
  assert.deepEqual(
    capabilitiesAsMap([
      { name: "dev.ucp.shopping.checkout", version: "2026-01-11", spec: "s", schema: "x" },
      {
        name: "dev.ucp.shopping.order",
        version: "2026-01-11",
        config: { webhook_url: "https://a.example/w" },
      },
      { version: "2026-01-11" },
    ]),
    {
      "dev.ucp.shopping.checkout": [{ version: "2026-01-11", spec: "s", schema: "x" }],
      "dev.ucp.shopping.order": [{ version: "2026-01-11", config: { webhook_url: "https://a.example/w" } }],
    },
  );
});

test("a map passes untouched; nothing stays nothing", () => {
  const map = { "dev.ucp.shopping.checkout": [{ version: "2026-01-23" }] };
  assert.equal(capabilitiesAsMap(map), map);
  assert.equal(capabilitiesAsMap(undefined), undefined);
});
