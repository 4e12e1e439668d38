import assert from "node:assert/strict";
import { test } from "node:test";

import { callApp, readJson } from "../../helpers/app-client";

// The example agent profile's webhook_url answers deliveries with 2xx (a store notifying the example agent logs
// successes), and only POST: another method is a 405 naming POST.

test("the example agent's webhook_url accepts a delivery (204) and refuses other methods (405)", async () => {
  const profile = await readJson<{
    ucp: { capabilities: Record<string, { config?: { webhook_url?: string } }[]> };
  }>(await callApp("GET", "/demo/agent/.well-known/ucp"));
  const url = new URL(profile.body.ucp.capabilities["dev.ucp.shopping.order"]![0]!.config!.webhook_url!);
  const delivered = await callApp("POST", url.pathname, { body: { type: "order.created" } });
  assert.equal(delivered.status, 204);
  const get = await callApp("GET", url.pathname);
  assert.equal(get.status, 405);
  assert.equal(get.headers.get("allow"), "POST");
});
