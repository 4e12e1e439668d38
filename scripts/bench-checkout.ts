// `npm run bench:checkout`: the checkout flow over real HTTP against the built service (scripts/serve.ts), first
// on the embedded PGlite, then on a real PostgreSQL from scripts/pg-harness.ts. Each flow is create (line_items)
// → update (buyer, shipping_address, shipping_method_id, payment instrument) → get → complete (issue #5: card
// pm_card_visa on the sandbox PSP, an AP2 mandate signed by the benchmark's own agent key, published in a profile
// it serves on 127.0.0.1), run at concurrency 1 and 8. Prints ops/s and the
// p50/p95 latency of each call. Figures only: nothing here asserts a speed (STYLE: benchmarks print).
// Usage: npm run bench:checkout [-- --db=pglite|postgres|both] [--flows=<n per level>] [--smoke] [--build]
// An existing .next build is reused (serve.ts builds only when there is none): pass --build after code changes.
import { spawn, type ChildProcess } from "node:child_process";
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

import type { JWK } from "jose";

import { withMandateKey } from "../e2e/helpers/card-completion";
import { mandateTerms, type MandateCheckout } from "../lib/mandates/mandate-terms";
import { signCheckoutMandate } from "../lib/mandates/sign-checkout-mandate";
import { seedId } from "../prisma/seed/seed-ids";
import { findFreePort } from "./lib/free-port";
import { REPO_ROOT } from "./lib/paths";
import { startPostgres, type PostgresServer } from "./pg-harness";

const STORE = "summit-trail-outfitters";
const CONCURRENCY = [1, 8] as const;
const CALLS = ["create", "update", "get", "complete"] as const;
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
    // the bench's agent profile is the service's own, on loopback: a production build refuses that unless allowed
    OUTBOUND_ALLOW_PRIVATE: "1",
    // the bench measures the service, not the rate limiter: its burst from one key must not meet a 429
    RATE_LIMIT_KEY: process.env.RATE_LIMIT_KEY ?? "1000000",
    RATE_LIMIT_ANONYMOUS: process.env.RATE_LIMIT_ANONYMOUS ?? "1000000",
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

/** The benchmark's agent: its ES256 mandate key, published in a profile it serves (demo profile + signing_keys). */
const agentKeys = (() => {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return {
    kid: "bench-agent",
    privateJwk: privateKey.export({ format: "jwk" }) as JWK,
    publicJwk: { ...publicKey.export({ format: "jwk" }), kid: "bench-agent", alg: "ES256", use: "sig" },
  };
})();
let agentProfileUrl = "";
const serveAgentProfile = async (server: Server): Promise<() => void> => {
  const demo = (await (await fetch(`${server.baseUrl}/demo/agent/.well-known/ucp`)).json()) as object;
  const body = JSON.stringify(withMandateKey(demo, agentKeys.publicJwk));
  const http = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=3600" }).end(body),
  );
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  agentProfileUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/.well-known/ucp`;
  return () => http.close();
};

const headers = (server: Server, mutates: boolean): Record<string, string> => ({
  "content-type": "application/json",
  "request-id": randomUUID(),
  "ucp-agent": `profile="${agentProfileUrl}"`,
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

/** In-stock variants of the demo store (its first products): completions take stock, so flows rotate over them. */
const pickVariants = async (server: Server): Promise<string[]> => {
  const found: string[] = [];
  for (let i = 0; i < 80 && found.length < 40; i++) {
    const res = await fetch(`${server.baseUrl}/s/${STORE}/catalog/product`, {
      method: "POST",
      headers: headers(server, false),
      body: JSON.stringify({ id: seedId("product", STORE, i) }),
    });
    const body = (await res.json()) as {
      product?: { variants: { id: string; availability?: { available?: boolean } }[] };
    };
    for (const v of body.product?.variants ?? []) if (v.availability?.available) found.push(v.id);
  }
  if (found.length === 0) throw new Error("no in-stock variant in the demo store");
  return found;
};

/** One flow on a variant of the pool; a variant that ran out of stock is dropped and the flow retried. */
const flow = async (server: Server, pool: string[], samples: Record<Call, number[]>): Promise<void> => {
  for (;;) {
    const variantId = pool[Math.floor(Math.random() * pool.length)];
    if (!variantId) throw new Error("every demo variant in the pool ran out of stock");
    if (await flowOn(server, variantId, samples)) return;
    pool.splice(pool.indexOf(variantId), 1);
  }
};

const flowOn = async (server: Server, variantId: string, samples: Record<Call, number[]>) => {
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
    const messages = JSON.stringify(updated.messages);
    if (/out_of_stock|item_unavailable/.test(messages)) return false;
    throw new Error(`update left blockers: ${messages}`);
  }
  const read = await timed(samples.get, () => fetch(`${base}/${id}`, { headers: headers(server, false) }));
  const mandate = await signCheckoutMandate(mandateTerms(read as MandateCheckout, STORE), {
    privateJwk: agentKeys.privateJwk,
    kid: agentKeys.kid,
    exp: Math.floor(Date.now() / 1000) + 600,
  });
  const completed = await timed(samples.complete, () =>
    fetch(`${base}/${id}/complete`, {
      method: "POST",
      headers: headers(server, true),
      body: JSON.stringify({
        payment: {
          instruments: [
            {
              handler_id: "svc.card",
              selected: true,
              credential: { type: "stripe_token", token: "pm_card_visa" },
            },
          ],
        },
        ap2: { checkout_mandate: mandate },
      }),
    }),
  );
  if (completed.status !== "completed") {
    throw new Error(`completion did not complete: ${JSON.stringify(completed).slice(0, 500)}`);
  }
  return true;
};

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

const runLevel = async (server: Server, pool: string[], concurrency: number) => {
  const samples: Record<Call, number[]> = { create: [], update: [], get: [], complete: [] };
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < flowsPerLevel) {
        next++;
        await flow(server, pool, samples);
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
  const stopProfile = await serveAgentProfile(server);
  try {
    const pool = await pickVariants(server);
    // warm-up: compile routes, fill caches (agent profile, prepared statements)
    const warm = { create: [], update: [], get: [], complete: [] } as Record<Call, number[]>;
    for (let i = 0; i < 5; i++) await flow(server, pool, warm);
    console.log("call     conc     n    ops/s    p50 ms   p95 ms");
    for (const concurrency of CONCURRENCY) {
      const rows = await runLevel(server, pool, concurrency).catch((error: unknown) => {
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
    stopProfile();
    await server.stop();
  }
};

let postgres: PostgresServer | undefined;
try {
  console.log(
    `Checkout bench: ${flowsPerLevel} flows per concurrency level (create → update → get → complete), store ${STORE}`,
  );
  if (dbChoice !== "postgres") await bench("PGlite (embedded)");
  if (dbChoice !== "pglite") {
    postgres = await startPostgres();
    await bench("PostgreSQL 15 (scripts/pg-harness.ts)", postgres.url);
  }
} finally {
  await postgres?.stop();
}
