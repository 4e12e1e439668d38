import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { deleteProduct } from "@/lib/catalog/admin/delete-product";
import { updateProduct } from "@/lib/catalog/admin/update-product";
import { encodeFeedCursor } from "@/lib/catalog/changes/cursor";
import { listCatalogChanges } from "@/lib/catalog/changes/list-catalog-changes";
import { pruneCatalogChanges } from "@/lib/catalog/changes/prune-catalog-changes";
import { runCatalogImport } from "@/lib/catalog/import/run-catalog-import";
import { startCatalogImport } from "@/lib/catalog/import/start-catalog-import";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { OperationContext } from "@/lib/core/operation";
import type { Store } from "@/lib/generated/prisma/client";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { rest } from "../../helpers/app-client";
import { connectMcpClient, toolMeta } from "../../helpers/mcp-client";
import { assertMcpProtocolError } from "../../helpers/mcp-errors";
import { completeCardOrder, newPlatformSigner, type PlatformSigner } from "../../helpers/paid-order";
import { assertTransportError } from "../../helpers/ucp-schema";
import {
  servePlatformProfile,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../../helpers/webhook-receiver";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// list_catalog_changes (issue #63 item 3, docs/catalog-changes.md): 1,000 products through the real CSV import,
// then a price edit, a title edit, a sale of the last unit and one of many (an order placed and paid by the real
// completion), a restock and a delete. The store's feed, paged from `since` over REST and over MCP, holds every one
// of those changes exactly once, in order, with its kind, fields and values — and nothing of another store. Bad
// cursors and a too-old `since` answer the documented codes and store nothing.

const DAY = 24 * 60 * 60 * 1000;
const PRODUCTS = 1000;

type Change = {
  id: string;
  kind: "created" | "updated" | "deleted";
  resource: "product" | "variant";
  seller: string | null;
  product_id: string;
  variant_id?: string;
  changed_fields?: string[];
  price?: { amount: number; currency: string };
  list_price?: { amount: number; currency: string } | null;
  availability?: { available: boolean; status: string };
  changed_at: string;
};
type FeedBody = { changes: Change[]; pagination: { has_next_page: boolean; cursor: string } };

let receiver: WebhookReceiver;
let closeProfile: () => void;
let profileUrl: string;
let signer: PlatformSigner;
let apiKey: string;
let store: Store;
let other: Store;

before(async () => {
  await prepareTestDatabase();
  receiver = await startWebhookReceiver();
  signer = newPlatformSigner();
  const profile = await servePlatformProfile(receiver.url("/platform"), { signingKeys: [signer.publicJwk] });
  profileUrl = profile.url;
  closeProfile = profile.close;
  store = await seedStore({ name: "Feed Store" });
  other = await seedStore({ name: "Feed Other Store" });
  await seedShippingRates(store, [{ code: "standard", priceMinor: 500 }]);
  apiKey = (await seedPlatformKey(["purchase:complete"])).key;
});
after(async () => {
  closeProfile();
  await receiver.close();
  await closeTestDatabase();
});

const restFeed = async (path: string, body: Record<string, unknown>): Promise<FeedBody> => {
  const res = await rest<FeedBody>("POST", path, { body });
  assert.equal(res.status, 200, res.text);
  return res.body;
};

const mcpFeed = async (endpoint: string, catalog: Record<string, unknown>): Promise<FeedBody> => {
  const client = await connectMcpClient(endpoint);
  try {
    const result = await client.callTool({
      name: "list_catalog_changes",
      arguments: { meta: toolMeta(), catalog },
    });
    assert.ok(!result.isError, JSON.stringify(result));
    return result.structuredContent as FeedBody;
  } finally {
    await client.close();
  }
};

/** Every change from `since` to the end, page by page; returns them and the last cursor. */
const readAll = async (
  call: (body: Record<string, unknown>) => Promise<FeedBody>,
  since: string,
  limit: number,
): Promise<{ changes: Change[]; cursor: string; pages: number }> => {
  const changes: Change[] = [];
  let body: Record<string, unknown> = { since, pagination: { limit } };
  for (let pages = 1; ; pages++) {
    const page = await call(body);
    changes.push(...page.changes);
    assert.ok(page.pagination.cursor, "every page has a cursor");
    if (!page.pagination.has_next_page) return { changes, cursor: page.pagination.cursor, pages };
    body = { pagination: { limit, cursor: page.pagination.cursor } };
  }
};

/** This file's stores' changes (on PostgreSQL the other test files write products in the same database at once). */
const changeCount = async (): Promise<number> =>
  (await getDb()).catalogChange.count({ where: { storeId: { in: [store.id, other.id] } } });

describe("list_catalog_changes", () => {
  let since: string;
  let expected: [string, string, string, string[] | undefined][];
  let p: { id: string; variantId: string }[];
  let otherProductId: string;

  test("a 1,000-product import, edits, an order, a restock and a delete: each change once, in order, on REST and MCP", async () => {
    // (not earlier: the feed began at this database's migration, which may be moments old)
    since = new Date().toISOString();
    otherProductId = (await seedProduct(other, { title: "Not in this feed" })).id;
    const csv = [
      "handle,title,variant_title,price,inventory",
      ...Array.from(
        { length: PRODUCTS },
        (_, i) =>
          `feed-${String(i).padStart(4, "0")},Feed Item ${i},Default,${(10 + i / 100).toFixed(2)},${i === 0 ? 1 : 5}`,
      ),
    ].join("\n");
    const job = await startCatalogImport(store, { fileName: "feed.csv", format: "csv", text: csv });
    await runCatalogImport(job.id);
    const db = await getDb();
    const imported = await db.product.findMany({
      where: { storeId: store.id },
      include: { variants: true },
      orderBy: { handle: "asc" },
    });
    assert.equal(imported.length, PRODUCTS);
    p = imported.map((x) => ({ id: x.id, variantId: x.variants[0]!.id }));

    // a price edit (the variant changes; the product's fields do not), then a title edit (only the product)
    await updateProduct(store, {
      productId: p[2]!.id,
      title: "Feed Item 2",
      variants: [{ id: p[2]!.variantId, title: "Default", price: "99.99", inventory: 5 }],
    });
    await updateProduct(store, {
      productId: p[3]!.id,
      title: "Feed Item 3 renamed",
      variants: [{ id: p[3]!.variantId, title: "Default", price: "10.03", inventory: 5 }],
    });
    // a paid order: the last unit of item 0 (availability crosses to false) and one of item 1's five (no change)
    await completeCardOrder(store, {
      apiKey,
      profileUrl,
      signer,
      lines: [
        { variantId: p[0]!.variantId, quantity: 1 },
        { variantId: p[1]!.variantId, quantity: 1 },
      ],
    });
    const sold = await db.variant.findMany({
      where: { id: { in: [p[0]!.variantId, p[1]!.variantId] } },
      orderBy: { handle: "asc" },
    });
    assert.deepEqual(
      sold.map((v) => v.inventory),
      [0, 4],
    );
    // a restock written straight to the row (as a cancellation's or any other path's): back in stock
    await db.variant.update({ where: { id: p[0]!.variantId }, data: { inventory: 3 } });
    await deleteProduct(store, { productId: p[4]!.id });

    expected = [
      ...p.flatMap((x): [string, string, string, string[] | undefined][] => [
        ["created", "product", x.id, undefined],
        ["created", "variant", x.variantId, undefined],
      ]),
      ["updated", "variant", p[2]!.variantId, ["price"]],
      ["updated", "product", p[3]!.id, ["title"]],
      ["updated", "variant", p[0]!.variantId, ["availability"]],
      ["updated", "variant", p[0]!.variantId, ["availability"]],
      ["deleted", "product", p[4]!.id, undefined],
    ];
    const shape = (c: Change) => [c.kind, c.resource, c.variant_id ?? c.product_id, c.changed_fields];

    // store REST, pages of 500 (more than one page per kind of change)
    const viaRest = await readAll((b) => restFeed(`/s/${store.slug}/catalog/changes`, b), since, 500);
    assert.deepEqual(viaRest.changes.map(shape), expected);
    assert.equal(new Set(viaRest.changes.map((c) => c.id)).size, viaRest.changes.length, "each change once");
    assert.ok(viaRest.pages >= 5);
    assert.ok(viaRest.changes.every((c) => c.seller === store.slug));
    // values: minor units with the currency, availability after the change
    const byShape = (kind: string, id: string) =>
      viaRest.changes.filter((c) => c.kind === kind && (c.variant_id ?? c.product_id) === id);
    assert.deepEqual(byShape("created", p[7]!.variantId)[0]?.price, { amount: 1007, currency: "USD" });
    assert.deepEqual(byShape("updated", p[2]!.variantId)[0]?.price, { amount: 9999, currency: "USD" });
    assert.deepEqual(
      byShape("updated", p[0]!.variantId).map((c) => c.availability?.available),
      [false, true],
    );
    assert.equal(byShape("deleted", p[4]!.id)[0]?.price, undefined);

    // the next poll from the last cursor: nothing new
    const quiet = await restFeed(`/s/${store.slug}/catalog/changes`, {
      pagination: { cursor: viaRest.cursor },
    });
    assert.deepEqual([quiet.changes.length, quiet.pagination.has_next_page], [0, false]);

    // store MCP: the same changes, the same order
    const viaMcp = await readAll((b) => mcpFeed(`/s/${store.slug}/mcp`, b), since, 1000);
    assert.deepEqual(
      viaMcp.changes.map((c) => c.id),
      viaRest.changes.map((c) => c.id),
    );

    // global REST and MCP: this store's changes in the same order, and the other store's too
    for (const call of [
      (b: Record<string, unknown>) => restFeed("/catalog/changes", b),
      (b: Record<string, unknown>) => mcpFeed("/mcp", b),
    ]) {
      const global = await readAll(call, since, 1000);
      assert.deepEqual(
        global.changes.filter((c) => c.seller === store.slug).map((c) => c.id),
        viaRest.changes.map((c) => c.id),
      );
      assert.ok(global.changes.some((c) => c.product_id === otherProductId && c.seller === other.slug));
    }
    assert.ok(!viaRest.changes.some((c) => c.product_id === otherProductId), "no other store's change");
  });

  test("new changes after the last cursor come next, then nothing", async () => {
    const first = await restFeed(`/s/${store.slug}/catalog/changes`, { since, pagination: { limit: 1000 } });
    let cursor = first.pagination.cursor;
    for (;;) {
      const page = await restFeed(`/s/${store.slug}/catalog/changes`, {
        pagination: { cursor, limit: 1000 },
      });
      cursor = page.pagination.cursor;
      if (!page.pagination.has_next_page) break;
    }
    await updateProduct(store, {
      productId: p[5]!.id,
      title: "Feed Item 5",
      variants: [{ id: p[5]!.variantId, title: "Default", price: "10.05", listPrice: "12", inventory: 0 }],
    });
    const next = await restFeed(`/s/${store.slug}/catalog/changes`, { pagination: { cursor } });
    assert.deepEqual(
      next.changes.map((c) => [
        c.kind,
        c.variant_id,
        c.changed_fields,
        c.list_price,
        c.availability?.available,
      ]),
      [
        [
          "updated",
          p[5]!.variantId,
          ["list_price", "availability"],
          { amount: 1200, currency: "USD" },
          false,
        ],
      ],
    );
  });

  test("bad cursors and a too-old since: documented codes on REST and MCP, nothing stored", async () => {
    const rows = await changeCount();
    const storePath = `/s/${store.slug}/catalog/changes`;
    const good = (await restFeed(storePath, { since })).pagination.cursor;
    const globalCursor = (await restFeed("/catalog/changes", { since })).pagination.cursor;
    const [payload, signature] = good.split(".") as [string, string];
    const forgedBody = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, "base64url").toString()), i: "0" }),
    ).toString("base64url");
    const expired = await encodeFeedCursor(store.id, { xid: "1", id: "0" }, new Date(Date.now() - 8 * DAY));
    const search = await rest<{ pagination: { cursor: string } }>("POST", `/s/${store.slug}/catalog/search`, {
      body: { query: "feed", pagination: { limit: 1 } },
    });
    const cases: [string, string, Record<string, unknown>, number, string, string][] = [
      [
        "forged signature",
        storePath,
        { pagination: { cursor: `${payload}.${signature.slice(1)}A` } },
        400,
        "invalid_request",
        "$.pagination.cursor",
      ],
      [
        "altered position",
        storePath,
        { pagination: { cursor: `${forgedBody}.${signature}` } },
        400,
        "invalid_request",
        "$.pagination.cursor",
      ],
      [
        "another store's cursor",
        `/s/${other.slug}/catalog/changes`,
        { pagination: { cursor: good } },
        400,
        "invalid_request",
        "$.pagination.cursor",
      ],
      [
        "the global feed's cursor on a store",
        storePath,
        { pagination: { cursor: globalCursor } },
        400,
        "invalid_request",
        "$.pagination.cursor",
      ],
      [
        "a store's cursor on the global feed",
        "/catalog/changes",
        { pagination: { cursor: good } },
        400,
        "invalid_request",
        "$.pagination.cursor",
      ],
      [
        "a search cursor",
        storePath,
        { pagination: { cursor: search.body.pagination.cursor } },
        400,
        "invalid_request",
        "$.pagination.cursor",
      ],
      [
        "an expired cursor",
        storePath,
        { pagination: { cursor: expired } },
        410,
        "resync_required",
        "$.pagination.cursor",
      ],
      [
        "since 8 days ago",
        storePath,
        { since: new Date(Date.now() - 8 * DAY).toISOString() },
        410,
        "resync_required",
        "$.since",
      ],
      [
        "since 8 days ago, global",
        "/catalog/changes",
        { since: new Date(Date.now() - 8 * DAY).toISOString() },
        410,
        "resync_required",
        "$.since",
      ],
      ["neither since nor cursor", storePath, {}, 400, "invalid_request", "$.since"],
      [
        "both since and cursor",
        storePath,
        { since, pagination: { cursor: good } },
        400,
        "invalid_request",
        "$",
      ],
      ["since not a time", storePath, { since: "yesterday" }, 400, "invalid_request", "$.since"],
      [
        "since in the future",
        storePath,
        { since: new Date(Date.now() + DAY).toISOString() },
        400,
        "invalid_request",
        "$.since",
      ],
      [
        "limit over 1000",
        storePath,
        { since, pagination: { limit: 1001 } },
        400,
        "invalid_request",
        "$.pagination.limit",
      ],
    ];
    for (const [label, path, body, status, code, at] of cases) {
      const res = await rest<{ code: string; messages: { path?: string }[] }>("POST", path, { body });
      assert.equal(res.status, status, `${label}: ${res.text}`);
      assert.equal(res.body.code, code, label);
      assert.equal(res.body.messages[0]?.path, at, label);
      assertTransportError(res.body);
    }
    // the same answers on MCP: JSON-RPC errors carrying the code and path
    const client = await connectMcpClient(`/s/${store.slug}/mcp`);
    try {
      const call = (catalog: Record<string, unknown>) =>
        client.callTool({ name: "list_catalog_changes", arguments: { meta: toolMeta(), catalog } });
      await assertMcpProtocolError(call({ pagination: { cursor: `${payload}.${signature.slice(1)}A` } }), {
        rpcCode: -32602,
        code: "invalid_request",
        path: "$.pagination.cursor",
      });
      await assertMcpProtocolError(call({ pagination: { cursor: globalCursor } }), {
        rpcCode: -32602,
        code: "invalid_request",
        path: "$.pagination.cursor",
      });
      await assertMcpProtocolError(call({ pagination: { cursor: expired } }), {
        rpcCode: -32000,
        code: "resync_required",
        path: "$.pagination.cursor",
      });
      await assertMcpProtocolError(call({ since: new Date(Date.now() - 8 * DAY).toISOString() }), {
        rpcCode: -32000,
        code: "resync_required",
        path: "$.since",
      });
    } finally {
      await client.close();
    }
    assert.equal(await changeCount(), rows, "no error stored or removed a change");
  });

  test("a cursor mid-way through an old backlog is dated by its position: 7 days after that, resync_required", async () => {
    const db = await getDb();
    const backlog = await seedStore({ name: "Feed Backlog Store" });
    const [state] = await db.$queryRawUnsafe<{ started: Date }[]>(
      `SELECT changes_started_at AS started FROM catalog_search_state WHERE id = 1`,
    );
    // the feed "began" 10 days ago, and this store has three changes from 6.5 days ago
    await db.$executeRawUnsafe(
      `UPDATE catalog_search_state SET changes_started_at = now() - interval '10 days' WHERE id = 1`,
    );
    try {
      for (let i = 0; i < 3; i++) {
        await db.$executeRawUnsafe(
          `INSERT INTO catalog_changes (store_id, product_id, kind, created_at)
           VALUES ($1, $2, 'created', now() - interval '6 days 12 hours')`,
          backlog.id,
          `prod_backlog_${i}`,
        );
      }
      const ctx = (now: Date) =>
        ({ store: backlog, now, ucpVersion: "2026-04-08" }) as unknown as OperationContext;
      const first = (await listCatalogChanges.run(ctx(new Date()), {
        since: new Date(Date.now() - 6.9 * DAY).toISOString(),
        pagination: { limit: 1 },
      })) as { body: FeedBody };
      assert.deepEqual(
        [first.body.changes.map((c) => c.product_id), first.body.pagination.has_next_page],
        [["prod_backlog_0"], true],
      );
      // a day later the rest of the backlog is 7.5 days old: the cursor says so rather than reading a pruned gap
      await assert.rejects(
        listCatalogChanges.run(ctx(new Date(Date.now() + DAY)), {
          pagination: { cursor: first.body.pagination.cursor },
        }),
        (error: unknown) => error instanceof AppError && error.code === "resync_required",
      );
      // read to its end now, the last cursor (at the frontier) is still good a day later
      const rest = (await listCatalogChanges.run(ctx(new Date()), {
        pagination: { cursor: first.body.pagination.cursor },
      })) as { body: FeedBody };
      assert.equal(rest.body.pagination.has_next_page, false);
      const later = (await listCatalogChanges.run(ctx(new Date(Date.now() + DAY)), {
        pagination: { cursor: rest.body.pagination.cursor },
      })) as { body: FeedBody };
      assert.deepEqual(later.body.changes, []);
    } finally {
      await db.$executeRawUnsafe(
        `UPDATE catalog_search_state SET changes_started_at = $1::timestamp WHERE id = 1`,
        state!.started,
      );
    }
  });

  test("pruning removes only changes past the window and its day of grace", async () => {
    const db = await getDb();
    const product = await seedProduct(store, { title: "Prune probe" });
    const [row] = await db.$queryRawUnsafe<{ id: string }[]>(
      `INSERT INTO catalog_changes (store_id, product_id, kind, created_at)
       VALUES ($1, $2, 'updated', now() - interval '9 days') RETURNING id::text AS id`,
      store.id,
      product.id,
    );
    const recent = await db.catalogChange.count({ where: { productId: product.id } });
    const pruned = await pruneCatalogChanges(new Date());
    assert.ok(pruned >= 1);
    assert.equal(await db.catalogChange.count({ where: { id: BigInt(row!.id) } }), 0);
    assert.equal(await db.catalogChange.count({ where: { productId: product.id } }), recent - 1);
  });
});
