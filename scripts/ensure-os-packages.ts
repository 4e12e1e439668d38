import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

// OS packages the tests need, installed from Debian's apt when missing (needs root), so that the README's test
// command works on a fresh machine: Debian's chromium for the browser tests (`npx playwright install` cannot
// download browsers here, DECISIONS.md A), the PostgreSQL 15 server binaries for the integration harness and
// Debian's redis-server for the rate-limit tests (shared budgets, Redis outage).

export const CHROMIUM_PATH = "/usr/bin/chromium";
export const POSTGRES_INITDB = "/usr/lib/postgresql/15/bin/initdb";
/** The rate-limit tests run a real Redis (e2e/helpers/redis-server.ts). */
export const REDIS_SERVER = "/usr/bin/redis-server";

type OsPackage = { file: string; pkg: string; what: string };

const run = (command: string, args: string[]): void => {
  console.log(`$ ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, {
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} failed (${result.error?.message ?? `exit code ${result.status}`})`,
    );
  }
};

let aptUpdated = false;

/** Makes sure `file` exists, installing Debian package `pkg` when it does not (needs root). */
const ensureOsPackage = ({ file, pkg, what }: OsPackage): void => {
  if (existsSync(file)) {
    console.log(`${what}: ${file} is installed.`);
    return;
  }
  if (process.getuid?.() !== 0) {
    throw new Error(`${file} is missing. Install it as root: apt-get update && apt-get install -y ${pkg}`);
  }
  console.log(`${what}: ${file} is missing; installing Debian's ${pkg} package.`);
  if (!aptUpdated) run("apt-get", ["update", "-q"]);
  aptUpdated = true;
  run("apt-get", ["install", "-y", "-q", pkg]);
  if (!existsSync(file)) throw new Error(`apt-get installed ${pkg} but ${file} is still missing`);
};

export const ensureChromium = (): void =>
  ensureOsPackage({ file: CHROMIUM_PATH, pkg: "chromium", what: "Chromium" });

/** Skipped when PG_BIN_DIR points the harness at other binaries. */
export const ensurePostgres = (): void => {
  if (process.env.PG_BIN_DIR) return;
  ensureOsPackage({ file: POSTGRES_INITDB, pkg: "postgresql-15", what: "PostgreSQL 15" });
};

export const ensureRedis = (): void =>
  ensureOsPackage({ file: REDIS_SERVER, pkg: "redis-server", what: "Redis" });

const isMain =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;

if (isMain) {
  try {
    ensureChromium();
    ensurePostgres();
    ensureRedis();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}
