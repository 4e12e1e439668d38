import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";

import { seedPlatformKey, seedStore } from "../../factories";
import { callApp, readJson, rest } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// An API link opened in a browser (the order permalink an agent shows its buyer, a checkout URL pasted into the
// address bar) gets a short page that says what it is and where a buyer looks instead, not JSON about a missing
// Request-Id. API clients are answered exactly as before.

const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

let store: Store;
let apiKey: string;

before(async () => {
  await prepareTestDatabase();
  store = await seedStore({ name: "Harbor <Goods>" });
  apiKey = (await seedPlatformKey()).key;
});
after(closeTestDatabase);

const visit = async (pathname: string, headers: Record<string, string> = {}) => {
  const res = await callApp("GET", pathname, { headers: { accept: BROWSER_ACCEPT, ...headers } });
  return { res, text: await res.text() };
};

describe("API links opened in a browser", () => {
  test("an order permalink: a page naming the order and the store (escaped), linking the buyer's orders", async () => {
    const { res, text } = await visit(`/s/${store.slug}/orders/ord_123`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
    assert.equal(res.headers.get("vary"), "Accept");
    assert.match(res.headers.get("content-security-policy") ?? "", /default-src 'none'/);
    assert.match(text, /<h1>Order ord_123<\/h1>/);
    assert.match(text, /Harbor &lt;Goods&gt;/);
    assert.ok(!text.includes("Harbor <Goods>"));
    assert.match(text, /href="\/account\/orders"/);
  });

  test("checkout, cart and MCP links say what they are", async () => {
    assert.match(
      (await visit(`/s/${store.slug}/checkout-sessions/chk_9`)).text,
      /Checkout chk_9[\s\S]*payment link/,
    );
    assert.match((await visit(`/s/${store.slug}/carts/crt_1`)).text, /Cart crt_1/);
    assert.match((await visit(`/s/${store.slug}/mcp`)).text, /Model Context Protocol endpoint/);
    assert.match((await visit(`/mcp`)).text, /MCP endpoint/);
    assert.match((await visit(`/account/mcp`)).text, /href="\/account\/agents"/);
  });

  test("API clients keep the API's answer: JSON preferred, any envelope header or credential, other methods", async () => {
    const json = await visit(`/s/${store.slug}/orders/ord_123`, { accept: "application/json, text/html" });
    assert.equal(json.res.status, 400);
    assert.equal(JSON.parse(json.text).code, "missing_request_id");
    const keyed = await visit(`/s/${store.slug}/orders/ord_123`, { "x-api-key": apiKey });
    assert.match(keyed.res.headers.get("content-type") ?? "", /json/);
    const enveloped = await rest("GET", `/s/${store.slug}/orders/ord_123`, {
      headers: { accept: BROWSER_ACCEPT, "x-api-key": apiKey },
    });
    assert.equal(enveloped.status, 403, enveloped.text);
    assert.equal((enveloped.body as { code?: string }).code, "insufficient_scope");
    const posted = await readJson(
      await callApp("POST", `/s/${store.slug}/carts`, { headers: { accept: BROWSER_ACCEPT }, body: {} }),
    );
    assert.equal(posted.status, 400);
    assert.match(posted.headers.get("content-type") ?? "", /json/);
  });

  test("an unknown store gets no page (the API's own answer); the store profile and the open global catalog stay JSON", async () => {
    const unknown = await visit(`/s/no-such-store/orders/ord_1`);
    assert.match(unknown.res.headers.get("content-type") ?? "", /json/);
    assert.ok(!unknown.text.includes("no-such-store"), unknown.text);
    // the store's profile is a discovery document: JSON for a browser too
    const profile = await visit(`/s/${store.slug}/.well-known/ucp`);
    assert.equal(profile.res.status, 200);
    assert.match(profile.res.headers.get("content-type") ?? "", /json/);
    const catalog = await visit(`/catalog/search?q=boots`);
    assert.match(catalog.res.headers.get("content-type") ?? "", /json/);
    assert.equal(await (await getDb()).order.count({ where: { storeId: store.id } }), 0);
  });
});
