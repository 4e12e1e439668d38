// `npm run conformance:serve -- --data-dir=<fresh dir> [--port=8182] [--host=127.0.0.1] --simulation-secret=<s>`:
// stands up the conformance store (docs/conformance.md) for the official UCP conformance suite — a test-mode
// store seeded with the suite's flower shop on a fresh embedded database in <dir>, in conformance mode — and serves
// its route handlers until interrupted. Refused under NODE_ENV=production and on a data dir that is not empty: it
// never touches a database that holds anything else.
//
// It serves the app's route handlers directly (scripts/lib/route-files.ts), without a Next build: a conformance
// run reads profiles and calls the REST API, all route handlers, never a page. The Stripe sandbox runs beside it
// as with `npm start` (test-mode card payments), the order-webhook worker and the payment reconciliation in it.
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");

const fail = (message: string): never => {
  console.error(`conformance:serve: ${message}`);
  process.exit(2);
};

const args = new Map(
  process.argv.slice(2).map((arg) => {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match) fail(`unknown argument ${arg} (use --data-dir=, --port=, --host=, --simulation-secret=)`);
    return [match![1]!, match![2] ?? ""] as const;
  }),
);
for (const name of args.keys()) {
  if (!["data-dir", "port", "host", "simulation-secret"].includes(name)) fail(`unknown option --${name}`);
}

if (process.env.NODE_ENV === "production")
  fail("refused under NODE_ENV=production: the conformance store is a test store");
const dataDir = args.get("data-dir") || fail("--data-dir=<a new or empty directory> is required");
const dir = path.resolve(dataDir);
if (existsSync(dir) && readdirSync(dir).length > 0) {
  fail(`${dir} is not empty: the conformance store is seeded only on a fresh data dir`);
}
const port = Number(args.get("port") || "8182");
if (!Number.isInteger(port) || port < 1 || port > 65_535) fail("--port must be a TCP port number");
const host = args.get("host") || "127.0.0.1";
const simulationSecret =
  args.get("simulation-secret") || fail("--simulation-secret=<at least 8 characters> is required");
if (simulationSecret.length < 8) fail("--simulation-secret must be at least 8 characters");

// the environment every module reads once, set before any of them loads
mkdirSync(dir, { recursive: true });
delete process.env.DATABASE_URL;
process.env.PGLITE_DIR = dir;
process.env.PORT = String(port);
process.env.BASE_URL = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
// the suite's agent profile and webhook receiver are on localhost (DECISIONS B10: test-mode stores only)
process.env.OUTBOUND_ALLOW_PRIVATE = "1";

const main = async (): Promise<void> => {
  const { DEV_KEYRING } = await import("@/lib/credentials/secret-box");
  process.env.STORE_SECRETS_KEY ??= DEV_KEYRING;
  const { SANDBOXES, startSandbox } = await import("./lib/start-sandbox");
  const stripe = SANDBOXES.find((s) => s.envVar === "STRIPE_SANDBOX_URL")!;
  const sandbox = await startSandbox(path.join(ROOT, "node_modules/.bin/tsx"), ROOT, stripe, process.env, {
    prime: false,
    inProcessLoader: true,
  });

  const { getDbHandle, closeDb } = await import("@/lib/config/db");
  const { applyMigrations } = await import("./db/migrate-engine");
  const { handle } = await getDbHandle();
  const { applied } = await applyMigrations(handle.factory, { log: () => undefined });
  console.log(`Database: PGlite at ${dir} (${applied.length} migrations applied)`);

  const { seedConformanceStore } = await import("@/lib/conformance/seed");
  const { enableConformanceMode } = await import("@/lib/conformance/mode");
  const seeded = await seedConformanceStore();
  enableConformanceMode({ storeSlug: seeded.store.slug, platformKey: seeded.platformKey, simulationSecret });

  const { enableSandboxWebhooks } = await import("@/lib/payments/card/sandbox-webhooks");
  enableSandboxWebhooks();
  const { startWebhookWorker } = await import("@/lib/webhooks/worker");
  const { reconcileCardPayments, RECONCILE_INTERVAL_MS } =
    await import("@/lib/checkout/completion/reconcile-payments");
  const stopWorker = startWebhookWorker({
    periodic: [
      { name: "payment reconciliation", everyMs: RECONCILE_INTERVAL_MS, run: () => reconcileCardPayments() },
    ],
  });

  const { routeFiles } = await import("./lib/route-files");
  const { webRequestOf } = await import("./lib/direct-routes");
  const { errorBody } = await import("@/lib/core/envelope");
  const { AppError } = await import("@/lib/core/errors");
  const { errorText } = await import("@/lib/core/log");
  const findRoute = routeFiles(path.join(ROOT, "app"));

  const server = createServer((req, res) => {
    const answer = async () => {
      const pathname = new URL(req.url ?? "/", "http://x").pathname;
      const found = await findRoute(req.method ?? "GET", pathname);
      const response = found?.handler
        ? await found.handler(webRequestOf(req, { host, port }), { params: Promise.resolve(found.params) })
        : new Response(
            JSON.stringify(errorBody(new AppError("route_not_found", `No route for ${pathname}`))),
            {
              status: 404,
              headers: { "content-type": "application/json" },
            },
          );
      const body = Buffer.from(await response.arrayBuffer());
      const headers: Record<string, string | string[]> = {};
      response.headers.forEach((value, name) => {
        if (name !== "content-encoding" && name !== "transfer-encoding") headers[name] = value;
      });
      const cookies = response.headers.getSetCookie();
      if (cookies.length > 0) headers["set-cookie"] = cookies;
      headers["content-length"] = String(body.length);
      res.writeHead(response.status, headers);
      res.end(body);
    };
    answer().catch((error: unknown) => {
      console.error(`request ${req.method} ${req.url}: ${errorText(error)}`);
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify(errorBody(new AppError("internal_error", "Internal error"))));
    });
  });

  const stop = async () => {
    server.close();
    server.closeAllConnections();
    await stopWorker();
    sandbox?.kill("SIGTERM");
    await closeDb().catch(() => undefined);
    process.exit(0);
  };
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());

  server.listen(port, host, () => {
    const base = `${process.env.BASE_URL}/s/${seeded.store.slug}/conformance`;
    console.log(`\nConformance store "${seeded.store.slug}" in conformance mode (test mode, Stripe sandbox)`);
    console.log(`  Suite --server_url:        ${base}`);
    console.log(`  Suite --simulation_secret: the one given with --simulation-secret`);
    console.log(
      `  Store profile (current):   ${process.env.BASE_URL}/s/${seeded.store.slug}/.well-known/ucp`,
    );
    console.log(`Ready on ${process.env.BASE_URL}`);
  });
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
