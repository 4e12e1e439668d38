import assert from "node:assert/strict";
import { test } from "node:test";

import { checkSameOrigin } from "./same-origin";

const h = (entries: Record<string, string>) => new Headers(entries);

test("a form post from the page's own origin passes; from another site it is refused", () => {
  assert.deepEqual(
    checkSameOrigin("POST", h({ host: "shop.example:3000", origin: "http://shop.example:3000" })),
    {
      ok: true,
    },
  );
  assert.deepEqual(checkSameOrigin("POST", h({ host: "shop.example", origin: "https://evil.example" })), {
    ok: false,
    origin: "https://evil.example",
    host: "shop.example",
  });
  // a sandboxed frame or a data: URL sends Origin: null
  assert.equal(checkSameOrigin("POST", h({ host: "shop.example", origin: "null" })).ok, false);
  assert.equal(checkSameOrigin("POST", h({ host: "shop.example", origin: "not a url" })).ok, false);
  // the port is part of the host
  assert.equal(
    checkSameOrigin("POST", h({ host: "shop.example:3000", origin: "http://shop.example:4000" })).ok,
    false,
  );
});

test("behind a proxy the forwarded host is the one compared, as Next.js does", () => {
  const forwarded = {
    host: "10.0.0.5:3000",
    "x-forwarded-host": "shop.example",
    origin: "https://shop.example",
  };
  assert.equal(checkSameOrigin("POST", h(forwarded)).ok, true);
  assert.equal(checkSameOrigin("POST", h({ ...forwarded, origin: "https://10.0.0.5:3000" })).ok, false);
});

test("reads and requests without Origin pass", () => {
  assert.equal(checkSameOrigin("GET", h({ host: "shop.example", origin: "https://evil.example" })).ok, true);
  assert.equal(checkSameOrigin("HEAD", h({ host: "shop.example", origin: "https://evil.example" })).ok, true);
  assert.equal(checkSameOrigin("POST", h({ host: "shop.example" })).ok, true);
  assert.equal(checkSameOrigin("POST", h({ origin: "https://shop.example" })).ok, false);
});
