// `npm run bench:search`: catalog search latency and throughput over HTTP against the real server (scripts/serve.ts,
// a production Next build) on PGlite and on PostgreSQL (a throwaway server from scripts/pg-harness.ts), each seeded
// with the deterministic demo catalog (default 100,000 products). Prints p50/p95/p99 of POST /catalog/search at
// concurrency 1 over a fixed mix of ≥ 200 queries (scripts/bench/query-mix.ts) and the throughput at concurrency 8.
// Figures are printed, never asserted. Usage:
//   npm run bench:search -- [--products N] [--db pglite|postgres|both] [--no-build] [--smoke] [--volume[=o,i,p]]
// --volume: on PostgreSQL, measure again after scripts/db-volume.ts added its volume (default 1,000,000 orders,
// 1,000,000 idempotency records, 500,000 products; or <orders>,<idempotency>,<products>), same queries.
// --smoke: 2,000 products, PGlite only, one pass — a quick check that the bench works (CI).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

import { buildQueryMix, type CatalogSample, type MixEntry, type MixKind } from "./bench/query-mix";
import { findFreePort } from "./lib/free-port";
import { REPO_ROOT, SERVER_NODE_ARGS, serverEnv } from "./lib/paths";
import { startPostgres, type PostgresServer } from "./pg-harness";

const { values } = parseArgs({
  options: {
    products: { type: "string" },
    db: { type: "string", default: "both" },
    "no-build": { type: "boolean", default: false },
    smoke: { type: "boolean", default: false },
    volume: { type: "string" },
  },
  // a bare --volume (default counts) parses as a boolean-like flag
  args: process.argv.slice(2).map((a) => (a === "--volume" ? "--volume=" : a)),
});
const smoke = values.smoke ?? false;
const products = Number(values.products ?? (smoke ? 2_000 : 100_000));
const dbs = smoke ? ["pglite"] : values.db === "both" ? ["pglite", "postgres"] : [values.db!];
const TSX = path.join(REPO_ROOT, "node_modules/.bin/tsx");

const run = (label: string, args: string[], env: Record<string, string>): void => {
  const started = performance.now();
  const result = spawnSync(TSX, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (result.status !== 0) {
    process.stdout.write(result.stdout);
    throw new Error(`${label} failed (exit ${result.status})`);
  }
  console.log(`  ${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
};

const analyze = async (env: Record<string, string>): Promise<void> => {
  if (env.DATABASE_URL) {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    await client.query("VACUUM ANALYZE");
    await client.end();
    return;
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  const { fuzzystrmatch } = await import("@electric-sql/pglite/contrib/fuzzystrmatch");
  const db = await PGlite.create({ dataDir: env.PGLITE_DIR!, extensions: { pg_trgm, fuzzystrmatch } });
  await db.exec("VACUUM ANALYZE");
  await db.close();
};

const startServer = async (env: Record<string, string>): Promise<{ base: string; child: ChildProcess }> => {
  const port = await findFreePort();
  const child = spawn(process.execPath, [...SERVER_NODE_ARGS, "--no-setup"], {
    cwd: REPO_ROOT,
    env: serverEnv({
      ...process.env,
      ...env,
      PORT: String(port),
      HOST: "127.0.0.1",
      NODE_ENV: "production" as const,
      NEXT_TELEMETRY_DISABLED: "1",
      // the bench measures search, not the rate limiter: its anonymous burst from one address must not meet a 429
      RATE_LIMIT_ANONYMOUS: process.env.RATE_LIMIT_ANONYMOUS ?? "1000000",
    }),
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${base}/.well-known/ucp`)).ok) return { base, child };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("server did not start");
};

const stopServer = (child: ChildProcess): void => {
  if (child.pid) process.kill(-child.pid, "SIGTERM");
};

type SearchBody = {
  products: { title: string; tags: string[]; categories: { value: string }[] }[];
  pagination: { cursor?: string };
  facets: { sellers: { value: string }[] };
};

const post = async (
  base: string,
  body: unknown,
): Promise<{ ms: number; status: number; json: SearchBody }> => {
  const t0 = performance.now();
  const res = await fetch(`${base}/catalog/search`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as SearchBody;
  return { ms: performance.now() - t0, status: res.status, json };
};

const sampleCatalog = async (base: string): Promise<CatalogSample> => {
  const sample: CatalogSample = { titles: [], tags: [], categories: [], sellers: [] };
  let cursor: string | undefined;
  for (let page = 0; page < 6; page++) {
    const { json } = await post(base, {
      filters: { available: false },
      pagination: { limit: 50, ...(cursor ? { cursor } : {}) },
    });
    for (const p of json.products) {
      sample.titles.push(p.title);
      sample.tags.push(...p.tags);
      sample.categories.push(...p.categories.map((c) => c.value));
    }
    sample.sellers = json.facets.sellers.map((s) => s.value);
    cursor = json.pagination.cursor;
    if (!cursor) break;
  }
  sample.tags = [...new Set(sample.tags)];
  sample.categories = [...new Set(sample.categories)];
  return sample;
};

/** Deep pages: replace each deep-page body by the request for its 5th page (cursor fetched now). */
const resolveDeepPages = async (base: string, mix: MixEntry[]): Promise<MixEntry[]> =>
  Promise.all(
    mix.map(async (entry) => {
      if (entry.kind !== "deep-page") return entry;
      let body = entry.body;
      for (let page = 1; page < 5; page++) {
        const { json } = await post(base, body);
        if (!json.pagination.cursor) break;
        body = { ...entry.body, pagination: { limit: 10, cursor: json.pagination.cursor } };
      }
      return { kind: entry.kind, body };
    }),
  );

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

type Figures = {
  cold: { p50: number; p95: number; p99: number };
  db: string;
  p50: number;
  p95: number;
  p99: number;
  perKind: Record<string, number>;
  rps: number;
  errors: number;
  queries: number;
};

const measure = async (db: string, base: string, mix: MixEntry[]): Promise<Figures> => {
  // first pass: every search's total_count/facets computed (summary cache cold, except repeats within the mix)
  const cold: number[] = [];
  for (const entry of mix) cold.push((await post(base, entry.body)).ms);
  cold.sort((a, b) => a - b);
  const timings: { kind: MixKind; ms: number }[] = [];
  let errors = 0;
  for (const entry of mix) {
    const { ms, status } = await post(base, entry.body);
    if (status !== 200) errors++;
    timings.push({ kind: entry.kind, ms });
  }
  const sorted = timings.map((t) => t.ms).sort((a, b) => a - b);
  const perKind: Record<string, number> = {};
  for (const kind of new Set(timings.map((t) => t.kind))) {
    perKind[kind] = percentile(
      timings
        .filter((t) => t.kind === kind)
        .map((t) => t.ms)
        .sort((a, b) => a - b),
      95,
    );
  }
  const queue = smoke ? [...mix] : [...mix, ...mix, ...mix];
  const total = queue.length;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let entry = queue.shift(); entry; entry = queue.shift()) {
        if ((await post(base, entry.body)).status !== 200) errors++;
      }
    }),
  );
  const rps = total / ((performance.now() - t0) / 1000);
  return {
    cold: { p50: percentile(cold, 50), p95: percentile(cold, 95), p99: percentile(cold, 99) },
    db,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    perKind,
    rps,
    errors,
    queries: mix.length,
  };
};

const benchOne = async (db: string): Promise<Figures[]> => {
  console.log(`\n▶ ${db}: ${products.toLocaleString("en-US")} products`);
  let pgServer: PostgresServer | undefined;
  let dir: string | undefined;
  let child: ChildProcess | undefined;
  try {
    let env: Record<string, string>;
    if (db === "postgres") {
      pgServer = await startPostgres();
      env = { DATABASE_URL: pgServer.url };
    } else {
      dir = mkdtempSync(path.join(tmpdir(), "acs-bench-"));
      env = { PGLITE_DIR: path.join(dir, "pglite") };
    }
    run("migrate", ["scripts/db-migrate.ts"], env);
    run(`seed ${products} products`, ["prisma/seed.ts", "--products", String(products)], env);
    await analyze(env);
    const server = await startServer(env);
    child = server.child;
    const sample = await sampleCatalog(server.base);
    const mix = await resolveDeepPages(server.base, buildQueryMix(sample));
    const fresh = await measure(db, server.base, mix);
    if (values.volume === undefined || db !== "postgres") return [fresh];
    const [orders, idempotency, volumeProducts] = values.volume.split(",");
    const counts = Object.entries({ orders, idempotency, products: volumeProducts })
      .filter(([, n]) => n)
      .flatMap(([flag, n]) => [`--${flag}`, n!]);
    // not spawnSync: a blocked event loop misses the server closing its idle keep-alive sockets, and the next
    // request on one of them fails
    const started = performance.now();
    const generator = spawn(TSX, ["scripts/db-volume.ts", ...counts], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ["ignore", "inherit", "inherit"],
    });
    const code = await new Promise<number | null>((resolve) => generator.once("exit", resolve));
    if (code !== 0) throw new Error(`db:volume failed (exit ${code})`);
    console.log(`  db:volume: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return [fresh, await measure(`${db} + volume`, server.base, mix)];
  } finally {
    if (child) stopServer(child);
    await new Promise((r) => setTimeout(r, 500));
    await pgServer?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
};

const main = async (): Promise<void> => {
  if (!values["no-build"]) {
    console.log("▶ next build (the bench serves a fresh production build)");
    const built = spawnSync("npx", ["next", "build"], {
      cwd: REPO_ROOT,
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    });
    if (built.status !== 0) throw new Error("next build failed");
  }
  const results: Figures[] = [];
  for (const db of dbs) results.push(...(await benchOne(db)));
  console.log(
    `\nPOST /catalog/search over HTTP, ${products.toLocaleString("en-US")} products, ${results[0]?.queries} queries per pass`,
  );
  console.table(
    results.map((r) => ({
      database: r.db,
      "first pass p50/p95/p99 ms": `${r.cold.p50.toFixed(1)} / ${r.cold.p95.toFixed(1)} / ${r.cold.p99.toFixed(1)}`,
      "p50 ms (c=1)": r.p50.toFixed(1),
      "p95 ms (c=1)": r.p95.toFixed(1),
      "p99 ms (c=1)": r.p99.toFixed(1),
      "searches/s (c=8)": Math.round(r.rps),
      "non-200": r.errors,
    })),
  );
  const fresh = results.find((r) => r.db === "postgres");
  const filled = results.find((r) => r.db === "postgres + volume");
  if (fresh && filled) {
    const x = (a: number, b: number) => `${(a / b).toFixed(2)}×`;
    console.log(
      `Flat growth (volume / fresh): p50 ${x(filled.p50, fresh.p50)}, p95 ${x(filled.p95, fresh.p95)}, searches/s ${x(filled.rps, fresh.rps)}`,
    );
  }
  console.log("p95 ms by query kind (c=1):");
  console.table(
    Object.fromEntries(
      results.map((r) => [
        r.db,
        Object.fromEntries(Object.entries(r.perKind).map(([k, v]) => [k, v.toFixed(1)])),
      ]),
    ),
  );
};

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(
      error instanceof Error ? error.message : error,
      (error as { cause?: unknown })?.cause ?? "",
    );
    process.exit(1);
  },
);
