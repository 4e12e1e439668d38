// Generates the Prisma client offline. `prisma generate` tries to download a Rust schema engine it does not
// need for generation; pointing PRISMA_SCHEMA_ENGINE_BINARY at any existing file stops that (DECISIONS.md A).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
  PRISMA_HIDE_UPDATE_MESSAGE: "1",
  CHECKPOINT_DISABLE: "1",
};
if (!existsSync("prisma/schema.prisma")) process.exit(0);
const result = spawnSync(process.execPath, ["node_modules/prisma/build/index.js", "generate"], {
  env,
  stdio: "inherit",
});
process.exit(result.status ?? 1);
