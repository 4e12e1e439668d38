import assert from "node:assert/strict";
import { test } from "node:test";

import { groupByPayment, type BuyerOrderView } from "./list-buyer-orders";

const order = (id: string, group: string | null) =>
  ({ id, paymentGroup: group ? { id: group, stores: [] } : null }) as unknown as BuyerOrderView;

test("groupByPayment — one combined payment's orders together, in the place of the newest; other orders alone, in order", () => {
  const shown = groupByPayment([
    order("ord_5", null),
    order("ord_4", "cpg_a"),
    order("ord_3", null),
    order("ord_2", "cpg_a"),
    order("ord_1", "cpg_b"),
  ]);
  assert.deepEqual(
    shown.map((e) => (e.kind === "order" ? e.order.id : `${e.id}:${e.orders.map((o) => o.id).join(",")}`)),
    ["ord_5", "cpg_a:ord_4,ord_2", "ord_3", "cpg_b:ord_1"],
  );
});
