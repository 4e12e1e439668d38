import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { z } from "zod";

import {
  CartOutputSchema,
  CheckoutOutputSchema,
  ErrorEnvelopeSchema,
  LookupOutputSchema,
  OrderOutputSchema,
  ProductOutputSchema,
  SearchOutputSchema,
} from "./output-schemas";

// Our output schemas against the official UCP 2026-04-08 schemas (vendored in e2e/ucp): every field UCP
// requires of a resource is required here too, so an outputSchema never promises less than the spec.

const UCP = path.join(import.meta.dirname, "../../e2e/ucp/schemas");

type Json = { required?: string[]; properties?: Record<string, Json>; $defs?: Record<string, Json> };
const ucp = (file: string, def?: string): Json => {
  const doc = JSON.parse(readFileSync(path.join(UCP, file), "utf8")) as Json;
  return def ? doc.$defs![def]! : doc;
};
const ours = (schema: z.ZodType): Json =>
  z.toJSONSchema(schema, { io: "output", target: "draft-07" }) as Json;

const PAIRS: [string, z.ZodType, Json][] = [
  ["cart", CartOutputSchema, ucp("shopping/cart.json")],
  ["checkout", CheckoutOutputSchema, ucp("shopping/checkout.json")],
  ["order", OrderOutputSchema, ucp("shopping/order.json")],
  ["search", SearchOutputSchema, ucp("shopping/catalog_search.json", "search_response")],
  ["lookup", LookupOutputSchema, ucp("shopping/catalog_lookup.json", "lookup_response")],
  ["get_product", ProductOutputSchema, ucp("shopping/catalog_lookup.json", "get_product_response")],
  ["error envelope", ErrorEnvelopeSchema, ucp("shopping/types/error_response.json")],
];

test("each output schema requires at least what the UCP schema requires", () => {
  for (const [name, schema, spec] of PAIRS) {
    const required = new Set(ours(schema).required ?? []);
    for (const field of spec.required ?? [])
      assert.ok(required.has(field), `${name}: ${field} required by UCP`);
  }
  const product = ucp("shopping/types/product.json");
  const ourProduct = ours(ProductOutputSchema).properties!.product!;
  for (const field of product.required ?? []) {
    assert.ok(ourProduct.required?.includes(field), `product.${field} required by UCP`);
  }
});

test("resources stay open to fields UCP lets a business add, and the error envelope is ucp.status error", () => {
  assert.equal(CartOutputSchema.safeParse(cartBody({ extension_field: 1 })).success, true);
  assert.equal(CartOutputSchema.safeParse(cartBody({ id: undefined })).success, false);
  const error = {
    ucp: { version: "2026-04-08", status: "error" },
    messages: [{ type: "error", content: "x" }],
  };
  assert.equal(ErrorEnvelopeSchema.safeParse(error).success, true);
  assert.equal(
    ErrorEnvelopeSchema.safeParse({ ...error, ucp: { version: "2026-04-08", status: "success" } }).success,
    false,
  );
  assert.equal(ErrorEnvelopeSchema.safeParse({ ...error, messages: [] }).success, false);
});

const cartBody = (extra: Record<string, unknown>) => ({
  ucp: { version: "2026-04-08", status: "success" },
  id: "cart_1",
  line_items: [{ id: "li_1", item: { id: "var_1", title: "Boots", price: 1000 }, quantity: 1, totals: [] }],
  currency: "EUR",
  totals: [{ type: "total", amount: 1000 }],
  ...extra,
});
