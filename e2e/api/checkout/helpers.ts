import assert from "node:assert/strict";

import { assertUcpSchema } from "../../helpers/ucp-schema";

// Shared shapes and checks for the checkout tests.

export type Total = { type: string; amount: number; display_text?: string };
export type Message = { type: string; code?: string; path?: string; severity?: string; content: string };
export type Option = { id: string; title: string; totals: Total[] };
export type Checkout = {
  id: string;
  status: string;
  currency: string;
  cart_id?: string;
  notes?: string;
  ucp: { version: string; status: string; capabilities: Record<string, unknown>; payment_handlers: object };
  line_items: {
    id: string;
    item: { id: string; title: string; price: number };
    quantity: number;
    totals: Total[];
  }[];
  buyer?: Record<string, unknown>;
  fulfillment: {
    methods: {
      id: string;
      type: string;
      line_item_ids: string[];
      destinations: Record<string, string>[];
      selected_destination_id: string | null;
      groups: { id: string; line_item_ids: string[]; options: Option[]; selected_option_id: string | null }[];
    }[];
  };
  discounts: {
    codes: string[];
    applied: {
      code: string;
      title: string;
      amount: number;
      allocations: { path: string; amount: number }[];
    }[];
  };
  payment: { instruments: Record<string, unknown>[] };
  totals: Total[];
  messages: Message[];
  links: unknown[];
  order?: { id: string; permalink_url: string };
};
export type ErrorEnvelope = { ucp: { status: string }; messages: Message[] };

/** Every schema a checkout response composes: base checkout plus the three extensions we declare. */
export const assertCheckoutSchema = (body: unknown): void => {
  assertUcpSchema("shopping/checkout.json", body);
  assertUcpSchema("shopping/fulfillment.json#/$defs/dev.ucp.shopping.checkout", body);
  assertUcpSchema("shopping/discount.json#/$defs/dev.ucp.shopping.checkout", body);
  assertUcpSchema("shopping/buyer_consent.json#/$defs/dev.ucp.shopping.checkout", body);
};

export const totalOf = (c: { totals: Total[] }, type: string): number | undefined =>
  c.totals.find((t) => t.type === type)?.amount;

/** UCP totals invariant: the non-total entries sum to the total; all integers. */
export const assertTotalsInvariant = (c: { totals: Total[] }): void => {
  const total = c.totals.filter((t) => t.type === "total");
  assert.equal(total.length, 1);
  assert.equal(c.totals.filter((t) => t.type === "subtotal").length, 1);
  for (const t of c.totals) assert.ok(Number.isInteger(t.amount), `${t.type} is an integer`);
  const sum = c.totals.filter((t) => t.type !== "total").reduce((a, t) => a + t.amount, 0);
  assert.equal(sum, total[0]!.amount);
};

export const errorPaths = (c: { messages: Message[] }) =>
  c.messages.filter((m) => m.type === "error").map((m) => [m.code, m.path]);

export const BUYER = { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" };
export const SEED_ADDRESS = {
  line1: "1 Market St",
  city: "San Francisco",
  region: "CA",
  postal_code: "94105",
  country: "US",
};
