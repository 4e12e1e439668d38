import assert from "node:assert/strict";
import { test } from "node:test";

import { assertUcpSchema, ucpValidator } from "../../../e2e/helpers/ucp-schema";
import { orderWebhookBodyDown } from "./order";

// An order as the service sends it at 2026-04-08 (lib/orders/to-wire.ts): a canceled line, a refund.
const order0408 = () => ({
  ucp: {
    version: "2026-04-08",
    status: "success",
    capabilities: { "dev.ucp.shopping.order": [{ version: "2026-04-08" }] },
  },
  id: "ord_1",
  checkout_id: "chk_1",
  permalink_url: "https://svc.example/s/a/orders/ord_1",
  line_items: [
    {
      id: "li_1",
      item: { id: "var_1", title: "Mug", price: 2000 },
      quantity: { original: 2, total: 2, fulfilled: 1 },
      totals: [
        { type: "subtotal", amount: 4000 },
        { type: "total", amount: 4000 },
      ],
      status: "partial",
    },
    {
      id: "li_2",
      item: { id: "var_2", title: "Cup", price: 900 },
      quantity: { original: 1, total: 0, fulfilled: 0 },
      totals: [
        { type: "subtotal", amount: 900 },
        { type: "total", amount: 900 },
      ],
      status: "removed",
    },
  ],
  fulfillment: { expectations: [], events: [] },
  adjustments: [
    {
      id: "adj_1",
      type: "refund",
      occurred_at: "2026-12-02T12:00:00.000Z",
      status: "completed",
      line_items: [{ id: "li_2", quantity: -1 }],
      totals: [{ type: "total", amount: -900 }],
    },
  ],
  currency: "USD",
  totals: [
    { type: "subtotal", amount: 4900 },
    { type: "discount", amount: -490 },
    { type: "total", amount: 4410 },
  ],
});

for (const version of ["2026-01-11", "2026-01-23"] as const) {
  test(`the order webhook body at ${version} matches that tag's order.json, with event_id and created_time`, () => {
    assert.equal(
      ucpValidator("shopping/order.json", version)(order0408()),
      false,
      "untranslated it does not",
    );
    const body = JSON.parse(
      orderWebhookBodyDown(version, JSON.stringify(order0408()), {
        id: "whd_1",
        createdTime: new Date("2026-12-02T12:00:01Z"),
      }),
    ) as Record<string, unknown>;
    assertUcpSchema("shopping/order.json", body, version);
    assert.equal(body.event_id, "whd_1");
    assert.equal(body.created_time, "2026-12-02T12:00:01.000Z");
    assert.equal("currency" in body, false);
    const [, removed] = body.line_items as { status: string; quantity: object }[];
    assert.equal(removed!.status, "processing");
    assert.deepEqual(removed!.quantity, { total: 0, fulfilled: 0 });
    assert.deepEqual(body.adjustments, [
      {
        id: "adj_1",
        type: "refund",
        occurred_at: "2026-12-02T12:00:00.000Z",
        status: "completed",
        line_items: [{ id: "li_2", quantity: 1 }],
        amount: 900,
      },
    ]);
  });
}
