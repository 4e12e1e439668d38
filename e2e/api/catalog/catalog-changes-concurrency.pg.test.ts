import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import pg from "pg";

import type { Store } from "@/lib/generated/prisma/client";

import { seedProduct, seedStore } from "../../factories";
import { rest } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The change feed never skips a change whose transaction commits after a later one's (PostgreSQL only: PGlite has
// one connection, so nothing is ever in flight beside a reader). Two writers on their own connections; the
// reader pages the store's feed while the first is still open, then again after it commits. With paging by change
// id alone, the reader would take the second writer's change (the larger id), move its cursor past it, and never
// see the first writer's (the smaller id, committed later): both cases below would lose a change. A `.pg.test.ts`
// file: the integration runner runs it on PostgreSQL only.

const databaseUrl = (): string => {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("this test needs PostgreSQL (DATABASE_URL): run it with --db=postgres");
  return url;
};

type FeedBody = {
  changes: { id: string; variant_id?: string; changed_fields?: string[] }[];
  pagination: { has_next_page: boolean; cursor: string };
};

let store: Store;
let variants: string[];
const clients: pg.Client[] = [];

before(async () => {
  await prepareTestDatabase();
  store = await seedStore({ name: "Feed Concurrency Store" });
  variants = [];
  for (let i = 0; i < 4; i++) variants.push((await seedProduct(store)).variants[0]!.id);
  for (let i = 0; i < 2; i++) {
    const client = new pg.Client({ connectionString: databaseUrl() });
    await client.connect();
    clients.push(client);
  }
});
after(async () => {
  for (const client of clients) await client.end();
  await closeTestDatabase();
});

const page = async (body: Record<string, unknown>): Promise<FeedBody> => {
  const res = await rest<FeedBody>("POST", `/s/${store.slug}/catalog/changes`, { body });
  assert.equal(res.status, 200, res.text);
  return res.body;
};

/** The store's feed from `cursor` to its end (every page). */
const drain = async (cursor: string): Promise<{ changes: FeedBody["changes"]; cursor: string }> => {
  const changes: FeedBody["changes"] = [];
  for (;;) {
    const body = await page({ pagination: { cursor, limit: 1 } });
    changes.push(...body.changes);
    cursor = body.pagination.cursor;
    if (!body.pagination.has_next_page) return { changes, cursor };
  }
};

/** Reads on until `count` changes arrived (other test files' transactions on this server may hold the frontier). */
const drainUntil = async (cursor: string, count: number) => {
  const changes: FeedBody["changes"] = [];
  for (let i = 0; i < 100 && changes.length < count; i++) {
    const next = await drain(cursor);
    changes.push(...next.changes);
    cursor = next.cursor;
    if (changes.length < count) await new Promise((r) => setTimeout(r, 100));
  }
  return { changes, cursor };
};

const setPrice = (client: pg.Client, variantId: string, price: number) =>
  client.query(`UPDATE variants SET price_minor = $2 WHERE id = $1`, [variantId, price]);

const startCursor = async (): Promise<string> => {
  // (the feed on this harness began at its migration, moments ago: a since before it answers resync_required)
  const first = await page({ since: new Date().toISOString() });
  return (await drain(first.pagination.cursor)).cursor;
};

test("a change whose transaction commits after a later change's is read, not skipped", async () => {
  const [a, b] = clients as [pg.Client, pg.Client];
  let cursor = await startCursor();
  // A writes first (smaller change id) but stays open; B writes after it and commits
  await a.query("BEGIN");
  await setPrice(a, variants[0]!, 1111);
  await b.query("BEGIN");
  await setPrice(b, variants[1]!, 2222);
  await b.query("COMMIT");
  const whileOpen = await drain(cursor);
  cursor = whileOpen.cursor;
  // B's change waits behind A (the oldest running transaction): reading it now would put the cursor past A's
  assert.deepEqual(whileOpen.changes, []);
  await a.query("COMMIT");
  const afterCommit = await drainUntil(cursor, 2);
  assert.deepEqual(
    afterCommit.changes.map((c) => [c.variant_id, c.changed_fields]),
    [
      [variants[0], ["price"]],
      [variants[1], ["price"]],
    ],
  );
  // and nothing again
  assert.deepEqual((await drain(afterCommit.cursor)).changes, []);
});

test("a transaction that began before a committed one but wrote its change later is read too", async () => {
  const [a, b] = clients as [pg.Client, pg.Client];
  let cursor = await startCursor();
  // A takes its transaction id first, B writes (smaller change id) and commits, A writes (larger id) and commits
  // last: ordered by change id A's change would come after B's; by transaction A's comes first — either way it
  // must not be skipped by a reader that read in between
  await a.query("BEGIN");
  await a.query("SELECT pg_current_xact_id()");
  await b.query("BEGIN");
  await setPrice(b, variants[2]!, 3333);
  await b.query("COMMIT");
  const between = await drain(cursor);
  cursor = between.cursor;
  await setPrice(a, variants[3]!, 4444);
  await a.query("COMMIT");
  const later = await drainUntil(cursor, 2 - between.changes.length);
  const all = [...between.changes, ...later.changes];
  assert.deepEqual(all.map((c) => c.variant_id).sort(), [variants[2], variants[3]].sort());
  assert.equal(new Set(all.map((c) => c.id)).size, 2, "each change once");
});
