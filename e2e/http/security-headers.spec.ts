import { readFileSync } from "node:fs";
import path from "node:path";

import { expect, test } from "@playwright/test";

// X-Content-Type-Options: nosniff on what the built service answers over a real socket, whichever path the answer
// takes: a page Next renders, a static file, a store REST route the server answers without Next's routing
// (scripts/lib/direct-routes.ts), a JSON answer through Next, and the authorization endpoint's HTML error page.

const demoKey = (): string =>
  (
    JSON.parse(
      readFileSync(path.join(path.dirname(process.env.E2E_PGLITE_DIR!), "demo-platform-key.json"), "utf8"),
    ) as { key: string }
  ).key;

test("a page and the static script it loads are nosniff", async ({ request }) => {
  const page = await request.get("/");
  expect(page.status()).toBe(200);
  expect(page.headers()["content-type"]).toContain("text/html");
  expect(page.headers()["x-content-type-options"]).toBe("nosniff");
  const script = /<script[^>]+src="(\/_next\/static\/[^"]+\.js)"/.exec(await page.text())?.[1];
  expect(script, "the page loads a script of the build").toBeTruthy();
  const asset = await request.get(script!);
  expect(asset.status()).toBe(200);
  expect(asset.headers()["x-content-type-options"]).toBe("nosniff");
});

test("JSON answers are nosniff: a store route answered directly, and one through Next", async ({
  request,
}) => {
  const direct = await request.get("/s/summit-trail-outfitters/carts/cart_missing", {
    headers: {
      "request-id": "nosniff-direct",
      "ucp-agent": `profile="${test.info().project.use.baseURL}/demo/agent/.well-known/ucp"`,
      "x-api-key": demoKey(),
    },
  });
  expect(direct.headers()["content-type"]).toContain("application/json");
  expect(direct.headers()["x-content-type-options"]).toBe("nosniff");
  const viaNext = await request.get("/.well-known/oauth-authorization-server");
  expect(viaNext.status()).toBe(200);
  expect(viaNext.headers()["x-content-type-options"]).toBe("nosniff");
});

test("the authorization endpoint's error page is nosniff", async ({ request }) => {
  const res = await request.get("/ucp/oauth2/authorize?response_type=code");
  expect(res.status()).toBe(400);
  expect(res.headers()["content-type"]).toContain("text/html");
  expect(res.headers()["x-content-type-options"]).toBe("nosniff");
});
