// `npm run bench:search`: catalog search latency and throughput over HTTP against the real server (scripts/serve.ts,
// a production Next build) on PGlite and on PostgreSQL (a throwaway server from scripts/pg-harness.ts), each seeded
// with the deterministic demo catalog (default 100,000 products). Prints p50/p95/p99 of POST /catalog/search at
// concurrency 1 over a fixed mix of ≥ 200 queries (scripts/bench/query-mix.ts) and the throughput at concurrency 8,
// with the CPU time each level cost per search: the server process's and, on PostgreSQL, the postmaster's with all
// its backends (Linux /proc, the checkout bench's counters in scripts/bench/flow-driver.ts; PGlite runs inside the
// server, so there the server's figure includes the database); then the slowest 5 % of the mix, the searches that
// hold the p95 up, each the faster of two warm passes. Figures are printed, never asserted. Usage:
//   npm run bench:search -- [--products N] [--db pglite|postgres|both] [--no-build] [--smoke] [--volume[=o,i,p]]
//        [--feed on|off|both] [--writer]
// --volume: on PostgreSQL, measure again after scripts/db-volume.ts added its volume (default 1,000,000 orders,
// 1,000,000 idempotency records, 500,000 products; or <orders>,<idempotency>,<products>), same queries.
// --smoke: 2,000 products, PGlite only, one pass — a quick check that the bench works (CI).
// --feed on|off|both|off,on (default on): the catalog change feed's triggers (docs/catalog-changes.md) left on, or
// disabled before the seed (no change rows, no trigger work); `both` (= on,off) seeds and measures once each way, in
// that order, to show what the feed costs the seed and search. With the feed on, the whole feed (every change of the seed) is also read over
// POST /catalog/changes in pages of 1,000 and timed.
// --writer (PostgreSQL): after the quiet passes, the mix twice more at c=1 while a writer changes prices as an import
// does (WRITER_BATCHES_PER_SECOND statements a second, each UPDATE of WRITER_BATCH variants, through every trigger on
// variants: the search documents', and the change feed's when it is on). With `--feed both` this shows what the
// feed's triggers cost search while the catalog changes.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

import { percentile, processCpuMs, processTreeCpuMs } from "./bench/flow-driver";
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
    feed: { type: "string", default: "on" },
    writer: { type: "boolean", default: false },
  },
  // a bare --volume (default counts) parses as a boolean-like flag
  args: process.argv.slice(2).map((a) => (a === "--volume" ? "--volume=" : a)),
});
const smoke = values.smoke ?? false;
const products = Number(values.products ?? (smoke ? 2_000 : 100_000));
const dbs = smoke ? ["pglite"] : values.db === "both" ? ["pglite", "postgres"] : [values.db!];
const feeds: boolean[] = (values.feed === "both" ? "on,off" : values.feed!).split(",").map((f) => {
  if (f !== "on" && f !== "off")
    throw new Error(`--feed takes on, off, both or a list such as off,on (got ${f})`);
  return f === "on";
});
const TSX = path.join(REPO_ROOT, "node_modules/.bin/tsx");

const run = (label: string, args: string[], env: Record<string, string>): number => {
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
  const seconds = (performance.now() - started) / 1000;
  console.log(`  ${label}: ${seconds.toFixed(1)} s`);
  return seconds;
};

/**
 * Runs SQL on the bench database (PostgreSQL through pg, PGlite by opening its data dir while no server runs);
 * returns the last statement's rows.
 */
const execSql = async (env: Record<string, string>, sql: string): Promise<Record<string, unknown>[]> => {
  if (env.DATABASE_URL) {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    const result = (await client.query(sql)) as unknown as { rows: Record<string, unknown>[] };
    await client.end();
    return result.rows ?? [];
  }
  const { PGlite } = await import("@electric-sql/pglite");
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  const { fuzzystrmatch } = await import("@electric-sql/pglite/contrib/fuzzystrmatch");
  const db = await PGlite.create({ dataDir: env.PGLITE_DIR!, extensions: { pg_trgm, fuzzystrmatch } });
  const results = await db.exec(sql);
  await db.close();
  return (results.at(-1)?.rows ?? []) as Record<string, unknown>[];
};

/** The change table's size with its indexes (MB). */
const feedTableMb = async (env: Record<string, string>): Promise<number> => {
  const [row] = await execSql(env, `SELECT pg_total_relation_size('catalog_changes')::float8 AS bytes`);
  return Number(row?.bytes ?? 0) / 1024 / 1024;
};

/** The feed off: its six triggers disabled (bench only; the app has no switch for it). */
const disableFeed = async (env: Record<string, string>): Promise<void> => {
  await execSql(
    env,
    ["products", "variants"]
      .flatMap((table) =>
        ["insert", "update", "delete"].map(
          (event) => `ALTER TABLE "${table}" DISABLE TRIGGER catalog_changes_${table}_${event};`,
        ),
      )
      .join("\n"),
  );
};

type FeedRead = { changes: number; pages: number; seconds: number; pageP95: number; tableMb?: number };

/** Reads the whole global feed from `since` in pages of 1,000, as a platform catching up after the import. */
const readFeed = async (base: string, since: string): Promise<FeedRead> => {
  const times: number[] = [];
  let changes = 0;
  let body: Record<string, unknown> = { since, pagination: { limit: 1000 } };
  const t0 = performance.now();
  for (;;) {
    const t = performance.now();
    const res = await fetch(`${base}/catalog/changes`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as {
      changes?: unknown[];
      pagination?: { has_next_page: boolean; cursor: string };
    };
    times.push(performance.now() - t);
    if (res.status !== 200 || !json.changes || !json.pagination) {
      throw new Error(`POST /catalog/changes: ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
    }
    changes += json.changes.length;
    if (!json.pagination.has_next_page) break;
    body = { pagination: { limit: 1000, cursor: json.pagination.cursor } };
  }
  times.sort((a, b) => a - b);
  return {
    changes,
    pages: times.length,
    seconds: (performance.now() - t0) / 1000,
    pageP95: percentile(times, 95),
  };
};

const analyze = async (env: Record<string, string>): Promise<void> => {
  if (env.DATABASE_URL) {
    const { default: pg } = await import("pg");
    const client = new pg.Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    await client.query("VACUUM ANALYZE");
    // the seed's dirty buffers written now, not by the checkpointer while its CPU counts as the searches'
    await client.query("CHECKPOINT");
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

/** CPU time so far (ms) of the server process and of the database (null: not separate, or unreadable). */
type CpuCounters = { server: () => number | null; database: () => number | null };

/** CPU ms per search over a level: the server's and the database's (null where not read). */
type CpuPerSearch = { server: number | null; database: number | null };

/** Runs `work` (which sends `searches` searches) and returns what it cost per search in CPU. */
const cpuOf = async (
  cpu: CpuCounters,
  searches: number,
  work: () => Promise<void>,
): Promise<CpuPerSearch> => {
  const before = { server: cpu.server(), database: cpu.database() };
  await work();
  const per = (was: number | null, now: number | null) =>
    was === null || now === null ? null : (now - was) / searches;
  return { server: per(before.server, cpu.server()), database: per(before.database, cpu.database()) };
};

type Figures = {
  cold: { p50: number; p95: number; p99: number };
  db: string;
  feed?: boolean;
  seedSeconds?: number;
  feedRead?: FeedRead;
  p50: number;
  p95: number;
  p99: number;
  perKind: Record<string, number>;
  /** The searches that hold the c=1 p95 up: the slowest 5 % of the mix, each the faster of two warm passes. */
  slowest: { kind: MixKind; ms: number; body: Record<string, unknown> }[];
  rps: number;
  /** CPU per search at c=1 (the warm pass) and at c=8. */
  cpu1: CpuPerSearch;
  cpu8: CpuPerSearch;
  /** The mix twice at c=1 while the price writer runs (--writer). */
  writer?: { p50: number; p95: number; updates: number; seconds: number };
  errors: number;
  queries: number;
};

/** One pass of the mix at c=1: each search's latency by kind, and the non-200 answers. */
const passAtOne = async (base: string, mix: MixEntry[]) => {
  const timings: { kind: MixKind; ms: number }[] = [];
  let errors = 0;
  for (const entry of mix) {
    const { ms, status } = await post(base, entry.body);
    if (status !== 200) errors++;
    timings.push({ kind: entry.kind, ms });
  }
  return { timings, errors, sorted: timings.map((t) => t.ms).sort((a, b) => a - b) };
};

const measure = async (db: string, base: string, mix: MixEntry[], cpu: CpuCounters): Promise<Figures> => {
  // first pass: every search's total_count/facets computed (summary cache cold, except repeats within the mix)
  const cold: number[] = [];
  for (const entry of mix) cold.push((await post(base, entry.body)).ms);
  cold.sort((a, b) => a - b);
  let warm: Awaited<ReturnType<typeof passAtOne>> | undefined;
  const cpu1 = await cpuOf(cpu, mix.length, async () => {
    warm = await passAtOne(base, mix);
  });
  const { timings, sorted } = warm!;
  let errors = warm!.errors;
  // a second warm pass, outside the CPU counts: a search slow in both passes is slow, not unlucky
  const again = await passAtOne(base, mix);
  errors += again.errors;
  const slowest = mix
    .map((entry, i) => ({
      kind: entry.kind,
      ms: Math.min(timings[i]!.ms, again.timings[i]!.ms),
      body: entry.body,
    }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, Math.ceil(mix.length * 0.05));
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
  const cpu8 = await cpuOf(cpu, total, async () => {
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        for (let entry = queue.shift(); entry; entry = queue.shift()) {
          if ((await post(base, entry.body)).status !== 200) errors++;
        }
      }),
    );
  });
  const rps = total / ((performance.now() - t0) / 1000);
  return {
    cold: { p50: percentile(cold, 50), p95: percentile(cold, 95), p99: percentile(cold, 99) },
    db,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    p99: percentile(sorted, 99),
    perKind,
    slowest,
    rps,
    cpu1,
    cpu8,
    errors,
    queries: mix.length,
  };
};

const WRITER_BATCHES_PER_SECOND = 10;
const WRITER_BATCH = 50;

/**
 * The mix twice at c=1 while a writer changes prices as an import would: WRITER_BATCHES_PER_SECOND UPDATEs a second
 * of WRITER_BATCH variants each, walking the variants in a fixed shuffled order, each price up by one (down by one on
 * the next round through them).
 */
const measureWithWriter = async (
  databaseUrl: string,
  base: string,
  mix: MixEntry[],
): Promise<NonNullable<Figures["writer"]>> => {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const ids = (
    (await client.query("SELECT id FROM variants ORDER BY md5(id)")) as { rows: { id: string }[] }
  ).rows.map((r) => r.id);
  let stop = false;
  let updates = 0;
  const t0 = performance.now();
  const writer = (async () => {
    for (let batch = 0; !stop; batch++) {
      const started = performance.now();
      const from = (batch * WRITER_BATCH) % ids.length;
      const step = Math.floor((batch * WRITER_BATCH) / ids.length) % 2 === 0 ? 1 : -1;
      await client.query("UPDATE variants SET price_minor = price_minor + $2 WHERE id = ANY($1::text[])", [
        ids.slice(from, from + WRITER_BATCH),
        step,
      ]);
      updates++;
      const wait = 1000 / WRITER_BATCHES_PER_SECOND - (performance.now() - started);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  })();
  try {
    // the mix twice: the writer's effect is measured over twice the searches of one quiet pass
    const { sorted } = await passAtOne(base, [...mix, ...mix]);
    return {
      p50: percentile(sorted, 50),
      p95: percentile(sorted, 95),
      updates,
      seconds: (performance.now() - t0) / 1000,
    };
  } finally {
    stop = true;
    await writer;
    await client.end();
  }
};

const benchOne = async (db: string, feed: boolean): Promise<Figures[]> => {
  console.log(
    `\n▶ ${db}: ${products.toLocaleString("en-US")} products, catalog change feed ${feed ? "on" : "off"}`,
  );
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
    if (!feed) await disableFeed(env);
    // the feed answers a since no earlier than its start (the migration): the seed's changes all come after this
    await new Promise((r) => setTimeout(r, 1000));
    const since = new Date().toISOString();
    const seedSeconds = run(
      `seed ${products} products`,
      ["prisma/seed.ts", "--products", String(products)],
      env,
    );
    await analyze(env);
    const tableMb = feed ? await feedTableMb(env) : undefined;
    const server = await startServer(env);
    child = server.child;
    const sample = await sampleCatalog(server.base);
    const mix = await resolveDeepPages(server.base, buildQueryMix(sample));
    const serverPid = child.pid ?? null;
    const postmasterPid = pgServer?.pid ?? null;
    const cpu: CpuCounters = {
      server: () => (serverPid === null ? null : processCpuMs(serverPid)),
      database: () => (postmasterPid === null ? null : processTreeCpuMs(postmasterPid)),
    };
    const fresh: Figures = { ...(await measure(db, server.base, mix, cpu)), feed, seedSeconds };
    if (values.writer && env.DATABASE_URL) {
      fresh.writer = await measureWithWriter(env.DATABASE_URL, server.base, mix);
      console.log(
        `  with the price writer: p50 ${fresh.writer.p50.toFixed(1)} / p95 ${fresh.writer.p95.toFixed(1)} ms, ${fresh.writer.updates} UPDATEs of ${WRITER_BATCH} variants in ${fresh.writer.seconds.toFixed(1)} s`,
      );
    }
    if (feed) {
      fresh.feedRead = { ...(await readFeed(server.base, since)), tableMb };
      console.log(
        `  feed read: ${fresh.feedRead.changes} changes in ${fresh.feedRead.pages} pages, ${fresh.feedRead.seconds.toFixed(1)} s (page p95 ${fresh.feedRead.pageP95.toFixed(1)} ms)`,
      );
    }
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
    return [fresh, await measure(`${db} + volume`, server.base, mix, cpu)];
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
  for (const db of dbs) for (const feed of feeds) results.push(...(await benchOne(db, feed)));
  console.log(
    `\nPOST /catalog/search over HTTP, ${products.toLocaleString("en-US")} products, ${results[0]?.queries} queries per pass`,
  );
  console.table(
    results.map((r) => ({
      database: r.db,
      feed: r.feed === undefined ? "" : r.feed ? "on" : "off",
      "seed s": r.seedSeconds?.toFixed(0) ?? "",
      "first pass p50/p95/p99 ms": `${r.cold.p50.toFixed(1)} / ${r.cold.p95.toFixed(1)} / ${r.cold.p99.toFixed(1)}`,
      "p50 ms (c=1)": r.p50.toFixed(1),
      "p95 ms (c=1)": r.p95.toFixed(1),
      "p99 ms (c=1)": r.p99.toFixed(1),
      "searches/s (c=8)": Math.round(r.rps),
      "non-200": r.errors,
    })),
  );
  const ms = (x: number | null) => (x === null ? "–" : x.toFixed(2));
  console.log(
    "CPU ms per search (server: the Node process; database: PostgreSQL's postmaster and backends; on PGlite the server's figure includes the database):",
  );
  console.table(
    results.map((r) => ({
      database: r.db,
      feed: r.feed === undefined ? "" : r.feed ? "on" : "off",
      "server c=1": ms(r.cpu1.server),
      "database c=1": ms(r.cpu1.database),
      "server+database c=1": ms(
        r.cpu1.database === null ? r.cpu1.server : (r.cpu1.server ?? 0) + r.cpu1.database,
      ),
      "server c=8": ms(r.cpu8.server),
      "database c=8": ms(r.cpu8.database),
      "server+database c=8": ms(
        r.cpu8.database === null ? r.cpu8.server : (r.cpu8.server ?? 0) + r.cpu8.database,
      ),
    })),
  );
  const written = results.filter((r) => r.writer);
  if (written.length > 0) {
    console.log(
      `c=1 while a writer changes prices (${WRITER_BATCHES_PER_SECOND} UPDATEs/s of ${WRITER_BATCH} variants), against the same pass without it:`,
    );
    console.table(
      written.map((r) => ({
        database: r.db,
        feed: r.feed ? "on" : "off",
        "p50 / p95 ms quiet": `${r.p50.toFixed(1)} / ${r.p95.toFixed(1)}`,
        "p50 / p95 ms with writer": `${r.writer!.p50.toFixed(1)} / ${r.writer!.p95.toFixed(1)}`,
        "UPDATEs/s done": (r.writer!.updates / r.writer!.seconds).toFixed(1),
      })),
    );
  }
  for (const r of results.filter((x) => x.feedRead)) {
    console.log(
      `${r.db}: the seed's ${r.feedRead!.changes.toLocaleString("en-US")} changes read over POST /catalog/changes in ${r.feedRead!.pages} pages of ≤ 1,000, ${r.feedRead!.seconds.toFixed(1)} s (page p95 ${r.feedRead!.pageP95.toFixed(1)} ms); catalog_changes with its indexes ${r.feedRead!.tableMb?.toFixed(0)} MB`,
    );
  }
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
        `${r.db}${r.feed === undefined ? "" : ` feed ${r.feed ? "on" : "off"}`}`,
        Object.fromEntries(Object.entries(r.perKind).map(([k, v]) => [k, v.toFixed(1)])),
      ]),
    ),
  );
  for (const r of results) {
    console.log(
      `${r.db}: the slowest 5 % of the mix at c=1, each the faster of two warm passes (they hold its p95):`,
    );
    for (const q of r.slowest) {
      console.log(`  ${q.ms.toFixed(1).padStart(6)} ms  ${q.kind.padEnd(10)} ${JSON.stringify(q.body)}`);
    }
  }
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
