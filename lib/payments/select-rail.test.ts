import assert from "node:assert/strict";
import { test } from "node:test";

import { AppError } from "@/lib/core/errors";

import { selectRail, type CompletionInstrument } from "./select-rail";

const both = ["svc.card", "svc.crypto"];
const fails = (instruments: CompletionInstrument[], offered: string[]) => {
  try {
    selectRail(instruments, offered);
  } catch (error) {
    assert.ok(error instanceof AppError);
    return [error.code, error.path];
  }
  return ["ok"];
};

test("selects by the inner handler id of the selected or only instrument", () => {
  const card = { handler_id: "svc.card", selected: true, credential: { type: "stripe_token", token: "pm" } };
  assert.equal(selectRail([card], ["svc.card"]).handlerId, "svc.card");
  assert.equal(selectRail([{ handler_id: "svc.crypto" }, card], both).handlerId, "svc.card");
  assert.equal(selectRail([{ handler_id: "svc.crypto" }], both).handlerId, "svc.crypto");
  // one rail, nothing sent: that rail, no instrument (no token → hosted page)
  assert.deepEqual(selectRail([], ["svc.card"]), { handlerId: "svc.card", instrument: null, index: -1 });
});

test("registry keys, unknown ids, several selections and a missing choice are refused", () => {
  assert.deepEqual(fails([{ handler_id: "sh.svc.card" }], ["svc.card"]), [
    "unknown_payment_handler",
    "$.payment.instruments[0].handler_id",
  ]);
  assert.deepEqual(fails([{ handler_id: "com.google.pay" }], ["svc.card"]), [
    "unknown_payment_handler",
    "$.payment.instruments[0].handler_id",
  ]);
  // a rail the store does not offer
  assert.deepEqual(fails([{ handler_id: "svc.crypto" }], ["svc.card"])[0], "unknown_payment_handler");
  assert.deepEqual(
    fails(
      [
        { handler_id: "svc.card", selected: true },
        { handler_id: "svc.crypto", selected: true },
      ],
      both,
    ),
    ["multiple_payment_selections", "$.payment.instruments[1].selected"],
  );
  assert.deepEqual(fails([], both), ["payment_selection_required", "$.payment.instruments"]);
  assert.deepEqual(fails([{ handler_id: "svc.card" }, { handler_id: "svc.crypto" }], both), [
    "payment_selection_required",
    "$.payment.instruments",
  ]);
});
