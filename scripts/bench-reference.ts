// `npm run bench:reference`: the checkout flow of `npm run bench:checkout`, run the same way (same driver, same
// levels, same figures) against the public UCP samples' Node reference server (Hono + SQLite), so our figures can
// be read beside it (issue #31; docs/performance.md, "Reference server, side by side"). We only talk to it over HTTP: its code
// lives outside this repository.
// One flow, in its API: create (line_items) → update (buyer, a shipping destination and option, a card instrument)
// → get → complete with its test payment handler (mock_payment_handler, token success_token). Mutating calls carry
// an Idempotency-Key, as ours do. No UCP-Agent header: the reference fetches the agent profile on every call that
// has one (only to learn a webhook URL), which would measure the profile server rather than the checkout.
// The server's CPU per flow is read from /proc of its pid, as for ours, and so is the machine's (its server, this
// driver, the rest).
// Usage: npm run bench:reference -- --reference-dir=<its rest/nodejs folder, installed> [--flows=<n>]
//        [--concurrency=1,8] [--smoke]
//    or: npm run bench:reference -- --reference=<base url> [--reference-pid=<pid>] [...]
// --reference-dir starts it on a free 127.0.0.1 port (its src/index.ts run with the tsx it installed, in a
// temporary folder holding a copy of its databases/, so every run starts from its shipped stock) and stops it
// after. Its listen call must read PORT and HOST (see docs/performance.md for the two-line change).
// That folder is made under --reference-data=<dir>, by default /dev/shm (tmpfs) where there is one: our bench's
// PostgreSQL runs without fsync (scripts/pg-harness.ts), and SQLite on a disk would wait for an fsync on each of
// the ~12 writes of a flow, on the event loop — the comparison would be durability, not request handling.
// Pass --reference-data=/tmp (a disk) to see that cost.
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

import {
  callStats,
  cell,
  driveFlows,
  DRIVER_PART,
  flowBenchOptions,
  idleCpuPerSecond,
  levelSummary,
  machineSummary,
  ownCpuMs,
  processCpuMs,
} from "./bench/flow-driver";
import { findFreePort } from "./lib/free-port";

const CALLS = ["create", "update", "get", "complete"] as const;
type Call = (typeof CALLS)[number];
type Samples = Record<Call, number[]>;
const noSamples = (): Samples => ({ create: [], update: [], get: [], complete: [] });

const { option, flowsPerLevel, levels, valid: levelsValid } = flowBenchOptions(process.argv.slice(2));
const referenceDir = option("reference-dir");
const referenceUrl = option("reference");
const referencePid = option("reference-pid");
const referenceData = option("reference-data") ?? (existsSync("/dev/shm") ? "/dev/shm" : tmpdir());
if (
  (referenceDir === undefined) === (referenceUrl === undefined) ||
  (referencePid !== undefined && !/^\d+$/.test(referencePid)) ||
  !levelsValid
) {
  console.error(
    "Usage: npm run bench:reference -- (--reference-dir=<dir> | --reference=<url> [--reference-pid=<pid>]) [--flows=<n>] [--concurrency=1,8] [--smoke]",
  );
  process.exit(2);
}

type Reference = {
  baseUrl: string;
  cpuMs: () => number | null;
  /** The tail of its standard error (shown when a level fails). */
  errors: () => string;
  stop: () => Promise<void>;
};

/** Starts the reference from its folder on a free loopback port, on a copy of its databases, and waits for it. */
const startReference = async (dir: string): Promise<Reference> => {
  const source = path.resolve(dir);
  const entry = path.join(source, "src/index.ts");
  const loader = path.join(source, "node_modules/tsx/dist/loader.mjs");
  if (!existsSync(entry) || !existsSync(loader)) {
    throw new Error(`${source}: expected src/index.ts and an installed tsx (npm ci in that folder)`);
  }
  if (!readFileSync(entry, "utf8").includes("process.env.PORT")) {
    throw new Error(`${entry} listens on a fixed port: make it read PORT and HOST (docs/performance.md)`);
  }
  // it opens databases/*.db relative to its working directory: a copy keeps the shipped stock for the next run
  const work = mkdtempSync(path.join(referenceData, "ucp-reference-"));
  console.log(`reference's databases (a copy of its shipped ones): ${work}`);
  cpSync(path.join(source, "databases"), path.join(work, "databases"), { recursive: true });
  const port = await findFreePort();
  const child: ChildProcess = spawn(process.execPath, ["--import", pathToFileURL(loader).href, entry], {
    cwd: work,
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1", NODE_ENV: "production" },
    // its request log (pino, one pretty line per request and the validated payloads) goes nowhere, as a
    // production log would go to a file rather than to a terminal this driver has to read
    stdio: ["ignore", "ignore", "pipe"],
  });
  let errors = "";
  child.stderr?.on("data", (chunk: Buffer) => (errors = (errors + chunk.toString()).slice(-4000)));
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(work, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the reference exited (${child.exitCode}):\n${errors}`);
    const up = await fetch(`${baseUrl}/.well-known/ucp`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the reference did not answer on ${baseUrl} within 60 s:\n${errors}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const pid = child.pid!;
  return { baseUrl, cpuMs: () => processCpuMs(pid), errors: () => errors, stop };
};

/** A business answer that the product ran out of stock: the flow moves to another product. */
class OutOfStock extends Error {}

const timed = async (
  samples: Samples,
  call: Call,
  run: () => Promise<Response>,
): Promise<Record<string, unknown>> => {
  const started = performance.now();
  const res = await run();
  const text = await res.text();
  samples[call].push(performance.now() - started);
  // its stock answers: 400 "Insufficient stock" (create, update), 409 "out of stock" (complete)
  if ((res.status === 400 || res.status === 409) && /out of stock|Insufficient stock/.test(text)) {
    throw new OutOfStock(text);
  }
  if (res.status >= 300) throw new Error(`${call}: HTTP ${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as Record<string, unknown>;
};

const jsonHeaders = (mutates: boolean): Record<string, string> => ({
  "content-type": "application/json",
  ...(mutates ? { "idempotency-key": randomUUID() } : {}),
});

/** Its payment instrument for the test handler (the card fields its schema requires). */
const instrument = {
  id: "instr_bench",
  handler_id: "mock_payment_handler",
  type: "card",
  brand: "visa",
  last_digits: "4242",
};

const flowOn = async (baseUrl: string, productId: string, samples: Samples): Promise<boolean> => {
  const base = `${baseUrl}/checkout-sessions`;
  const created = await timed(samples, "create", () =>
    fetch(base, {
      method: "POST",
      headers: jsonHeaders(true),
      body: JSON.stringify({
        currency: "USD",
        line_items: [{ item: { id: productId }, quantity: 1 }],
        payment: {},
      }),
    }),
  );
  const id = created.id as string;
  const updated = await timed(samples, "update", () =>
    fetch(`${base}/${id}`, {
      method: "PUT",
      headers: jsonHeaders(true),
      body: JSON.stringify({
        id,
        currency: "USD",
        line_items: [{ id: "line_1", item: { id: productId }, quantity: 1 }],
        buyer: { email: "bench@example.com", first_name: "Bench", last_name: "Mark" },
        fulfillment: {
          methods: [
            {
              type: "shipping",
              destinations: [
                {
                  id: "dest_bench",
                  street_address: "1 Main St",
                  address_locality: "Denver",
                  address_region: "CO",
                  postal_code: "80202",
                  address_country: "US",
                },
              ],
              selected_destination_id: "dest_bench",
              groups: [{ selected_option_id: "std-ship" }],
            },
          ],
        },
        payment: { instruments: [instrument], selected_instrument_id: instrument.id },
      }),
    }),
  );
  // the update must have priced the chosen shipping option, as ours does before a completion
  const totals = (updated.totals ?? []) as { type: string; amount: number }[];
  if (!totals.some((t) => t.type === "fulfillment" && t.amount > 0)) {
    throw new Error(`update priced no shipping: ${JSON.stringify(updated).slice(0, 500)}`);
  }
  await timed(samples, "get", () => fetch(`${base}/${id}`));
  const completed = await timed(samples, "complete", () =>
    fetch(`${base}/${id}/complete`, {
      method: "POST",
      headers: jsonHeaders(true),
      body: JSON.stringify({
        payment_data: { ...instrument, credential: { type: "token", token: "success_token" } },
      }),
    }),
  );
  if (completed.status !== "completed" || typeof completed.order_id !== "string") {
    throw new Error(`completion did not complete: ${JSON.stringify(completed).slice(0, 500)}`);
  }
  return true;
};

/** One flow on a product of the pool; a product that ran out of stock is dropped and the flow retried. */
const flow = async (baseUrl: string, pool: string[], samples: Samples): Promise<void> => {
  for (;;) {
    const productId = pool[Math.floor(Math.random() * pool.length)];
    if (!productId) throw new Error("every product in the pool ran out of stock");
    const done = await flowOn(baseUrl, productId, samples).catch((error: unknown) => {
      if (error instanceof OutOfStock) return false;
      throw error;
    });
    if (done) return;
    pool.splice(pool.indexOf(productId), 1);
  }
};

/**
 * Its shipped catalogue (databases/products.db: a handful of flowers with stock). It has no catalogue endpoint, so
 * the pool is its product ids; one that is out of stock (it ships one) is dropped on first refusal.
 */
const PRODUCTS = [
  "bouquet_roses",
  "pot_ceramic",
  "bouquet_sunflowers",
  "bouquet_tulips",
  "orchid_white",
  "gardenias",
];

const reference = referenceDir
  ? await startReference(referenceDir)
  : {
      baseUrl: referenceUrl!.replace(/\/$/, ""),
      cpuMs: () => (referencePid === undefined ? null : processCpuMs(Number(referencePid))),
      errors: () => "",
      stop: async () => {},
    };
try {
  console.log(
    `Reference bench: ${flowsPerLevel} flows per concurrency level against ${reference.baseUrl}; create → update → get → complete (mock_payment_handler)`,
  );
  const pool = [...PRODUCTS];
  // warm-up, as for ours: JIT, prepared statements
  for (let i = 0; i < 5; i++) await flow(reference.baseUrl, pool, noSamples());
  const idlePerSecond = await idleCpuPerSecond(reference.cpuMs);
  if (idlePerSecond !== null) console.log(`server CPU while idle: ${idlePerSecond.toFixed(0)} ms/s`);
  for (const concurrency of levels) {
    const samples = noSamples();
    const result = await driveFlows(
      concurrency,
      flowsPerLevel,
      () => flow(reference.baseUrl, pool, samples),
      reference.cpuMs,
      { parts: { "reference server": reference.cpuMs, [DRIVER_PART]: ownCpuMs } },
    );
    const calls = callStats(CALLS, samples);
    console.log(`\nc=${concurrency}: ${flowsPerLevel} flows — card ${levelSummary(result, idlePerSecond)}`);
    console.log(`call             card p50 card p95`);
    for (const call of CALLS) console.log(`${call.padEnd(15)} ${cell(calls.get(call))}`);
    const machine = machineSummary(result.machine);
    if (machine) console.log(machine);
  }
} catch (error) {
  console.error(`The reference's standard error (tail):\n${reference.errors()}`);
  throw error;
} finally {
  await reference.stop();
}
