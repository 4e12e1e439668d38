import { readFileSync } from "node:fs";
import path from "node:path";

import { expect, test } from "@playwright/test";

// X-Content-Type-Options: nosniff on what the built service answers over a real socket, whichever path the answer
// takes: a page Next renders, a static file, a store REST route the server answers without Next's routing
// (scripts/lib/direct-routes.ts), a JSON answer through Next, and the authorization endpoint's error page. And the
// Referrer-Policy on the same kinds of answer, 404s and the favicon included.

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

test("the authorization endpoint's error, its redirect and the page it lands on, are nosniff", async ({
  request,
}) => {
  const res = await request.get("/ucp/oauth2/authorize?response_type=code", { maxRedirects: 0 });
  expect(res.status()).toBe(303);
  expect(res.headers()["x-content-type-options"]).toBe("nosniff");
  const page = await request.get(res.headers()["location"]!);
  expect(page.status()).toBe(200);
  expect(page.headers()["content-type"]).toContain("text/html");
  expect(page.headers()["x-content-type-options"]).toBe("nosniff");
});

// Referrer-Policy on every kind of answer (security-headers.ts): another site is told at most our origin; the buyer
// identity pages and the OAuth pages (/oauth/*), whose addresses carry request ids and tickets, send no referrer.
test("Referrer-Policy on a page, an API route (direct and through Next), a static file, the favicon and 404s", async ({
  request,
}) => {
  const policyOf = async (url: string, init: Parameters<typeof request.get>[1] = {}) => {
    const res = await request.get(url, { maxRedirects: 0, ...init });
    return { status: res.status(), policy: res.headers()["referrer-policy"], body: res };
  };
  const home = await policyOf("/");
  expect(home).toMatchObject({ status: 200, policy: "strict-origin-when-cross-origin" });
  const script = /<script[^>]+src="(\/_next\/static\/[^"]+\.js)"/.exec(await home.body.text())?.[1];
  expect(script, "the page loads a script of the build").toBeTruthy();
  expect(await policyOf(script!)).toMatchObject({ status: 200, policy: "strict-origin-when-cross-origin" });
  const icon = await policyOf("/icon.svg");
  expect(icon).toMatchObject({ status: 200, policy: "strict-origin-when-cross-origin" });
  expect(icon.body.headers()["content-type"]).toContain("image/svg+xml");
  expect(await policyOf("/.well-known/oauth-authorization-server")).toMatchObject({
    status: 200,
    policy: "strict-origin-when-cross-origin",
  });
  const direct = await policyOf("/s/summit-trail-outfitters/carts/cart_missing", {
    headers: {
      "request-id": "referrer-direct",
      "ucp-agent": `profile="${test.info().project.use.baseURL}/demo/agent/.well-known/ucp"`,
      "x-api-key": demoKey(),
    },
  });
  expect(direct.body.headers()["content-type"]).toContain("application/json");
  expect(direct.policy).toBe("strict-origin-when-cross-origin");
  // a 404 from the API's catch-all route, and a page that is not found
  expect(await policyOf("/no-such-route")).toMatchObject({
    status: 404,
    policy: "strict-origin-when-cross-origin",
  });
  expect(await policyOf("/s/summit-trail-outfitters/cart/no-such-token")).toMatchObject({
    status: 404,
    policy: "strict-origin-when-cross-origin",
  });
  // the stricter policy of the identity pages and the OAuth answers stays
  expect(await policyOf("/oauth/consent")).toMatchObject({ status: 200, policy: "no-referrer" });
  expect(await policyOf("/oauth/error")).toMatchObject({ status: 200, policy: "no-referrer" });
  expect(await policyOf("/account/agents")).toMatchObject({ status: 200, policy: "no-referrer" });
  // and a redirect a route handler answers
  expect(await policyOf("/ucp/oauth2/authorize?response_type=code")).toMatchObject({
    status: 303,
    policy: "strict-origin-when-cross-origin",
  });
});
