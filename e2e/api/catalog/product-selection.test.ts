import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import type { Store } from "@/lib/generated/prisma/client";

import { seedStore } from "../../factories";
import { rest } from "../../helpers/app-client";
import { connectMcpClient, toolMeta } from "../../helpers/mcp-client";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// get_product option selection (UCP catalog/lookup.md "Resolution Behavior", "Option Selection"):
// `product.selected` is the effective selection of a product with options — the featured variant's by default,
// the request's `selected` relaxed per `preferences`, or a requested variant's own — and option values carry
// availability relative to it. REST and MCP.

type Value = { label: string; available: boolean; exists: boolean };
type Body = {
  product: {
    selected?: { name: string; label: string }[];
    variants: { id: string }[];
    options: { name: string; values: Value[] }[];
  };
  messages?: { code: string; path?: string }[];
};
const RESPONSE = "shopping/catalog_lookup.json#/$defs/get_product_response";

let store: Store;
let productId: string;
const variant: Record<string, string> = {};

// Color × Size with holes: Red/S (out of stock), Red/M, Blue/S, Blue/L; no Red/L, no Blue/M.
const GRID = [
  ["Red", "S", 0],
  ["Red", "M", 5],
  ["Blue", "S", 2],
  ["Blue", "L", 1],
] as const;

before(async () => {
  await prepareTestDatabase();
  store = await seedStore();
  const db = await getDb();
  productId = newId("product");
  await db.product.create({
    data: {
      id: productId,
      storeId: store.id,
      handle: `trail-tee-${productId}`,
      title: "Trail Tee",
      options: [
        { name: "Color", values: ["Red", "Blue"] },
        { name: "Size", values: ["S", "M", "L"] },
      ],
      variants: {
        create: GRID.map(([color, size, inventory], position) => {
          const id = newId("variant");
          variant[`${color}/${size}`] = id;
          return {
            id,
            storeId: store.id,
            handle: `trail-tee-${productId}-${position}`,
            title: `${color} / ${size}`,
            priceMinor: 2000 + position * 100,
            currency: store.currency,
            inventory,
            options: [
              { name: "Color", label: color },
              { name: "Size", label: size },
            ],
            position,
          };
        }),
      },
    },
  });
});
after(closeTestDatabase);

const getProduct = async (body: Record<string, unknown>) => {
  const res = await rest<Body>("POST", `/s/${store.slug}/catalog/product`, { body });
  assert.equal(res.status, 200, res.text);
  assertUcpSchema(RESPONSE, res.body);
  return res.body.product;
};
const valueOf = (p: Body["product"], name: string, label: string) =>
  p.options.find((o) => o.name === name)?.values.find((v) => v.label === label);
const sel = (color?: string, size?: string) => [
  ...(color ? [{ name: "Color", label: color }] : []),
  ...(size ? [{ name: "Size", label: size }] : []),
];

describe("get_product option selection", () => {
  test("by product id: selected is the featured (first available) variant's options; availability is relative", async () => {
    const p = await getProduct({ id: productId });
    assert.deepEqual(p.selected, sel("Red", "M"));
    assert.equal(p.variants[0]?.id, variant["Red/M"]);
    assert.equal(p.variants.length, 4, "every variant is still listed, featured first");
    assert.deepEqual(valueOf(p, "Size", "S"), { label: "S", available: false, exists: true });
    assert.deepEqual(valueOf(p, "Size", "L"), { label: "L", available: false, exists: false });
    assert.deepEqual(valueOf(p, "Color", "Blue"), { label: "Blue", available: false, exists: false });
  });

  test("a request selected narrows the variants and is echoed when every choice resolves", async () => {
    const p = await getProduct({ id: productId, selected: sel("Blue") });
    assert.deepEqual(p.selected, sel("Blue"));
    assert.deepEqual(p.variants.map((v) => v.id).sort(), [variant["Blue/S"], variant["Blue/L"]].sort());
    assert.deepEqual(valueOf(p, "Size", "M"), { label: "M", available: false, exists: false });
    assert.deepEqual(valueOf(p, "Size", "L"), { label: "L", available: true, exists: true });
  });

  test("no variant for the whole selection: relaxed from the end of preferences", async () => {
    const keepColor = await getProduct({
      id: productId,
      selected: sel("Red", "L"),
      preferences: ["Color", "Size"],
    });
    assert.deepEqual(keepColor.selected, sel("Red"));
    assert.equal(keepColor.variants[0]?.id, variant["Red/M"], "an available variant is featured");
    const keepSize = await getProduct({
      id: productId,
      selected: sel("Red", "L"),
      preferences: ["Size", "Color"],
    });
    assert.deepEqual(keepSize.selected, sel(undefined, "L"));
    assert.deepEqual(
      keepSize.variants.map((v) => v.id),
      [variant["Blue/L"]],
    );
  });

  test("by variant id: the variant's options win over a request selected", async () => {
    const p = await getProduct({ id: variant["Blue/S"], selected: sel("Red") });
    assert.deepEqual(p.selected, sel("Blue", "S"));
    assert.deepEqual(
      p.variants.map((v) => v.id),
      [variant["Blue/S"]],
    );
  });

  test("on MCP the same selection answers the same", async () => {
    const client = await connectMcpClient(`/s/${store.slug}/mcp`);
    try {
      const result = await client.callTool({
        name: "get_product",
        arguments: { meta: toolMeta(), catalog: { id: productId, selected: sel("Blue") } },
      });
      const body = result.structuredContent as Body;
      assert.deepEqual(body.product.selected, sel("Blue"));
      assert.equal(body.product.variants.length, 2);
    } finally {
      await client.close();
    }
  });

  test("an option named twice in selected → 400 invalid_request at $.selected", async () => {
    const res = await rest<Body>("POST", `/s/${store.slug}/catalog/product`, {
      body: { id: productId, selected: [...sel("Red"), ...sel("Blue")] },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.messages?.[0]?.path, "$.selected");
  });
});
