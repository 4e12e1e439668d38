import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import type { Store } from "@/lib/generated/prisma/client";

import { seedProduct, seedStore } from "../../factories";
import { rest, TEST_BASE_URL } from "../../helpers/app-client";
import { connectMcpClient, toolMeta } from "../../helpers/mcp-client";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// get_product on the global and per-store surfaces, REST and MCP (UCP catalog lookup; seed §2 Product).

type Product = {
  id: string;
  price_range: { min: { amount: number; currency: string }; max: { amount: number } };
  variants: {
    id: string;
    price: { amount: number; currency: string };
    availability: { available: boolean };
  }[];
  selected?: { name: string; label: string }[];
  metadata: { svc_seller: { slug: string; name: string; endpoint: string } };
};
type ProductBody = { product: Product };
const RESPONSE = "shopping/catalog_lookup.json#/$defs/get_product_response";

let store: Store;
let otherStore: Store;
let product: Awaited<ReturnType<typeof seedProduct>>;

before(async () => {
  await prepareTestDatabase();
  store = await seedStore({ name: "Peak Outfitters" });
  otherStore = await seedStore();
  product = await seedProduct(store, {
    title: "Ridge Jacket",
    variants: [
      { priceMinor: 18900, inventory: 3 },
      { priceMinor: 20900, inventory: 0 },
    ],
  });
});
after(closeTestDatabase);

/** get_product through the official MCP SDK client (Streamable HTTP). */
const sdkGetProduct = async (endpoint: string) => {
  const client = await connectMcpClient(endpoint);
  try {
    const result = await client.callTool({
      name: "get_product",
      arguments: { meta: toolMeta(), catalog: { id: product.id } },
    });
    assert.ok(!result.isError, JSON.stringify(result));
    return { status: 200, body: result.structuredContent as ProductBody };
  } finally {
    await client.close();
  }
};

const surfaces = [
  ["global REST", () => rest<ProductBody>("POST", "/catalog/product", { body: { id: product.id } })],
  [
    "store REST",
    () => rest<ProductBody>("POST", `/s/${store.slug}/catalog/product`, { body: { id: product.id } }),
  ],
  ["global MCP", () => sdkGetProduct("/mcp")],
  ["store MCP", () => sdkGetProduct(`/s/${store.slug}/mcp`)],
] as const;

describe("get_product", () => {
  for (const [name, call] of surfaces) {
    test(`${name}: full detail, Price objects in minor units, seller metadata, schema-valid`, async () => {
      const res = await call();
      assert.equal(res.status, 200);
      assertUcpSchema(RESPONSE, res.body);
      const p = res.body.product;
      assert.equal(p.id, product.id);
      assert.deepEqual(
        p.variants.map((v) => [v.price.amount, v.price.currency, v.availability.available]),
        [
          [18900, "USD", true],
          [20900, "USD", false],
        ],
      );
      assert.equal(p.price_range.min.amount, 18900);
      assert.equal(p.price_range.max.amount, 20900);
      assert.deepEqual(p.metadata.svc_seller, {
        slug: store.slug,
        name: "Peak Outfitters",
        endpoint: `${TEST_BASE_URL}/s/${store.slug}`,
      });
    });
  }

  test("a variant id puts that variant first and mirrors its options in selected", async () => {
    const variant = product.variants[1]!;
    const res = await rest<ProductBody>("POST", "/catalog/product", { body: { id: variant.id } });
    assertUcpSchema(RESPONSE, res.body);
    assert.equal(res.body.product.variants[0]?.id, variant.id);
    assert.deepEqual(res.body.product.selected, [{ name: "Size", label: "S1" }]);
  });

  test("the global REST catalog works without envelope headers (anonymous tier)", async () => {
    const res = await rest<ProductBody>("POST", "/catalog/product", {
      headers: { "request-id": "", "ucp-agent": "" },
      body: { id: product.id },
    });
    assert.equal(res.status, 200, res.text);
    assert.ok(res.headers.get("request-id"), "a Request-Id is generated and returned");
  });

  test("but a malformed UCP-Agent on the global REST catalog is still refused", async () => {
    const res = await rest("POST", "/catalog/product", {
      headers: { "ucp-agent": "profile=bad" },
      body: { id: product.id },
    });
    assert.equal(res.status, 400);
  });

  test("unknown id → 200 with the error envelope not_found (UCP catalog)", async () => {
    const res = await rest("POST", "/catalog/product", { body: { id: "prod_nope" } });
    assert.equal(res.status, 200);
    assertUcpSchema("shopping/types/error_response.json", res.body);
    const msg = (res.body as { messages: { code: string; severity: string }[] }).messages[0];
    assert.deepEqual([msg?.code, msg?.severity], ["not_found", "unrecoverable"]);
  });

  test("a per-store surface only sees its own products", async () => {
    const res = await rest("POST", `/s/${otherStore.slug}/catalog/product`, { body: { id: product.id } });
    assert.equal((res.body as { messages: { code: string }[] }).messages[0]?.code, "not_found");
  });

  test("a missing id → 400 invalid_request with the path", async () => {
    const res = await rest("POST", "/catalog/product", { body: {} });
    assert.equal(res.status, 400);
    assert.equal((res.body as { messages: { path: string }[] }).messages[0]?.path, "$.id");
  });
});
