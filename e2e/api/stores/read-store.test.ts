import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { getDb } from "@/lib/config/db";
import { query, statementOf } from "@/lib/config/sql";
import { getStoreOrThrow, readStore, storeJsonOf, storeOfJson } from "@/lib/stores/get-store-or-throw";

import { seedStore } from "../../factories";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// A store read fresh (every call that moves money: lib/stores/get-store-or-throw.ts) is one statement sent without
// Prisma's client; it answers the record Prisma's client reads, every column, on both databases.

before(prepareTestDatabase);
after(closeTestDatabase);

const prismaStore = async (slug: string) => (await getDb()).store.findUnique({ where: { slug } });

test("readStore answers Prisma's record: a bare test store and a live one with every column set", async () => {
  const bare = await seedStore();
  const live = await seedStore({
    mode: "live",
    currency: "EUR",
    taxRateBps: 2100,
    cardEnabled: false,
    cryptoEnabled: true,
    acceptedCoins: ["USDC", "SUI"],
    suiRecipient: `0x${"ab".repeat(32)}`,
  });
  await (
    await getDb()
  ).store.update({
    where: { id: live.id },
    data: {
      name: "Bücher & Böots — 🥾",
      country: "DE",
      cardBrands: ["visa"],
      stripeSecretKey: "sk_live_example",
      stripeWebhookSecret: "whsec_example",
      stripePublishableKey: "pk_live_example",
      suiNetwork: "mainnet",
      webhookUrl: "https://merchant.example/hooks",
    },
  });
  for (const { slug, id } of [bare, live]) {
    const expected = await prismaStore(slug);
    assert.ok(expected);
    assert.deepEqual(await readStore(slug), expected, slug);
    // the same record as a statement that reads it with another row reads it (the completion, with its session)
    const [row] = await query<{ store: unknown }>(
      statementOf(`SELECT ${storeJsonOf("r")} AS store FROM (SELECT CAST($1 AS text) AS store_id) r`, [id]),
    );
    assert.deepEqual(storeOfJson(row?.store), expected, `${slug}, read with another row`);
    assert.deepEqual(
      await getStoreOrThrow(slug),
      expected,
      `${slug}: the fresh read of a call that moves money`,
    );
  }
  assert.equal((await readStore(live.slug))?.mode, "live");
  assert.deepEqual((await readStore(live.slug))?.acceptedCoins, ["USDC", "SUI"]);
});

test("readStore finds nothing for an unknown slug; getStoreOrThrow answers store_not_found", async () => {
  assert.equal(await readStore("no-such-store-here"), null);
  await assert.rejects(getStoreOrThrow("no-such-store-here"), { code: "store_not_found" });
});
