// Admin CLI: `npm run admin -- <command> [options]`. Operators manage platform keys here (seed §5: how keys are
// issued is ours). Runs with the react-server condition so lib/ modules marked "server-only" load.
import { parseArgs } from "node:util";

import { Presets, SingleBar } from "cli-progress";

import { meiliConfigFromEnv, reindex } from "@/lib/catalog/search/meilisearch";
import { closeDb } from "@/lib/config/db";
import { createApiKey } from "@/lib/credentials/create-api-key";
import { listApiKeys, revokeApiKey } from "@/lib/credentials/manage-api-keys";
import { PLATFORM_PERMISSIONS } from "@/lib/credentials/principal";
import { toAppError } from "@/lib/http/errors";
import { purgeExpiredIdempotencyRecords } from "@/lib/idempotency/with-idempotency";

const USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  create-api-key --name <name> [--permissions ${PLATFORM_PERMISSIONS.join(",")}]
                 Creates a platform API key (X-API-Key) and prints it ONCE; only its hash is stored.
  list-api-keys  Lists keys (id, name, prefix, permissions, revoked) — never the secrets.
  revoke-api-key --id <key id>
                 Revokes a key; requests with it then get 401 invalid_api_key.
  purge-idempotency
                 Deletes expired idempotency records (also done automatically while serving).
  reindex        Rebuilds the Meilisearch catalog index (MEILISEARCH_URL) from the database with a progress bar:
                 settings, every product document, then the outbox of changes made meanwhile.
`;

const run = async (argv: string[]): Promise<number> => {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: "string" },
      permissions: { type: "string" },
      id: { type: "string" },
      json: { type: "boolean", default: false },
    },
    strict: true,
  });
  switch (command) {
    case "create-api-key": {
      const permissions = (values.permissions ?? "")
        .split(",")
        .map((p) => p.trim())
        .filter(Boolean);
      const created = await createApiKey({ name: values.name ?? "", permissions: permissions as never[] });
      if (values.json) {
        console.log(
          JSON.stringify({
            id: created.id,
            name: created.name,
            permissions: created.permissions,
            key: created.key,
          }),
        );
      } else {
        console.log(`Created platform key ${created.id} "${created.name}"`);
        console.log(`Permissions: ${created.permissions.join(", ") || "(none)"}`);
        console.log(`\n  X-API-Key: ${created.key}\n`);
        console.log("Store it now: it is shown only once (only its SHA-256 hash is kept).");
      }
      return 0;
    }
    case "list-api-keys": {
      const keys = await listApiKeys();
      if (values.json) console.log(JSON.stringify(keys));
      else if (keys.length === 0) console.log("No platform keys.");
      else
        console.table(
          keys.map((k) => ({
            id: k.id,
            name: k.name,
            prefix: `acs_${k.prefix}_…`,
            permissions: k.permissions.join(","),
            revoked: k.revokedAt ? k.revokedAt.toISOString() : "",
          })),
        );
      return 0;
    }
    case "revoke-api-key": {
      if (!values.id) throw new Error("--id is required");
      const key = await revokeApiKey(values.id);
      console.log(`Revoked ${key.id} "${key.name}" at ${key.revokedAt?.toISOString()}`);
      return 0;
    }
    case "purge-idempotency": {
      console.log(`Deleted ${await purgeExpiredIdempotencyRecords()} expired idempotency records`);
      return 0;
    }
    case "reindex": {
      const config = meiliConfigFromEnv();
      const bar = new SingleBar(
        {
          format: "Reindexing |{bar}| {percentage}% | {value}/{total} products | ETA {eta_formatted}",
          stream: process.stderr,
          hideCursor: true,
        },
        Presets.shades_classic,
      );
      let started = false;
      const t0 = performance.now();
      const result = await reindex(config, ({ done, total }) => {
        if (!started) bar.start(total, done);
        started = true;
        bar.update(done);
      });
      bar.stop();
      const seconds = ((performance.now() - t0) / 1000).toFixed(1);
      console.log(
        `Indexed ${result.done} products into ${config.host} index "${config.indexUid}" in ${seconds} s`,
      );
      return 0;
    }
    default:
      console.error(command ? `Unknown command "${command}"\n` : "");
      console.error(USAGE);
      return 2;
  }
};

run(process.argv.slice(2))
  .then(async (code) => {
    await closeDb();
    process.exit(code);
  })
  .catch(async (thrown: unknown) => {
    const error = toAppError(thrown);
    const message =
      error.code === "internal_error" && thrown instanceof Error ? thrown.message : error.message;
    console.error(`admin: ${message}`);
    await closeDb().catch(() => undefined);
    process.exit(1);
  });
