import assert from "node:assert/strict";
import { test } from "node:test";

import {
  generateAgentKey,
  requestComponents as kitComponents,
  signRequest as kitSign,
} from "@agent-commerce/agent-kit";

import { requestComponents, verifyRequestSignature, type HttpMessage } from "./signature";

// The agent kit signs requests on its own (it imports nothing from the service). What it covers must be what our
// verifier requires, request by request, and what it signs must verify here, or a kit user would be refused at
// the signed tier with no change on their side.

const agent = 'profile="https://agent.example/.well-known/ucp"';
const requests: HttpMessage[] = [
  {
    method: "GET",
    url: "https://shop.example/s/acme/orders/ord_1",
    headers: new Headers({ "ucp-agent": agent }),
    body: null,
  },
  {
    method: "GET",
    url: "https://shop.example/s/acme/order-events?cursor=c1&limit=5",
    headers: new Headers({ "ucp-agent": agent }),
    body: null,
  },
  {
    method: "POST",
    url: "https://shop.example/s/acme/checkout-sessions",
    headers: new Headers({ "ucp-agent": agent, "idempotency-key": "k1", "content-type": "application/json" }),
    body: '{"line_items":[{"item":{"id":"var_1"},"quantity":1}]}',
  },
  {
    method: "PUT",
    url: "https://shop.example/s/acme/checkout-sessions/chk_1",
    headers: new Headers({ "ucp-agent": agent, "idempotency-key": "k2", "content-type": "application/json" }),
    body: '{"buyer":{"email":"ada@example.com"}}',
  },
  {
    method: "POST",
    url: "https://shop.example/s/acme/checkout-sessions/chk_1/cancel",
    headers: new Headers({ "idempotency-key": "k3" }),
    body: null,
  },
];

test("the kit covers exactly the components our verifier requires, for every request shape", () => {
  for (const request of requests) {
    assert.deepEqual(kitComponents(request), requestComponents(request), `${request.method} ${request.url}`);
  }
});

test("a request signed by the kit verifies with our verifier; the same request with another body does not", async () => {
  const key = generateAgentKey("kit-parity");
  for (const request of requests) {
    const headers = await kitSign(request, key);
    const options = {
      lookupKey: async (kid: string) => (kid === key.kid ? key.publicJwk : null),
      now: new Date(),
    };
    const verified = await verifyRequestSignature({ ...request, headers }, options);
    assert.equal(verified?.[0]?.keyid, "kit-parity", `${request.method} ${request.url}`);
    if (request.body) {
      await assert.rejects(
        verifyRequestSignature({ ...request, headers, body: `${request.body} ` }, options),
        {
          code: "digest_mismatch",
        },
      );
    }
  }
});
