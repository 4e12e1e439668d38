// `npm run bench:feed-import`: what the catalog change feed's triggers (docs/catalog-changes.md) cost the real CSV
// import path (startCatalogImport + runCatalogImport: each product with its variants in its own transaction). On
// an in-memory PGlite (or DATABASE_URL's PostgreSQL, which must be local: the test-db guard), imports N products of
// two variants each into a new store four times — feed on, off, on, off (its six triggers disabled between) — and
// prints each run's time, products/s and the change rows written. Figures are printed, never asserted.
// Usage: npm run bench:feed-import [-- --products N]   (default 3,000)
import { parseArgs } from "node:util";

import { runCatalogImport } from "@/lib/catalog/import/run-catalog-import";
import { startCatalogImport } from "@/lib/catalog/import/start-catalog-import";
import { getDb } from "@/lib/config/db";

import { seedStore } from "../e2e/factories";
import { closeTestDatabase, prepareTestDatabase } from "../e2e/support/test-db";

const { values } = parseArgs({ options: { products: { type: "string", default: "3000" } } });
const products = Number(values.products);
if (!Number.isInteger(products) || products < 1) throw new Error("--products takes a positive integer");

const TRIGGERS = ["products", "variants"].flatMap((table) =>
  ["insert", "update", "delete"].map((event) => [table, `catalog_changes_${table}_${event}`] as const),
);

const setFeed = async (on: boolean): Promise<void> => {
  const db = await getDb();
  for (const [table, name] of TRIGGERS) {
    await db.$executeRawUnsafe(`ALTER TABLE "${table}" ${on ? "ENABLE" : "DISABLE"} TRIGGER ${name}`);
  }
};

const csv = [
  "handle,title,variant_title,price,inventory",
  ...Array.from({ length: products }, (_, i) => [
    `p-${i},Item ${i},Small,${10 + (i % 90)},3`,
    `p-${i},,Large,${11 + (i % 90)},0`,
  ]).flat(),
].join("\n");

process.env.PGLITE_DIR ??= "memory://";
await prepareTestDatabase();
try {
  for (const on of [true, false, true, false]) {
    await setFeed(on);
    const store = await seedStore({ name: `Feed import ${on ? "on" : "off"}` });
    const job = await startCatalogImport(store, { fileName: "bench.csv", format: "csv", text: csv });
    const t0 = performance.now();
    await runCatalogImport(job.id);
    const seconds = (performance.now() - t0) / 1000;
    const rows = await (await getDb()).catalogChange.count({ where: { storeId: store.id } });
    console.log(
      `feed ${on ? "on " : "off"}: ${products} products (${2 * products} variants) imported in ${seconds.toFixed(1)} s, ${(products / seconds).toFixed(0)} products/s; ${rows} change rows`,
    );
  }
} finally {
  await setFeed(true);
  await closeTestDatabase();
}
