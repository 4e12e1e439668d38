// `npm run db:migrate` applies the committed migrations to the configured database (PGlite by default,
// PostgreSQL when DATABASE_URL is set); `npm run db:migration:create -- <name>` writes a new migration from the
// changes in prisma/schema.prisma. Both run offline on Prisma's wasm schema engine (DECISIONS.md A, C): the
// `prisma migrate` commands need a Rust engine that cannot be downloaded here.
import path from "node:path";

import { openAdapter, type AdapterHandle } from "../lib/config/database";
import { createMigration, DestructiveMigrationError } from "./db/create-migration";
import { applyMigrations, readMigrationsList } from "./db/migrate-engine";

const USAGE = `Usage:
  npm run db:migrate                                   apply committed migrations to the configured database
  npm run db:migration:create -- <name> [--allow-drops]  write prisma/migrations/<timestamp>_<name>/migration.sql`;

const relative = (file: string): string => path.relative(process.cwd(), file) || file;

// The engine also reports its start-up and analysis timings; only the migrations it runs and its warnings
// help someone reading the output.
const printEngineLine = (line: string): void => {
  if (line.startsWith("Applying ") || /^(WARN|ERROR): /.test(line)) console.log(`  ${line}`);
};

const migrate = async (): Promise<void> => {
  let handle: AdapterHandle | undefined;
  try {
    handle = await openAdapter();
    const total = (await readMigrationsList()).migrationDirectories.length;
    const started = performance.now();
    const { applied } = await applyMigrations(handle.factory, { log: printEngineLine });
    const ms = Math.round(performance.now() - started);
    console.log(
      `${applied.length} applied, ${total - applied.length} already applied (${ms} ms) on ${handle.describe}`,
    );
  } finally {
    await handle?.close();
  }
};

const create = async (args: string[]): Promise<void> => {
  const allowDrops = args.includes("--allow-drops");
  const words = args.filter((a) => a !== "--allow-drops");
  const unknown = words.find((a) => a.startsWith("--"));
  if (unknown) throw new UsageError(`Unknown option ${unknown}.`);
  if (words.length === 0)
    throw new UsageError("Name the migration, e.g. npm run db:migration:create -- add_wishlist");
  const result = await createMigration({ name: words.join(" "), allowDrops });
  console.log(
    `Rebuilt the schema of ${result.baseline.length} committed migration(s) in a throwaway PGlite.`,
  );
  if (result.status === "no-changes") {
    console.log("No schema changes: prisma/schema.prisma matches the committed migrations; nothing written.");
    return;
  }
  console.log(`Created ${relative(result.file)}`);
  if (result.drops.length > 0) console.log(`It drops:\n${result.drops.map((d) => `  ${d}`).join("\n")}`);
  console.log("Review it, then apply it with npm run db:migrate.");
};

class UsageError extends Error {}

const main = async (argv: string[]): Promise<void> => {
  const [command, ...rest] = argv;
  if (command === "--help" || command === "-h" || command === "help") {
    console.log(USAGE);
    return;
  }
  if (command === "create") return create(rest);
  if (command !== undefined) throw new UsageError(`Unknown command "${command}".`);
  return migrate();
};

main(process.argv.slice(2)).then(
  // PGlite and pg release their handles on close; exit explicitly anyway so a stray timer cannot hold the CLI.
  () => process.exit(0),
  (error: unknown) => {
    if (error instanceof UsageError) console.error(`${error.message}\n\n${USAGE}`);
    else if (error instanceof DestructiveMigrationError)
      console.error(`${error.message}\nNothing was written.`);
    else {
      const what = process.argv[2] === "create" ? "Creating the migration" : "Migrating the database";
      console.error(`${what} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    process.exit(1);
  },
);
