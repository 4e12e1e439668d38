import assert from "node:assert/strict";
import { test } from "node:test";

import type { AnyOperation, ToolAnnotations } from "@/lib/core/operation";

import { toolDescription } from "./tool-schema";
import { ACCOUNT_TOOLS } from "./tools/account";
import { GLOBAL_TOOLS } from "./tools/global";
import { STORE_TOOLS } from "./tools/store";

// The annotations every MCP tool advertises, one row per tool (seed §4 "Bridge rules": read-only on search,
// lookup and get; destructive on complete and cancel; money-moving tools destructive and open-world; other writes
// additive). A change to a descriptor's hints has to change this table too.

type Row = [readOnly: boolean, destructive: boolean, idempotent: boolean, openWorld: boolean];
const EXPECTED: Record<string, Row> = {
  // read-only: change nothing, reach nothing outside the service
  search_catalog: [true, false, true, false],
  lookup_catalog: [true, false, true, false],
  list_catalog_changes: [true, false, true, false],
  get_product: [true, false, true, false],
  search_locations: [true, false, true, false],
  lookup_locations: [true, false, true, false],
  get_cart: [true, false, true, false],
  get_checkout: [true, false, true, false],
  get_order: [true, false, true, false],
  list_order_events: [true, false, true, false],
  list_webhook_deliveries: [true, false, true, false],
  list_linked_agents: [true, false, true, false],
  get_my_order: [true, false, true, false],
  list_my_orders: [true, false, true, false],
  get_intent_mandate: [true, false, true, false],
  list_my_allowances: [true, false, true, false],
  list_my_coupons: [true, false, true, false],
  // additive writes: a retry with the same idempotency key replays the first answer
  create_cart: [false, false, true, false],
  update_cart: [false, false, true, false],
  create_checkout: [false, false, true, false],
  update_checkout: [false, false, true, false],
  // sets which service coupon a checkout holds (the same call again changes nothing)
  apply_coupon_to_checkout: [false, false, true, false],
  // final: nothing can be done with the resource afterwards
  cancel_cart: [false, true, true, false],
  cancel_checkout: [false, true, true, false],
  revoke_linked_agent: [false, true, true, false],
  // moves money through the payment provider
  complete_checkout: [false, true, true, true],
  // may cancel or refund at once through the payment provider (the store's policy), final either way
  request_order_cancellation: [false, true, true, true],
  request_order_refund: [false, true, true, true],
  // asks the chain (the buyer's coins) and prepares a payment; a retry with the same key replays it, a new call
  // replaces the prepared payment without moving money
  prepare_checkout_payment: [false, false, true, true],
  // a new unsigned transaction for 2–5 stores each call (the account surface takes no idempotency key)
  prepare_combined_payment: [false, false, false, true],
  // queues a POST to the platform's webhook receiver
  redeliver_webhook: [false, false, true, true],
};

const ALL: AnyOperation[] = [...new Set([...GLOBAL_TOOLS, ...STORE_TOOLS, ...ACCOUNT_TOOLS])];

const hints = (a: ToolAnnotations): Row => [
  a.readOnlyHint,
  a.destructiveHint,
  a.idempotentHint,
  a.openWorldHint,
];

test("every MCP tool's annotations match the table, and the table has no tool that is gone", () => {
  assert.deepEqual(ALL.map((op) => op.name).sort(), Object.keys(EXPECTED).sort());
  for (const op of ALL) {
    assert.deepEqual(hints(op.mcp.annotations), EXPECTED[op.name], op.name);
  }
});

test("annotations agree with what the descriptor does: a state-changing tool is never read-only", () => {
  for (const op of ALL) {
    if (op.mutates) assert.equal(op.mcp.annotations.readOnlyHint, false, op.name);
    if (op.mcp.annotations.readOnlyHint) {
      assert.equal(op.mutates, false, op.name);
      assert.equal(op.mcp.annotations.destructiveHint, false, op.name);
    }
    // a tool that moves money is destructive and open-world
    if (op.permission === "purchase:complete") {
      assert.equal(op.mcp.annotations.destructiveHint, true, op.name);
      assert.equal(op.mcp.annotations.openWorldHint, true, op.name);
    }
  }
});

test("descriptions are written for a model: what comes next, and each error code's remedy from the table", () => {
  for (const op of ALL) {
    const text = toolDescription(op);
    // short enough for a model's tool list; complete_checkout, which explains both rails, the buyer's allowance,
    // service coupons and 22 codes, is the longest
    assert.ok(text.length >= 80 && text.length <= 3000, `${op.name}: ${text.length} characters`);
    for (const code of op.errors ?? []) {
      assert.match(text, new RegExp(`- ${code}: \\S`), `${op.name} explains ${code}`);
    }
  }
  const complete = toolDescription(ALL.find((op) => op.name === "complete_checkout")!);
  // the money rules a model must not get wrong: when to call it, and how to retry
  assert.match(complete, /ready_for_complete/);
  assert.match(complete, /same idempotency key/);
  assert.match(complete, /- payment_failed: /);
  assert.match(complete, /- payment_selection_required: Read ucp\.payment_handlers/);
  // the entry point says it is the entry point
  assert.match(toolDescription(ALL.find((op) => op.name === "search_catalog")!), /^Start here/);
});
