// `npm run bench:checkout`: the checkout flow over real HTTP against the built service (scripts/serve.ts), first
// on the embedded PGlite, then on a real PostgreSQL from scripts/pg-harness.ts. Each flow is create (line_items)
// → update (buyer, shipping_address, shipping_method_id, payment instrument) → get, run at concurrency 1 and 8. Prints ops/s and the
// p50/p95 latency of each call. Figures only: nothing here asserts a speed (STYLE: benchmarks print).
// Usage: npm run bench:checkout [-- --db=pglite|postgres|both] [--flows=<n per level>] [--smoke] [--build]
// An existing .next build is reused (serve.ts builds only when there is none): pass --build after code changes.
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { seedId } from "../prisma/seed/seed-ids";
import { findFreePort } from "./lib/free-port";
import { REPO_ROOT } from "./lib/paths";
import { startPostgres, type PostgresServer } from "./pg-harness";

const STORE = "summit-trail-outfitters";
const CONCURRENCY = [1, 8] as const;
const CALLS = ["create", "update", "get"] as const;
type Call = (typeof CALLS)[number];

const argv = process.argv.slice(2);
const option = (name: string): string | undefined =>
  argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const smoke = argv.includes("--smoke");
const flowsPerLevel = Number(option("flows") ?? (smoke ? 10 : 200));
const dbChoice = option("db") ?? "both";
if (
  !["pglite", "postgres", "both"].includes(dbChoice) ||
  !Number.isInteger(flowsPerLevel) ||
  flowsPerLevel < 1
) {
  console.error("Usage: npm run bench:checkout [-- --db=pglite|postgres|both] [--flows=<n>] [--smoke]");
  process.exit(2);
}

type Server = { baseUrl: string; key: string; stop: () => Promise<void>; output: () => string };

/** Starts scripts/serve.ts (migrate, seed, build if needed, serve) on a fresh database and waits until ready. */
const startServer = async (
  label: string,
  databaseUrl: string | undefined,
  build: boolean,
): Promise<Server> => {
  const dir = mkdtempSync(path.join(tmpdir(), "acs-bench-"));
  const port = await findFreePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const keyFile = path.join(dir, "demo-platform-key.json");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    BASE_URL: baseUrl,
    PGLITE_DIR: path.join(dir, "pglite"),
    DEMO_KEY_FILE: keyFile,
    NEXT_TELEMETRY_DISABLED: "1",
  };
  delete env.DATABASE_URL;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  const child: ChildProcess = spawn(
    path.join(REPO_ROOT, "node_modules/.bin/tsx"),
    ["scripts/serve.ts", ...(build ? ["--build"] : [])],
    {
      cwd: REPO_ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready on")) resolve();
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.once("exit", (code) =>
      reject(new Error(`${label} server exited (${code}):\n${output.slice(-2000)}`)),
    );
  });
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const key = (JSON.parse(readFileSync(keyFile, "utf8")) as { key: string }).key;
  return { baseUrl, key, stop, output: () => output };
};

const headers = (server: Server, mutates: boolean): Record<string, string> => ({
  "content-type": "application/json",
  "request-id": randomUUID(),
  "ucp-agent": `profile="${server.baseUrl}/demo/agent/.well-known/ucp"`,
  "x-api-key": server.key,
  ...(mutates ? { "idempotency-key": randomUUID() } : {}),
});

const timed = async (samples: number[], run: () => Promise<Response>): Promise<Record<string, unknown>> => {
  const started = performance.now();
  const res = await run();
  const body = (await res.json()) as Record<string, unknown>;
  samples.push(performance.now() - started);
  if (res.status >= 300 || (body.ucp as { status?: string } | undefined)?.status === "error") {
    throw new Error(`HTTP ${res.status}: ${JSON.stringify(body).slice(0, 500)}`);
  }
  return body;
};

/** An in-stock variant of the demo store (its first products, through the store's product endpoint). */
const pickVariant = async (server: Server): Promise<string> => {
  for (let i = 0; i < 20; i++) {
    const res = await fetch(`${server.baseUrl}/s/${STORE}/catalog/product`, {
      method: "POST",
      headers: headers(server, false),
      body: JSON.stringify({ id: seedId("product", STORE, i) }),
    });
    const body = (await res.json()) as {
      product?: { variants: { id: string; availability?: { available?: boolean } }[] };
    };
    const v = body.product?.variants.find((x) => x.availability?.available);
    if (v) return v.id;
  }
  throw new Error("no in-stock variant in the demo store");
};

const flow = async (server: Server, variantId: string, samples: Record<Call, number[]>) => {
  const base = `${server.baseUrl}/s/${STORE}/checkout-sessions`;
  const created = await timed(samples.create, () =>
    fetch(base, {
      method: "POST",
      headers: headers(server, true),
      body: JSON.stringify({ line_items: [{ item: { id: variantId }, quantity: 1 }] }),
    }),
  );
  const id = created.id as string;
  const updated = await timed(samples.update, () =>
    fetch(`${base}/${id}`, {
      method: "PUT",
      headers: headers(server, true),
      body: JSON.stringify({
        buyer: { email: "bench@example.com", first_name: "Bench", last_name: "Mark" },
        shipping_address: {
          line1: "1 Main St",
          city: "Denver",
          region: "CO",
          postal_code: "80202",
          country: "US",
        },
        shipping_method_id: "standard",
        payment: { instruments: [{ handler_id: "svc.card", selected: true }] },
      }),
    }),
  );
  if (updated.status !== "ready_for_complete") {
    throw new Error(`update left blockers: ${JSON.stringify(updated.messages)}`);
  }
  await timed(samples.get, () => fetch(`${base}/${id}`, { headers: headers(server, false) }));
};

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

const runLevel = async (server: Server, variantId: string, concurrency: number) => {
  const samples: Record<Call, number[]> = { create: [], update: [], get: [] };
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < flowsPerLevel) {
        next++;
        await flow(server, variantId, samples);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return CALLS.map((call) => {
    const sorted = [...samples[call]].sort((a, b) => a - b);
    return {
      call,
      concurrency,
      n: sorted.length,
      opsPerSec: sorted.length / seconds,
      p50: percentile(sorted, 50),
      p95: percentile(sorted, 95),
    };
  });
};

let buildNext = argv.includes("--build");

const bench = async (label: string, databaseUrl?: string) => {
  console.log(`\n=== ${label} ===`);
  const server = await startServer(label, databaseUrl, buildNext);
  buildNext = false; // one build serves both databases
  try {
    const variantId = await pickVariant(server);
    // warm-up: compile routes, fill caches (agent profile, prepared statements)
    const warm = { create: [], update: [], get: [] } as Record<Call, number[]>;
    for (let i = 0; i < 5; i++) await flow(server, variantId, warm);
    console.log("call     conc     n    ops/s    p50 ms   p95 ms");
    for (const concurrency of CONCURRENCY) {
      const rows = await runLevel(server, variantId, concurrency).catch((error: unknown) => {
        console.error(`Server output (last 2000 characters):\n${server.output().slice(-2000)}`);
        throw error;
      });
      for (const row of rows) {
        console.log(
          `${row.call.padEnd(8)} ${String(row.concurrency).padStart(4)} ${String(row.n).padStart(5)} ${row.opsPerSec
            .toFixed(1)
            .padStart(8)} ${row.p50.toFixed(1).padStart(9)} ${row.p95.toFixed(1).padStart(8)}`,
        );
      }
    }
  } finally {
    await server.stop();
  }
};

let postgres: PostgresServer | undefined;
try {
  console.log(
    `Checkout bench: ${flowsPerLevel} flows per concurrency level (create → update → get), store ${STORE}`,
  );
  if (dbChoice !== "postgres") await bench("PGlite (embedded)");
  if (dbChoice !== "pglite") {
    postgres = await startPostgres();
    await bench("PostgreSQL 15 (scripts/pg-harness.ts)", postgres.url);
  }
} finally {
  await postgres?.stop();
}
