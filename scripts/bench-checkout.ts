// `npm run bench:checkout`: the checkout flow over real HTTP against the built service (scripts/serve.ts), first
// on the embedded PGlite, then on a real PostgreSQL from scripts/pg-harness.ts. Each flow is create (line_items)
// → update (buyer, shipping_address, shipping_method_id, payment instrument) → get → complete (issue #5: card
// pm_card_visa on the sandbox PSP, an AP2 mandate signed by the benchmark's own agent key, published in a profile
// it serves on 127.0.0.1), run at concurrency 1 and 8. The crypto flow (svc.crypto on the Sui sandbox the server
// starts) is create → get → update → payment-intent → the sandbox wallet signs and executes the bytes on the sandbox
// → complete with the digest and both mandates, with the sandbox buyer's bearer (linked once through the real OAuth
// flow, consent by the admin CLI's approve-authorization). One buyer wallet means one set of coin objects: a
// prepared transaction spends the wallet's current coin versions, so the prepare → execute pair is serialized per
// wallet (as one real wallet would be) and only that pair; the other calls run at the level's concurrency.
// The card flow also runs over the store's MCP (card-mcp: the same four calls as tools/call) and through the mounted
// bridge (card-bridge: create_checkout, update_checkout, confirm_purchase, which reads and completes the checkout
// over the raw MCP itself), so each surface's cost shows beside REST's (--surface picks them; default all three).
// On PostgreSQL it also prints the statements a flow sends (pg_stat_statements, loaded by the harness for the bench),
// drained, and net of what the idle poll sends meanwhile; --statements lists them by text after each level.
// Prints flows/s per flow kind and the p50/p95 latency of each call, side by side, and the server's own
// CPU time per flow: the serving process's user+system time over the level (Linux /proc; the sandboxes, the
// database and this driver are other processes, so their cost is not counted) divided by the completed flows. On
// PostgreSQL it then waits until the webhook worker's poll has done what the flows' orders left it (events fanned
// out, confirmation mails sent, no webhook delivery due) and prints the CPU per flow again with that work counted
// ("with its outbox drained"); the warm-up's outbox is drained before the idle CPU is read.
// With the server's Server-Timing headers it also prints where each call's time went, per stage (mean ms), and
// where the whole machine's CPU went per flow over the level (/proc/stat, and each process's counters): the server,
// its PostgreSQL (the postmaster and its backends), the sandboxes the server started, this driver, and the rest.
// They share the machine's CPUs, so the sum, not the server's part alone, bounds the flows a second.
// The agent's order webhooks (its profile's webhook_url) go to a receiver in this bench process, not to the demo
// agent's receiver in the served app: receiving them is the agent platform's work, as the PSP's is the sandbox's
// (--agent-webhooks=server sends them to the app, as the passes before the fifteenth measured).
// Figures only: nothing here asserts a speed (STYLE: benchmarks print).
// Usage: npm run bench:checkout [-- --db=pglite|postgres|both] [--rail=card|crypto|both] [--surface=rest,mcp,bridge]
//        [--statements] [--flows=<n per level>]
//        [--concurrency=1,8] [--smoke] [--build] [--cpu-prof=<dir>] [--volume[=orders,idempotency,products]]
//        [--agent-webhooks=bench|server] [--pg-socket]
// --pg-socket: the server connects to the harness's PostgreSQL through its Unix socket instead of TCP on 127.0.0.1.
// --volume measures twice on PostgreSQL: on the fresh database, then again after scripts/db-volume.ts filled it
// (default 1,000,000 orders, 1,000,000 idempotency records, 500,000 products), and prints both sizes side by side
// with their ratio (docs/performance.md, "Flat growth"). PGlite is measured once: the generator cannot reach the
// embedded database while the server holds it.
// --cpu-prof writes a V8 CPU profile of the server process (node --cpu-prof) into <dir> when it stops.
// An existing .next build is reused (serve.ts builds only when there is none): pass --build after code changes.
import { spawn, type ChildProcess } from "node:child_process";
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

import type { JWK } from "jose";
import pg from "pg";

import { withMandateKey, withOrderWebhook } from "../e2e/helpers/card-completion";
import { mandateTerms, type MandateCheckout } from "../lib/mandates/mandate-terms";
import { signCheckoutMandate } from "../lib/mandates/sign-checkout-mandate";
import { seedId } from "../prisma/seed/seed-ids";
import {
  callStats,
  cell,
  childrenOf,
  driveFlows,
  DRIVER_PART,
  flowBenchOptions,
  machineSummary,
  ownCpuMs,
  processCpuMs,
  processTreeCpuMs,
  type CpuParts,
  type MachineSplit,
} from "./bench/flow-driver";
import { findFreePort } from "./lib/free-port";
import { REPO_ROOT, SERVER_NODE_ARGS, serverEnv } from "./lib/paths";
import {
  linkSandboxBuyer,
  sandboxIntentMandate,
  signAndSubmit,
  type SandboxBuyer,
} from "./lib/sandbox-buyer";
import { startPostgres, type PostgresServer } from "./pg-harness";

const STORE = "summit-trail-outfitters";
/**
 * What a flow is: its rail and the surface the agent calls. The card flow runs over REST, over the store's MCP
 * (the same four calls as tools) and through the mounted bridge (create_checkout, update_checkout, then
 * confirm_purchase, which reads the checkout and completes it over the raw MCP itself); crypto over REST.
 */
const RAILS = ["card", "card-mcp", "card-bridge", "crypto"] as const;
type Rail = (typeof RAILS)[number];
const SURFACE_OF: Record<Rail, string> = {
  card: "rest",
  "card-mcp": "mcp",
  "card-bridge": "bridge",
  crypto: "rest",
};
/** The calls of each flow, in order (execute: the buyer's wallet on the Sui sandbox, not the service). */
const CALLS = {
  card: ["create", "update", "get", "complete"],
  "card-mcp": ["create", "update", "get", "complete"],
  "card-bridge": ["create", "update", "confirm"],
  crypto: ["create", "get", "update", "payment-intent", "execute", "complete"],
} as const satisfies Record<Rail, readonly string[]>;
const ALL_CALLS = ["create", "get", "update", "payment-intent", "execute", "complete", "confirm"] as const;
type Call = (typeof ALL_CALLS)[number];
type Samples = Record<Call, number[]>;
const noSamples = (): Samples => Object.fromEntries(ALL_CALLS.map((c) => [c, []])) as unknown as Samples;

const argv = process.argv.slice(2);
const { option, flowsPerLevel, levels, valid: levelsValid } = flowBenchOptions(argv);
const dbChoice = option("db") ?? "both";
const railChoice = option("rail") ?? "both";
/** rest, mcp, bridge: the surfaces the card flow runs on (crypto runs over REST). */
const surfaces = (option("surface") ?? "rest,mcp,bridge").split(",");
const rails: readonly Rail[] = RAILS.filter(
  (r) =>
    (railChoice === "both" || r.split("-")[0] === railChoice) &&
    (surfaces.includes(SURFACE_OF[r]) || (r === "crypto" && railChoice === "crypto")),
);
const cpuProfDir = option("cpu-prof");
/** The generator's arguments when --volume is given (its counts, when --volume=<orders>,<idempotency>,<products>). */
const volumeArgs = ((): string[] | null => {
  const raw = argv.includes("--volume") ? "" : option("volume");
  if (raw === undefined) return null;
  if (raw === "") return [];
  const [orders, idempotency, products] = raw.split(",");
  const args: string[] = [];
  for (const [flag, value] of [
    ["--orders", orders],
    ["--idempotency", idempotency],
    ["--products", products],
  ]) {
    if (value) args.push(flag!, value);
  }
  return args;
})();
const agentWebhooks = option("agent-webhooks") ?? "bench";
/** The server reaches PostgreSQL through its Unix socket instead of TCP (a database on the same host). */
const pgSocket = argv.includes("--pg-socket");
if (
  !["pglite", "postgres", "both"].includes(dbChoice) ||
  rails.length === 0 ||
  surfaces.some((surface) => !["rest", "mcp", "bridge"].includes(surface)) ||
  !levelsValid ||
  !["bench", "server"].includes(agentWebhooks)
) {
  console.error(
    "Usage: npm run bench:checkout [-- --db=pglite|postgres|both] [--rail=card|crypto|both] [--surface=rest,mcp,bridge] [--flows=<n>] [--concurrency=1,8] [--smoke] [--cpu-prof=<dir>] [--agent-webhooks=bench|server] [--pg-socket]",
  );
  process.exit(2);
}

type Server = {
  baseUrl: string;
  key: string;
  /** The Sui sandbox the server started (and funded the sandbox wallet on), from its console line. */
  suiUrl: string;
  /** What the admin CLI needs to reach this server's database (approve-authorization). */
  adminEnv: Record<string, string | undefined>;
  stop: () => Promise<void>;
  output: () => string;
  /** The serving process's CPU time so far (user + system, ms), or null where /proc cannot tell. */
  cpuMs: () => number | null;
  /** The CPU counters of everything on the machine that a flow makes work for: the server, the sandboxes it
   * started (its children), its PostgreSQL (when it has one), this driver. */
  cpuParts: CpuParts;
};

/** Starts scripts/serve.ts (migrate, seed, build if needed, serve) on a fresh database and waits until ready. */
const startServer = async (
  label: string,
  databaseUrl: string | undefined,
  build: boolean,
  databasePid?: number,
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
    RATE_LIMIT_BEARER: process.env.RATE_LIMIT_BEARER ?? "1000000",
    // the crypto flow's buyer is the sandbox wallet, linked over loopback CIMD: test mode, also on PostgreSQL
    OAUTH_TEST_MODE: "true",
  };
  if (cpuProfDir) {
    env.NODE_OPTIONS =
      `${env.NODE_OPTIONS ?? ""} --cpu-prof --cpu-prof-dir=${path.resolve(cpuProfDir)}`.trim();
  }
  delete env.DATABASE_URL;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  const child: ChildProcess = spawn(process.execPath, [...SERVER_NODE_ARGS, ...(build ? ["--build"] : [])], {
    cwd: REPO_ROOT,
    env: serverEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes("Ready on")) resolve();
      // the access lines of a long run: only the tail is ever shown
      if (output.length > 1_000_000) output = output.slice(-200_000);
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
  const suiUrl = /Sui sandbox \([^)]*\): (http:\/\/\S+)/.exec(output)?.[1];
  if (!suiUrl) throw new Error(`${label} server printed no Sui sandbox URL:\n${output.slice(-2000)}`);
  const adminEnv = databaseUrl
    ? { DATABASE_URL: databaseUrl, OAUTH_TEST_MODE: "true" }
    : { DATABASE_URL: undefined, PGLITE_DIR: env.PGLITE_DIR, OAUTH_TEST_MODE: "true" };
  // the serving process itself, started as `npm start` starts it (its children are the sandboxes)
  const pid = child.pid ?? null;
  const cpuMs = () => (pid === null ? null : processCpuMs(pid));
  const sandboxesMs = () =>
    pid === null ? null : childrenOf(pid).reduce((sum, child) => sum + (processTreeCpuMs(child) ?? 0), 0);
  const cpuParts: CpuParts = {
    server: cpuMs,
    ...(databasePid === undefined ? {} : { database: () => processTreeCpuMs(databasePid) }),
    "PSP and Sui sandboxes": sandboxesMs,
    [DRIVER_PART]: ownCpuMs,
  };
  return { baseUrl, key, suiUrl, adminEnv, stop, output: () => output, cpuMs, cpuParts };
};

/**
 * Order webhooks the benchmark's agent received (its profile's webhook_url, served below): receiving them is the
 * agent platform's work, so it is done in this process, not the server's, as the sandbox PSP runs in its own.
 */
let agentWebhooksReceived = 0;
/**
 * `--agent-webhooks=server` sends them to the demo agent's receiver in the served app instead (what the passes
 * before the fifteenth measured: each flow's two deliveries were then also received, through Next, by the server).
 */
const agentWebhooksToServer = agentWebhooks === "server";

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
  let body = "";
  const http = createServer((req, res) => {
    if (req.method === "POST" && req.url === "/order-webhooks") {
      // a delivery of an order event: accepted as the demo agent's receiver accepts it (204, nothing kept)
      req.resume();
      req.on("end", () => {
        agentWebhooksReceived++;
        res.writeHead(204).end();
      });
      return;
    }
    res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=3600" }).end(body);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const profile = withMandateKey(demo, agentKeys.publicJwk);
  body = JSON.stringify(
    agentWebhooksToServer ? profile : withOrderWebhook(profile, `${origin}/order-webhooks`),
  );
  agentProfileUrl = `${origin}/.well-known/ucp`;
  return () => http.close();
};

/** The crypto flow's buyer (its bearer goes ALONE: a key would win and the buyer would not be loaded). */
let buyer: SandboxBuyer | undefined;
/** The buyer's allowance for each agent (DECISIONS B20), signed once: the first prepare stores it. */
const allowances = new Map<string, Promise<string>>();
const allowanceOf = (clientId: string, currency: string): Promise<string> => {
  const key = `${clientId} ${currency}`;
  if (!allowances.has(key)) allowances.set(key, sandboxIntentMandate(clientId, STORE, currency));
  return allowances.get(key)!;
};

const headers = (server: Server, mutates: boolean, rail: Rail = "card"): Record<string, string> => ({
  "content-type": "application/json",
  "request-id": randomUUID(),
  "ucp-agent": `profile="${agentProfileUrl}"`,
  ...(rail === "crypto" ? { authorization: `Bearer ${buyer!.accessToken}` } : { "x-api-key": server.key }),
  ...(mutates ? { "idempotency-key": randomUUID() } : {}),
});

/** Top-ups for the bench's many crypto flows: one large USDC coin on the sandbox (its admin hook, test double). */
const topUpWallet = async (server: Server, address: string) => {
  const response = await fetch(`${server.suiUrl}/__admin/fund`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      address,
      coinType: "0xdba34672e30cb065b1f93e3ab55318768fd6fef66c15942c9f7cb846e2f900e7::usdc::USDC",
      balances: ["10000000000000"],
    }),
  });
  if (!response.ok) throw new Error(`Sui sandbox fund: ${response.status} ${await response.text()}`);
};

/** One wallet, one set of coin versions: prepare → sign → execute one at a time (see the header). */
let walletQueue: Promise<unknown> = Promise.resolve();
const withWallet = <T>(run: () => Promise<T>): Promise<T> => {
  const result = walletQueue.then(run);
  walletQueue = result.catch(() => undefined);
  return result;
};

/**
 * A business answer that the line ran out of stock: at c=8 another flow may take a variant's last unit between
 * this flow's update and its prepare or completion (nothing is charged, or it is paid back). The flow moves on.
 */
class OutOfStock extends Error {}

/**
 * The same race seen by the completion's own pricing: it answers `incomplete` with the line's out_of_stock message
 * rather than an error, and the flow moves on too. A card is not charged then; a crypto payment's transaction was
 * already executed on the chain, and what becomes of it is the crypto rail's business, not the bench's.
 */
const soldOutAtCompletion = (answer: Record<string, unknown>): boolean =>
  answer.status === "incomplete" && /out_of_stock|item_unavailable/.test(JSON.stringify(answer.messages));

/** Server-Timing stages summed per call (ms, and how many answers carried the header). */
type StageSums = Map<string, Map<string, number>>;
let stageSums: StageSums = new Map();
const noteServerTiming = (call: string, header: string | null) => {
  if (!header) return;
  const sums = stageSums.get(call) ?? new Map<string, number>();
  stageSums.set(call, sums);
  sums.set("#", (sums.get("#") ?? 0) + 1);
  for (const entry of header.split(",")) {
    const [name, ...params] = entry.trim().split(";");
    const dur = Number(/dur=([0-9.]+)/.exec(params.join(";"))?.[1]);
    if (name && Number.isFinite(dur)) sums.set(name, (sums.get(name) ?? 0) + dur);
  }
};

const timed = async (
  samples: Samples,
  call: Call,
  run: () => Promise<Response>,
): Promise<Record<string, unknown>> => {
  const started = performance.now();
  const res = await run();
  const body = (await res.json()) as Record<string, unknown>;
  samples[call].push(performance.now() - started);
  noteServerTiming(call, res.headers.get("server-timing"));
  if (res.status >= 300 || (body.ucp as { status?: string } | undefined)?.status === "error") {
    // the last units taken by another flow: at create (a message) or, racing at c=8, at completion (an
    // out_of_stock error, the payment refunded); either way the flow moves to another variant
    if (/out_of_stock|out of stock/.test(JSON.stringify(body.messages))) {
      throw new OutOfStock(JSON.stringify(body.messages));
    }
    throw new Error(`HTTP ${res.status}: ${JSON.stringify(body).slice(0, 500)}`);
  }
  return body;
};

/** In-stock variants of the demo store (its first products): completions take stock, so flows rotate over them. */
const pickVariants = async (server: Server): Promise<string[]> => {
  const found: string[] = [];
  // both rails' flows (card and crypto, 800 per database by default) take stock from this pool
  for (let i = 0; i < 240 && found.length < 120; i++) {
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
const flow = async (server: Server, pool: string[], samples: Samples, rail: Rail): Promise<void> => {
  for (;;) {
    const variantId = pool[Math.floor(Math.random() * pool.length)];
    if (!variantId) throw new Error("every demo variant in the pool ran out of stock");
    const run = { card: flowOn, "card-mcp": mcpFlowOn, "card-bridge": bridgeFlowOn, crypto: cryptoFlowOn }[
      rail
    ];
    const done = await run(server, variantId, samples).catch((error: unknown) => {
      if (error instanceof OutOfStock) return false;
      throw error;
    });
    if (done) return;
    pool.splice(pool.indexOf(variantId), 1);
  }
};

const cryptoFlowOn = async (server: Server, variantId: string, samples: Samples) => {
  const base = `${server.baseUrl}/s/${STORE}/checkout-sessions`;
  const created = await timed(samples, "create", () =>
    fetch(base, {
      method: "POST",
      headers: headers(server, true, "crypto"),
      body: JSON.stringify({ line_items: [{ item: { id: variantId }, quantity: 1 }] }),
    }),
  );
  const id = created.id as string;
  await timed(samples, "get", () => fetch(`${base}/${id}`, { headers: headers(server, false, "crypto") }));
  const updated = await timed(samples, "update", () =>
    fetch(`${base}/${id}`, {
      method: "PUT",
      headers: headers(server, true, "crypto"),
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
        payment: { instruments: [{ handler_id: "svc.crypto", selected: true }] },
      }),
    }),
  );
  if (updated.status !== "ready_for_complete") {
    const messages = JSON.stringify(updated.messages);
    if (/out_of_stock|item_unavailable/.test(messages)) return false;
    throw new Error(`update left blockers: ${messages}`);
  }
  // the buyer's allowance for the agent (DECISIONS B20), signed once and stored by the first prepare
  const allowance = await allowanceOf(buyer!.clientId, updated.currency as string);
  const digest = await withWallet(async () => {
    const prepared = (await timed(samples, "payment-intent", () =>
      fetch(`${base}/${id}/payment-intent`, {
        method: "POST",
        headers: headers(server, true, "crypto"),
        body: JSON.stringify({ buyer_address: buyer!.address, ap2: { intent_mandate: allowance } }),
      }),
    )) as { transaction: { bytes: string } };
    const started = performance.now();
    const executed = await signAndSubmit(server.suiUrl, prepared.transaction.bytes);
    samples.execute.push(performance.now() - started);
    return executed;
  });
  const mandate = await signCheckoutMandate(mandateTerms(updated as MandateCheckout, STORE), {
    privateJwk: agentKeys.privateJwk,
    kid: agentKeys.kid,
    exp: Math.floor(Date.now() / 1000) + 600,
  });
  const completed = await timed(samples, "complete", async () =>
    fetch(`${base}/${id}/complete`, {
      method: "POST",
      headers: headers(server, true, "crypto"),
      body: JSON.stringify({
        payment: {
          instruments: [
            { handler_id: "svc.crypto", selected: true, credential: { type: "token", token: digest } },
          ],
        },
        ap2: {
          checkout_mandate: mandate,
          intent_mandate: await sandboxIntentMandate(buyer!.clientId, STORE, updated.currency as string),
        },
      }),
    }),
  );
  if (soldOutAtCompletion(completed)) return false;
  if (completed.status !== "completed") {
    throw new Error(`crypto completion did not complete: ${JSON.stringify(completed).slice(0, 500)}`);
  }
  return true;
};

const flowOn = async (server: Server, variantId: string, samples: Samples) => {
  const base = `${server.baseUrl}/s/${STORE}/checkout-sessions`;
  const created = await timed(samples, "create", () =>
    fetch(base, {
      method: "POST",
      headers: headers(server, true),
      body: JSON.stringify({ line_items: [{ item: { id: variantId }, quantity: 1 }] }),
    }),
  );
  const id = created.id as string;
  const updated = await timed(samples, "update", () =>
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
  const read = await timed(samples, "get", () => fetch(`${base}/${id}`, { headers: headers(server, false) }));
  const mandate = await signCheckoutMandate(mandateTerms(read as MandateCheckout, STORE), {
    privateJwk: agentKeys.privateJwk,
    kid: agentKeys.kid,
    exp: Math.floor(Date.now() / 1000) + 600,
  });
  const completed = await timed(samples, "complete", () =>
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
  if (soldOutAtCompletion(completed)) return false;
  if (completed.status !== "completed") {
    throw new Error(
      `completion did not complete: status ${String(completed.status)}, messages ${JSON.stringify(completed.messages)}`,
    );
  }
  return true;
};

let rpcId = 0;

/**
 * A tools/call on one of the server's MCP endpoints (its store's, or the mounted bridge), timed like a REST call:
 * the tool's structured answer, or a thrown error for a JSON-RPC error or a tool error (out of stock moves on).
 */
const timedTool = async (
  server: Server,
  samples: Samples,
  call: Call,
  endpoint: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> => {
  const started = performance.now();
  const res = await fetch(`${server.baseUrl}${endpoint}`, {
    method: "POST",
    headers: { ...headers(server, false), accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++rpcId,
      method: "tools/call",
      params: { name: tool, arguments: args },
    }),
  });
  const body = (await res.json()) as {
    result?: { structuredContent?: Record<string, unknown>; isError?: boolean; content?: unknown };
    error?: unknown;
  };
  samples[call].push(performance.now() - started);
  noteServerTiming(call, res.headers.get("server-timing"));
  const answer = body.result?.structuredContent;
  const text = JSON.stringify(body).slice(0, 500);
  if (body.error || !answer || (body.result?.isError && !("ucp" in answer))) {
    if (/out_of_stock|out of stock|item_unavailable/.test(text)) throw new OutOfStock(text);
    throw new Error(`${tool}: HTTP ${res.status}: ${text}`);
  }
  if ((answer.ucp as { status?: string } | undefined)?.status === "error") {
    if (/out_of_stock|out of stock/.test(JSON.stringify(answer.messages))) throw new OutOfStock(text);
    throw new Error(`${tool}: ${text}`);
  }
  return answer;
};

const toolMeta = (mutates: boolean) => ({
  "ucp-agent": { profile: agentProfileUrl },
  ...(mutates ? { "idempotency-key": randomUUID() } : {}),
});

const BENCH_BUYER = { email: "bench@example.com", first_name: "Bench", last_name: "Mark" };

/** The card flow over the store's MCP: the REST flow's four calls as tools, the same payloads. */
const mcpFlowOn = async (server: Server, variantId: string, samples: Samples) => {
  const mcp = `/s/${STORE}/mcp`;
  const created = await timedTool(server, samples, "create", mcp, "create_checkout", {
    meta: toolMeta(true),
    checkout: { line_items: [{ item: { id: variantId }, quantity: 1 }] },
  });
  const id = created.id as string;
  const updated = await timedTool(server, samples, "update", mcp, "update_checkout", {
    meta: toolMeta(true),
    id,
    checkout: {
      buyer: BENCH_BUYER,
      shipping_address: {
        line1: "1 Main St",
        city: "Denver",
        region: "CO",
        postal_code: "80202",
        country: "US",
      },
      shipping_method_id: "standard",
      payment: { instruments: [{ handler_id: "svc.card", selected: true }] },
    },
  });
  if (updated.status !== "ready_for_complete") {
    const messages = JSON.stringify(updated.messages);
    if (/out_of_stock|item_unavailable/.test(messages)) return false;
    throw new Error(`update left blockers: ${messages}`);
  }
  const read = await timedTool(server, samples, "get", mcp, "get_checkout", { meta: toolMeta(false), id });
  const mandate = await signCheckoutMandate(mandateTerms(read as MandateCheckout, STORE), {
    privateJwk: agentKeys.privateJwk,
    kid: agentKeys.kid,
    exp: Math.floor(Date.now() / 1000) + 600,
  });
  const completed = await timedTool(server, samples, "complete", mcp, "complete_checkout", {
    meta: toolMeta(true),
    id,
    checkout: {
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
    },
  });
  if (soldOutAtCompletion(completed)) return false;
  if (completed.status !== "completed") {
    throw new Error(`MCP completion did not complete: ${JSON.stringify(completed).slice(0, 500)}`);
  }
  return true;
};

/**
 * The card flow through the mounted bridge (/bridge/mcp) with the platform key: its flat tools in major units;
 * confirm_purchase reads the checkout again, signs the AP2 mandate with the bridge's own key and completes it,
 * each over the store's raw MCP (the bridge talks to the service over HTTP only).
 */
const bridgeFlowOn = async (server: Server, variantId: string, samples: Samples) => {
  const created = await timedTool(server, samples, "create", "/bridge/mcp", "create_checkout", {
    store_slug: STORE,
    items: [{ id: variantId, quantity: 1 }],
    buyer: BENCH_BUYER,
    shipping_address: {
      street_address: "1 Main St",
      address_locality: "Denver",
      address_region: "CO",
      postal_code: "80202",
      address_country: "US",
    },
  });
  const id = created.id as string;
  const updated = await timedTool(server, samples, "update", "/bridge/mcp", "update_checkout", {
    store_slug: STORE,
    id,
    shipping_method_id: "standard",
  });
  if (updated.status !== "ready_for_complete") {
    const messages = JSON.stringify(updated.messages);
    if (/out_of_stock|item_unavailable/.test(messages)) return false;
    throw new Error(`bridge update left blockers: ${messages}`);
  }
  const confirmed = await timedTool(server, samples, "confirm", "/bridge/mcp", "confirm_purchase", {
    checkouts: [{ store_slug: STORE, checkout_id: id, terms_fingerprint: updated.terms_fingerprint }],
    payment_method: "card",
    pay_with: "pm_card_visa",
  });
  if (confirmed.status !== "completed") {
    if (/out_of_stock|item_unavailable/.test(JSON.stringify(confirmed))) return false;
    throw new Error(`bridge confirm_purchase did not complete: ${JSON.stringify(confirmed).slice(0, 500)}`);
  }
  return true;
};

type LevelResult = {
  flowsPerSec: number;
  /** The server's CPU time per completed flow (ms), null where it could not be read. */
  cpuPerFlow: number | null;
  /** The same, until the work the flows left to the background poll was done too (PostgreSQL only). */
  drained: { cpuPerFlow: number | null; seconds: number } | null;
  calls: Map<Call, { n: number; p50: number; p95: number }>;
  stages: StageSums;
  /** Where the whole machine's CPU went over the level, per flow (null where /proc cannot tell). */
  machine: MachineSplit | null;
  /** Statements a flow sent, drained (PostgreSQL only). */
  statements: StatementFigures;
};

/**
 * What the flows left to the server's background poll: its orders' events not yet fanned out, confirmation mails
 * not yet sent, webhook deliveries due. Read beside the server on PostgreSQL; null on PGlite, which the server holds.
 */
const outboxLeft = async (server: Server): Promise<number | null> => {
  const url = server.adminEnv.DATABASE_URL;
  if (!url) return null;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ left: number }>(`/* bench */
      SELECT (SELECT count(*) FROM order_events WHERE fanned_out_at IS NULL)
           + (SELECT count(*) FROM orders WHERE confirmation_mail = 'pending')
           + (SELECT count(*) FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
              WHERE d.state = 'pending' AND w.disabled_at IS NULL
                AND d.next_attempt_at <= (now() AT TIME ZONE 'UTC'))::int AS left`);
    return Number(rows[0]!.left);
  } finally {
    await client.end();
  }
};

/**
 * The statements the server has sent so far, as pg_stat_statements counts them on the harness's PostgreSQL (top
 * level, so a trigger's own statements are not counted again; the bench's own queries start with a bench comment
 * and are left out). Null on PGlite.
 */
const statementCount = async (server: Server): Promise<number | null> => {
  const url = server.adminEnv.DATABASE_URL;
  if (!url) return null;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ all: string }>(`/* bench */
      SELECT coalesce(sum(calls), 0) AS all FROM pg_stat_statements WHERE query NOT LIKE '/* bench */%'`);
    return Number(rows[0]!.all);
  } finally {
    await client.end();
  }
};

/** `--statements`: after each level, the statements a flow sent most often (per flow), to see what to save. */
const listStatements = argv.includes("--statements");
const printTopStatements = async (server: Server, rail: Rail, before: Map<string, number>, flows: number) => {
  const after = await statementTexts(server);
  const rows = [...after]
    .map(([query, calls]) => ({ query, perFlow: (calls - (before.get(query) ?? 0)) / flows }))
    .filter((r) => r.perFlow >= 0.05)
    .sort((a, b) => b.perFlow - a.perFlow);
  console.log(`${rail}: statements per flow by text (drained; ${rows.length} texts)`);
  for (const r of rows.slice(0, 40)) {
    console.log(`${r.perFlow.toFixed(2).padStart(7)}  ${r.query.replace(/\s+/g, " ").slice(0, 150)}`);
  }
};

/** Each statement text's calls so far (pg_stat_statements), empty on PGlite or without --statements. */
const statementTexts = async (server: Server): Promise<Map<string, number>> => {
  const url = server.adminEnv.DATABASE_URL;
  if (!url || !listStatements) return new Map();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ query: string; calls: string }>(`/* bench */
      SELECT query, sum(calls) AS calls FROM pg_stat_statements
      WHERE query NOT LIKE '/* bench */%' GROUP BY query`);
    return new Map(rows.map((r) => [r.query, Number(r.calls)]));
  } finally {
    await client.end();
  }
};

/** Statements per flow between two counts, and the seconds between them (to take out the idle poll's). */
type StatementFigures = { all: number; seconds: number } | null;
const perFlow = (
  before: number | null,
  after: number | null,
  seconds: number,
  flows: number,
): StatementFigures =>
  before !== null && after !== null ? { all: (after - before) / flows, seconds } : null;

/** Waits until the background poll has done what the flows left (at most 120 s); the seconds it took, or null. */
const drainOutbox = async (server: Server): Promise<number | null> => {
  const started = performance.now();
  for (;;) {
    const left = await outboxLeft(server);
    if (left === null) return null;
    const seconds = (performance.now() - started) / 1000;
    if (left === 0) return seconds;
    if (seconds > 120) throw new Error(`the server's outbox still holds ${left} items after 120 s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
};

const runLevel = async (
  server: Server,
  pool: string[],
  concurrency: number,
  rail: Rail,
  flows: number,
): Promise<LevelResult> => {
  const samples = noSamples();
  stageSums = new Map();
  const statementsBefore = await statementCount(server);
  const textsBefore = await statementTexts(server);
  const started = performance.now();
  const cpuBefore = server.cpuMs();
  const { flowsPerSec, cpuPerFlow, machine } = await driveFlows(
    concurrency,
    flows,
    () => flow(server, pool, samples, rail),
    server.cpuMs,
    { parts: server.cpuParts },
  );
  // the webhook worker's fan-out, deliveries and confirmation mails of these orders are part of what a flow costs
  const seconds = await drainOutbox(server);
  const cpuAfter = server.cpuMs();
  if (listStatements) await printTopStatements(server, rail, textsBefore, flows);
  const statements = perFlow(
    statementsBefore,
    await statementCount(server),
    (performance.now() - started) / 1000,
    flows,
  );
  const drained =
    seconds === null
      ? null
      : {
          seconds,
          cpuPerFlow: cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / flows,
        };
  return {
    flowsPerSec,
    cpuPerFlow,
    drained,
    calls: callStats(CALLS[rail], samples),
    stages: stageSums,
    machine,
    statements,
  };
};

const STAGE_COLUMNS = [
  "envelope",
  "store",
  "auth",
  "profile",
  "app",
  "db",
  "psp",
  "chain",
  "render",
  "total",
];

/** Mean ms per stage of each call, from the Server-Timing headers (absent on a server without them). */
const printStages = (rail: Rail, stages: StageSums) => {
  if (stages.size === 0) return;
  console.log(
    `${rail} Server-Timing means (ms): ${"call".padEnd(15)}${STAGE_COLUMNS.map((s) => s.padStart(9)).join("")}`,
  );
  for (const call of CALLS[rail]) {
    const sums = stages.get(call);
    if (!sums) continue;
    const n = sums.get("#") ?? 1;
    const row = STAGE_COLUMNS.map((s) => (sums.has(s) ? (sums.get(s)! / n).toFixed(2) : "–").padStart(9));
    console.log(`${" ".repeat(rail.length + 27)}${call.padEnd(15)}${row.join("")}`);
  }
};

type Sizes = { idlePerSecond: number | null; levels: Map<number, Partial<Record<Rail, LevelResult>>> };

/** Warm-up, the idle CPU, then every concurrency level: printed as they finish, and returned. */
const measureLevels = async (server: Server, pool: string[]): Promise<Sizes> => {
  // warm-up: compile routes, fill caches (agent profile, prepared statements)
  for (const rail of rails) for (let i = 0; i < 5; i++) await flow(server, pool, noSamples(), rail);
  await drainOutbox(server);
  // what the server spends with no request at all (its background loops: webhook worker, sweeps), so a level's
  // CPU per flow can be read net of it
  const idleStatementsBefore = await statementCount(server);
  const idleBefore = server.cpuMs();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const idleAfter = server.cpuMs();
  const idleStatementsAfter = await statementCount(server);
  const idleStatementsPerSecond =
    idleStatementsBefore !== null && idleStatementsAfter !== null
      ? (idleStatementsAfter - idleStatementsBefore) / 3
      : null;
  if (idleStatementsPerSecond !== null) {
    console.log(
      `statements while idle (the worker's poll, the sweeps): ${idleStatementsPerSecond.toFixed(1)}/s`,
    );
  }
  const idlePerSecond = idleBefore === null || idleAfter === null ? null : (idleAfter - idleBefore) / 3;
  if (idlePerSecond !== null) console.log(`server CPU while idle: ${idlePerSecond.toFixed(0)} ms/s`);
  const measured: Sizes = { idlePerSecond, levels: new Map() };
  for (const concurrency of levels) {
    const results = {} as Partial<Record<Rail, LevelResult>>;
    for (const rail of rails) {
      results[rail] = await runLevel(server, pool, concurrency, rail, flowsPerLevel).catch(
        (error: unknown) => {
          console.error(`Server output (last 2000 characters):\n${server.output().slice(-2000)}`);
          throw error;
        },
      );
    }
    measured.levels.set(concurrency, results);
    const summary = rails
      .map((rail) => {
        const r = results[rail]!;
        const cpu = r.cpuPerFlow === null ? "n/a" : `${r.cpuPerFlow.toFixed(1)} ms`;
        const net =
          r.cpuPerFlow === null || idlePerSecond === null
            ? ""
            : ` (${(r.cpuPerFlow - idlePerSecond / r.flowsPerSec).toFixed(1)} ms net of idle)`;
        const drained =
          r.drained?.cpuPerFlow == null
            ? ""
            : `, ${r.drained.cpuPerFlow.toFixed(1)} ms/flow with its outbox drained (${r.drained.seconds.toFixed(1)} s after${
                idlePerSecond === null
                  ? ""
                  : `; ${(r.drained.cpuPerFlow - (idlePerSecond * (flowsPerLevel / r.flowsPerSec + r.drained.seconds)) / flowsPerLevel).toFixed(1)} ms net of idle`
              })`;
        return `${rail} ${r.flowsPerSec.toFixed(1)} flows/s, server CPU ${cpu}/flow${net}${drained}`;
      })
      .join("; ");
    console.log(`\nc=${concurrency}: ${flowsPerLevel} flows each — ${summary}`);
    console.log(
      `call           ${rails.map((rail) => `${`${rail} p50`.padStart(17)} ${"p95".padStart(8)}`).join(" ")}`,
    );
    for (const call of ALL_CALLS) {
      if (!rails.some((rail) => (CALLS[rail] as readonly string[]).includes(call))) continue;
      console.log(
        `${call.padEnd(15)}${rails.map((rail) => `${" ".repeat(9)}${cell(results[rail]?.calls.get(call))}`).join("")}`,
      );
    }
    for (const rail of rails) {
      const st = results[rail]!.statements;
      if (!st) continue;
      const idle = ((idleStatementsPerSecond ?? 0) * st.seconds) / flowsPerLevel;
      console.log(
        `${rail} statements per flow (drained): ${st.all.toFixed(1)}, ${(st.all - idle).toFixed(1)} net of the idle poll`,
      );
    }
    for (const rail of rails) printStages(rail, results[rail]!.stages);
    for (const rail of rails) {
      const machine = machineSummary(results[rail]!.machine);
      if (machine) console.log(`${rail} ${machine}`);
    }
  }
  return measured;
};

/** Runs scripts/db-volume.ts against the bench's database (its progress shows); returns the seconds it took. */
const fillWithVolume = async (databaseUrl: string): Promise<number> => {
  console.log(`\n▶ npm run db:volume ${volumeArgs!.join(" ")}`);
  const started = performance.now();
  const child = spawn(
    path.join(REPO_ROOT, "node_modules/.bin/tsx"),
    ["scripts/db-volume.ts", ...volumeArgs!],
    { cwd: REPO_ROOT, env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: "inherit" },
  );
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`db:volume failed (exit ${code})`);
  return (performance.now() - started) / 1000;
};

const ratio = (after: number | null | undefined, before: number | null | undefined): string =>
  after == null || before == null || before === 0 ? "–" : `${(after / before).toFixed(2)}×`;

/** Both sizes side by side: the same figures and after / before (1.00× = flat; the issue asks within 20 %). */
const printFlatGrowth = (fresh: Sizes, filled: Sizes, generationSeconds: number) => {
  console.log(`\nFlat growth (PostgreSQL; volume generated in ${generationSeconds.toFixed(0)} s):`);
  console.log(
    `server CPU while idle: ${fresh.idlePerSecond?.toFixed(0) ?? "n/a"} → ${filled.idlePerSecond?.toFixed(0) ?? "n/a"} ms/s`,
  );
  const rows: Record<string, Record<string, string>> = {};
  for (const concurrency of levels) {
    for (const rail of rails) {
      const a = fresh.levels.get(concurrency)?.[rail];
      const b = filled.levels.get(concurrency)?.[rail];
      if (!a || !b) continue;
      const tag = `${rail} c=${concurrency}`;
      rows[`${tag} flows/s`] = {
        fresh: a.flowsPerSec.toFixed(1),
        volume: b.flowsPerSec.toFixed(1),
        ratio: ratio(b.flowsPerSec, a.flowsPerSec),
      };
      rows[`${tag} CPU ms/flow`] = {
        fresh: a.cpuPerFlow?.toFixed(1) ?? "n/a",
        volume: b.cpuPerFlow?.toFixed(1) ?? "n/a",
        ratio: ratio(b.cpuPerFlow, a.cpuPerFlow),
      };
      for (const call of CALLS[rail]) {
        const x = a.calls.get(call);
        const y = b.calls.get(call);
        if (!x || !y) continue;
        rows[`${tag} ${call} p50/p95 ms`] = {
          fresh: `${x.p50.toFixed(1)} / ${x.p95.toFixed(1)}`,
          volume: `${y.p50.toFixed(1)} / ${y.p95.toFixed(1)}`,
          ratio: `${ratio(y.p50, x.p50)} / ${ratio(y.p95, x.p95)}`,
        };
      }
    }
  }
  console.table(rows);
};

let buildNext = argv.includes("--build");

const bench = async (label: string, databaseUrl?: string, databasePid?: number) => {
  console.log(`\n=== ${label} ===`);
  const server = await startServer(label, databaseUrl, buildNext, databasePid);
  buildNext = false; // one build serves both databases
  const stopProfile = await serveAgentProfile(server);
  try {
    const pool = await pickVariants(server);
    if (rails.includes("crypto")) {
      buyer = await linkSandboxBuyer(server.baseUrl, server.adminEnv);
      await topUpWallet(server, buyer.address);
    }
    const fresh = await measureLevels(server, pool);
    if (volumeArgs && databaseUrl) {
      const generation = await fillWithVolume(databaseUrl);
      console.log(`\n--- ${label}, after the volume generator (${generation.toFixed(0)} s) ---`);
      const filled = await measureLevels(server, await pickVariants(server));
      printFlatGrowth(fresh, filled, generation);
    } else if (volumeArgs) {
      console.log("(--volume: not on PGlite — the generator cannot open the database the server holds)");
    }
    if (!agentWebhooksToServer) {
      console.log(`order webhooks received by the bench's agent (not the server): ${agentWebhooksReceived}`);
    }
  } finally {
    stopProfile();
    await server.stop();
  }
};

let postgres: PostgresServer | undefined;
try {
  console.log(
    `Checkout bench: ${flowsPerLevel} flows per flow kind and concurrency level, store ${STORE}; card (REST, and card-mcp over the store's MCP): create → update → get → complete; card-bridge (the mounted bridge): create → update → confirm_purchase; crypto: create → get → update → payment-intent → execute (sandbox) → complete`,
  );
  if (dbChoice !== "postgres") await bench("PGlite (embedded)");
  if (dbChoice !== "pglite") {
    postgres = await startPostgres({ statementStats: true });
    await bench(
      `PostgreSQL 15 (scripts/pg-harness.ts, over ${pgSocket ? "its Unix socket" : "TCP on 127.0.0.1"})`,
      pgSocket ? postgres.socketUrl : postgres.url,
      postgres.pid,
    );
  }
} finally {
  await postgres?.stop();
}
