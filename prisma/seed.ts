// `npm run db:seed`: fills the configured database (PGlite by default, PostgreSQL when DATABASE_URL is set) with
// the demo stores and a deterministic catalog. Refuses to touch a non-empty database unless --reset is given.

import { openAdapter } from "@/lib/config/database";
import { PrismaClient } from "@/lib/generated/prisma/client";

import { formatInt, parseCount, readCli } from "./seed/cli-count";
import {
  DEFAULT_CHUNK_SIZE,
  DEFAULT_PRODUCT_COUNT,
  INSERT_STRATEGIES,
  isDatabaseEmpty,
  isInsertStrategy,
  resetDemoData,
  seedDatabase,
} from "./seed/index";

const USAGE = `Usage: npm run db:seed -- [--products N] [--reset] [--strategy ${INSERT_STRATEGIES.join("|")}] [--chunk-size N]

  --products N     total products across the demo stores (default ${DEFAULT_PRODUCT_COUNT.toLocaleString("en-US")})
  --reset          delete the demo stores (and their catalogs, carts, checkouts, orders) first
  --strategy S     bulk insert method (default ${INSERT_STRATEGIES[0]})
  --chunk-size N   products per insert transaction (default ${DEFAULT_CHUNK_SIZE})`;

const main = async (): Promise<void> => {
  const cli = readCli(
    {
      products: { type: "string" },
      reset: { type: "boolean", default: false },
      strategy: { type: "string" },
      "chunk-size": { type: "string" },
    },
    USAGE,
  );
  if (!cli) return;
  const { values, fail } = cli;
  const products = parseCount("--products", values.products, DEFAULT_PRODUCT_COUNT, { min: 0, fail });
  const chunkSize = parseCount("--chunk-size", values["chunk-size"], DEFAULT_CHUNK_SIZE, { min: 1, fail });
  const strategy = values.strategy ?? INSERT_STRATEGIES[0];
  if (!isInsertStrategy(strategy)) return fail(`--strategy must be one of ${INSERT_STRATEGIES.join(", ")}`);

  const handle = await openAdapter();
  const client = new PrismaClient({ adapter: handle.factory });
  try {
    console.log(`Database: ${handle.describe}`);
    if (values.reset) {
      // Only demo stores go; other stores may stay, since the demo slugs are free again either way.
      const removed = await resetDemoData(client);
      console.log(
        removed > 0
          ? `Reset: removed ${removed} demo store(s) and their data`
          : "Reset: no demo stores found",
      );
    } else if (!(await isDatabaseEmpty(client))) {
      // Exit 0: "already seeded" is the normal state of a second run, not an error.
      const stores = await client.store.count();
      console.log(
        `The database already holds ${stores} store(s); nothing seeded. Run with --reset to replace the demo data.`,
      );
      return;
    }
    const result = await seedDatabase(client, {
      products,
      strategy,
      chunkSize,
      progress: true,
      log: (line) => console.log(line),
    });
    const seconds = result.ms / 1000;
    const rate = seconds > 0 ? Math.round(result.products / seconds) : result.products;
    console.log(
      `Seeded ${result.stores} stores, ${formatInt(result.products)} products, ${formatInt(result.variants)} variants ` +
        `in ${seconds.toFixed(1)} s (${formatInt(rate)} products/s, ${strategy})`,
    );
  } finally {
    await client.$disconnect();
    await handle.close();
  }
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
