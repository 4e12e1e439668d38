// Set-up step of `npm start` (run as a child with the react-server condition): apply migrations, seed the demo
// data when the database is empty (not in production unless SEED_DEMO=1), and outside production make sure a
// test-mode deployment has a working demo platform key. Production never gets a demo key: a key with
// purchase:complete printed to a server's log is a key anyone reading the logs can spend with.
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

import { demoKeyFile } from "@/lib/config/constants";
import { closeDb, getDbHandle } from "@/lib/config/db";
import { getEnv } from "@/lib/config/env";
import { createApiKey } from "@/lib/credentials/create-api-key";
import { resolvePrincipal } from "@/lib/credentials/resolve-principal";
import { listStores } from "@/lib/stores/list-stores";
import { isDatabaseEmpty, seedDatabase } from "@/prisma/seed/index";

import { applyMigrations } from "./db/migrate-engine";
import { readDemoKey } from "./lib/setup-plan";

const isKeyValid = async (key: string): Promise<boolean> =>
  resolvePrincipal({ apiKey: key, authorization: null }).then(
    () => true,
    () => false,
  );

/** A demo key only for deployments whose stores are all in test mode: never mint keys on a live database. */
const ensureDemoKey = async (): Promise<void> => {
  const stores = await listStores();
  if (stores.length === 0 || stores.some((s) => s.mode === "live")) return;
  const existing = readDemoKey(demoKeyFile());
  if (existing && (await isKeyValid(existing))) return;
  const created = await createApiKey({
    name: "demo",
    permissions: ["purchase:complete", "orders:read", "orders:request"],
  });
  mkdirSync(path.dirname(demoKeyFile()), { recursive: true });
  writeFileSync(demoKeyFile(), JSON.stringify({ id: created.id, key: created.key }, null, 2));
  chmodSync(demoKeyFile(), 0o600);
  // Printed this once, when it is created (a development convenience); later boots name only the file.
  console.log(
    `Created demo platform key ${created.id}: ${created.key}\n  (shown once; kept in ${path.relative(process.cwd(), demoKeyFile())})`,
  );
};

const main = async (): Promise<void> => {
  const { client, handle } = await getDbHandle();
  console.log(`Database: ${handle.describe}`);
  const { applied } = await applyMigrations(handle.factory, { log: (line) => console.log(`  ${line}`) });
  console.log(applied.length ? `Applied ${applied.length} migration(s)` : "Migrations: up to date");
  const env = getEnv();
  const production = env.NODE_ENV === "production";
  if (await isDatabaseEmpty(client)) {
    if (env.SEED_DEMO ? env.SEED_DEMO === "1" : !production) {
      console.log("Empty database: seeding the demo stores and catalog");
      const summary = await seedDatabase(client, { log: (line) => console.log(`  ${line}`) });
      console.log(`Seeded ${summary.stores} stores, ${summary.products} products in ${summary.ms} ms`);
    } else {
      console.log(
        `Empty database: nothing seeded (${production ? "production" : "SEED_DEMO=0"}; SEED_DEMO=1 seeds the demo stores)`,
      );
    }
  }
  if (!production) await ensureDemoKey();
};

main()
  .then(() => closeDb())
  .catch(async (error: unknown) => {
    console.error(error);
    await closeDb().catch(() => undefined);
    process.exit(1);
  });
