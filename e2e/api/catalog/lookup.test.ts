import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";

import type { Store } from "@/lib/generated/prisma/client";

import { seedCatalogProduct, seedStore } from "../../factories";
import { rest } from "../../helpers/app-client";
import { connectMcpClient, toolMeta } from "../../helpers/mcp-client";
import { assertMcpProtocolError } from "../../helpers/mcp-errors";
import { assertUcpSchema } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// lookup_catalog (UCP catalog lookup) on global and per-store REST and MCP (official SDK client): ids, handles,
// SKUs and barcodes in one batch; each variant carries inputs[] {id, match}; unknown ids are info messages; over
// the batch limit → 400 request_too_large (REST) / -32602 (MCP).

type Variant = { id: string; inputs: { id: string; match: string }[] };
type LookupBody = {
  products: { id: string; handle: string; variants: Variant[] }[];
  messages?: { type: string; code: string }[];
};
const RESPONSE = "shopping/catalog_lookup.json#/$defs/lookup_response";

let store: Store;
let other: Store;
let boots: Awaited<ReturnType<typeof seedCatalogProduct>>;
let mug: Awaited<ReturnType<typeof seedCatalogProduct>>;
let foreign: Awaited<ReturnType<typeof seedCatalogProduct>>;
const tag = randomBytes(3).toString("hex");

before(async () => {
  await prepareTestDatabase();
  store = await seedStore();
  other = await seedStore();
  boots = await seedCatalogProduct(store, {
    title: "Lookup Boot",
    variants: [
      { title: "Size 8", priceMinor: 9900, inventory: 0, sku: `SKU-8-${tag}`, barcode: `4006381${tag}1` },
      { title: "Size 9", priceMinor: 9900, inventory: 3, sku: `SKU-9-${tag}` },
    ],
  });
  mug = await seedCatalogProduct(store, {
    title: "Lookup Mug",
    variants: [{ priceMinor: 1500, sku: `MUG-${tag}` }],
  });
  foreign = await seedCatalogProduct(other, { title: "Foreign Item" });
});
after(closeTestDatabase);

const sdkLookup = async (endpoint: string, ids: string[]) => {
  const client = await connectMcpClient(endpoint);
  try {
    const result = await client.callTool({
      name: "lookup_catalog",
      arguments: { meta: toolMeta(), catalog: { ids } },
    });
    assert.ok(!result.isError, JSON.stringify(result));
    return result.structuredContent as LookupBody;
  } finally {
    await client.close();
  }
};
const restLookup = async (path: string, ids: string[]) => {
  const res = await rest<LookupBody>("POST", path, { body: { ids } });
  assert.equal(res.status, 200, res.text);
  return res.body;
};

const surfaces: [string, (ids: string[]) => Promise<LookupBody>][] = [
  ["global REST", (ids) => restLookup("/catalog/lookup", ids)],
  ["store REST", (ids) => restLookup(`/s/${store.slug}/catalog/lookup`, ids)],
  ["global MCP", (ids) => sdkLookup("/mcp", ids)],
  ["store MCP", (ids) => sdkLookup(`/s/${store.slug}/mcp`, ids)],
];

describe("lookup_catalog", () => {
  for (const [name, call] of surfaces) {
    test(`${name}: product id, variant id, handle, SKU and barcode in one batch, each product once`, async () => {
      const [size8, size9] = boots.variants;
      const body = await call([
        boots.id,
        size9!.id,
        `SKU-8-${tag}`,
        `4006381${tag}1`,
        mug.handle,
        `MUG-${tag}`,
        boots.id,
        "prod_missing",
      ]);
      assertUcpSchema(RESPONSE, body);
      assert.equal(body.products.length, 2, "deduplicated: each product once");
      const b = body.products.find((p) => p.id === boots.id)!;
      const inputsOf = (id: string) => b.variants.find((v) => v.id === id)?.inputs;
      // the product id features the first in-stock variant (size 9), which the variant id also names exactly
      assert.deepEqual(inputsOf(size9!.id), [
        { id: size9!.id, match: "exact" },
        { id: boots.id, match: "featured" },
      ]);
      assert.deepEqual(inputsOf(size8!.id), [
        { id: `SKU-8-${tag}`, match: "exact" },
        { id: `4006381${tag}1`, match: "exact" },
      ]);
      const m = body.products.find((p) => p.id === mug.id)!;
      assert.deepEqual(m.variants[0]?.inputs, [
        { id: `MUG-${tag}`, match: "exact" },
        { id: mug.handle, match: "featured" },
      ]);
      assert.deepEqual(
        body.messages?.map((x) => [x.type, x.code]),
        [["info", "not_found"]],
      );
    });
  }

  test("a per-store surface does not resolve another store's ids", async () => {
    const body = await restLookup(`/s/${store.slug}/catalog/lookup`, [foreign.id]);
    assert.deepEqual(body.products, []);
    const global = await restLookup("/catalog/lookup", [foreign.id]);
    assert.equal(global.products[0]?.id, foreign.id);
  });

  test("51 distinct ids → REST 400 request_too_large; MCP -32602", async () => {
    const ids = Array.from({ length: 51 }, (_, i) => `prod_${i}`);
    const res = await rest<{ messages: { code: string; path: string }[] }>("POST", "/catalog/lookup", {
      body: { ids },
    });
    assert.equal(res.status, 400);
    assert.deepEqual(
      [res.body.messages[0]?.code, res.body.messages[0]?.path],
      ["request_too_large", "$.ids"],
    );
    const client = await connectMcpClient("/mcp");
    try {
      await assertMcpProtocolError(
        client.callTool({ name: "lookup_catalog", arguments: { meta: toolMeta(), catalog: { ids } } }),
        { rpcCode: -32602, code: "request_too_large", path: "$.ids" },
      );
    } finally {
      await client.close();
    }
  });

  test("50 ids with duplicates is within the limit (deduplicated first)", async () => {
    const ids = [...Array.from({ length: 50 }, (_, i) => `prod_${i}`), "prod_1", "prod_2"];
    const res = await rest("POST", "/catalog/lookup", { body: { ids } });
    assert.equal(res.status, 200, res.text);
  });

  test("bad input → invalid_request with a JSONPath on REST and MCP", async () => {
    for (const [body, path] of [
      [{}, "$.ids"],
      [{ ids: [] }, "$.ids"],
      [{ ids: "prod_1" }, "$.ids"],
      [{ ids: [42] }, "$.ids[0]"],
      [{ ids: ["x".repeat(500)] }, "$.ids[0]"],
    ] as const) {
      const res = await rest<{ messages: { code: string; path: string }[] }>("POST", "/catalog/lookup", {
        body,
      });
      assert.equal(res.status, 400, res.text);
      assert.deepEqual([res.body.messages[0]?.code, res.body.messages[0]?.path], ["invalid_request", path]);
      const client = await connectMcpClient("/mcp");
      try {
        await assertMcpProtocolError(
          client.callTool({ name: "lookup_catalog", arguments: { meta: toolMeta(), catalog: body } }),
          { rpcCode: -32602, code: "invalid_request", path },
        );
      } finally {
        await client.close();
      }
    }
  });
});
