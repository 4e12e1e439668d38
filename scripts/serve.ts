// `npm start`: everything a fresh checkout needs to serve — migrate, seed the demo data when the database is
// empty (outside production, or with SEED_DEMO=1), build when there is no build, then serve on PORT with the URLs
// of the surfaces and where the demo platform key is kept.
// `npm run serve` skips the set-up (migrations and seed) and only serves. The set-up step runs only when a few
// SELECTs find something missing (scripts/lib/setup-plan.ts), so a start on an existing database is quick.
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import path from "node:path";

import { demoKeyFile } from "@/lib/config/constants";
import { claimEmbeddedDatabase, closeSharedDb, keepOpenForServer, openAdapter } from "@/lib/config/database";
import { getBaseUrl, getEnv, isOAuthTestMode, parseEnv, privateOutboundAllowed } from "@/lib/config/env";
import { runShutdownHooks } from "@/lib/config/shutdown";
import { errorBody } from "@/lib/core/envelope";
import { AppError } from "@/lib/core/errors";
import { errorText, logger } from "@/lib/core/log";
import { DEV_KEYRING } from "@/lib/credentials/secret-box";
import { admitRawRequest, rawRequestIdLine } from "@/lib/http/raw-request";
import { pagePathForLog, requestScope } from "@/lib/ops/request-scope";
import { SURFACES } from "@/lib/surfaces";

import { adminSocketPath, serveAdminSocket } from "./lib/admin-socket";
import { directRoutes } from "./lib/direct-routes";
import { closeIdleConnectionsAfterReads } from "./lib/keep-alive";
import { runStep } from "./lib/run-step";
import { sameFilesPrefix, serverFilePath, writeServerFile } from "./lib/server-file";
import { committedMigrations, readDemoKey, setUpIfNeeded } from "./lib/setup-plan";
import { SANDBOXES, startSandbox } from "./lib/start-sandbox";

const ROOT = path.resolve(import.meta.dirname, "..");
/** How long shutdown waits for requests under way, then for the worker's step (each). */
const SHUTDOWN_GRACE_MS = 10_000;
/** Node's default; larger header blocks get a 431 with the UCP error envelope (issue #2 "Bad input"). */
const MAX_HEADER_BYTES = 16 * 1024;

const args = new Set(process.argv.slice(2));

/** A set-up step as a child process (scripts/lib/run-step.ts: its output relayed, a line while it is quiet). */
const step = async (label: string, command: string, commandArgs: string[]): Promise<void> => {
  // Telemetry off: these machines (and many operators' servers) have no outbound internet.
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
  const status = await runStep(label, command, commandArgs, { cwd: ROOT, env });
  if (status !== 0) process.exit(typeof status === "number" ? status : 1);
};

/** Where start-up time goes, printed with "Ready on" (`npm run bench:startup` collects it). */
const stages: string[] = [];
let stageStarted = 0;
const stageDone = (name: string): void => {
  const now = performance.now();
  stages.push(`${name} ${((now - stageStarted) / 1000).toFixed(2)} s`);
  stageStarted = now;
};

/**
 * An answer that closes its connection while the request's body is still arriving (a 413 for an oversized body):
 * Node closes the socket as soon as the answer is written, and closing a socket with unread input makes the kernel
 * send a reset, which can throw the answer away at the client before it is read. So the socket half-closes (the
 * answer and FIN go out), goes on reading and discarding the body for a moment, then closes (a lingering close).
 */
const LINGER_MS = 1_000;
const latestRequest = new WeakMap<Socket, IncomingMessage>();
const lingerOnEarlyClose = (req: IncomingMessage): void => {
  const socket = req.socket;
  const known = latestRequest.has(socket);
  latestRequest.set(socket, req);
  if (known) return;
  const destroySoon = socket.destroySoon.bind(socket);
  socket.destroySoon = () => {
    if (latestRequest.get(socket)?.complete !== false) {
      destroySoon();
      return;
    }
    socket.end();
    socket.on("data", () => undefined);
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  };
};

/** A raw HTTP error for requests Node rejects before Next sees them (oversized or malformed headers). */
const rejectClient = (error: NodeJS.ErrnoException, socket: Socket): void => {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === "HPE_HEADER_OVERFLOW";
  const appError = tooLarge
    ? new AppError("headers_too_large", `Request headers exceed ${MAX_HEADER_BYTES} bytes`)
    : new AppError("invalid_request", "Malformed HTTP request");
  const status = appError.spec.httpStatus;
  const body = JSON.stringify(errorBody(appError));
  const requestIdLine = rawRequestIdLine(error);
  // answered before any route: the access line the prelude would have written
  logger().info(
    { kind: "raw", status, request_id: /^Request-Id: (.*)\r\n$/.exec(requestIdLine)?.[1] ?? null },
    "request",
  );
  socket.end(
    `HTTP/1.1 ${status} ${tooLarge ? "Request Header Fields Too Large" : "Bad Request"}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Content-Type-Options: nosniff\r\n${requestIdLine}Connection: close\r\n\r\n${body}`,
  );
};

const main = async (): Promise<void> => {
  const env = getEnv();
  // Next sets NODE_ENV=production for the server it runs, whatever the operator chose. The deployment is what the
  // operator chose: a plain `npm start` (the embedded demo, a developer's machine) lets test-mode stores reach
  // local agents and webhook receivers as before; NODE_ENV=production keeps them public-only unless
  // OUTBOUND_ALLOW_PRIVATE=1 says otherwise.
  if (env.NODE_ENV !== "production" && process.env.OUTBOUND_ALLOW_PRIVATE === undefined) {
    process.env.OUTBOUND_ALLOW_PRIVATE = "1";
  }
  // likewise the store secrets: outside the operator's production, the public development keyring (secret-box.ts)
  if (env.NODE_ENV !== "production" && process.env.STORE_SECRETS_KEY === undefined) {
    process.env.STORE_SECRETS_KEY = DEV_KEYRING;
  }
  const tsx = path.join(ROOT, "node_modules/.bin/tsx");
  stageDone("boot");
  // Test-mode stores pay through the provider sandboxes (sandbox/stripe, sandbox/sui), separate processes started
  // together here unless their URL variable names one already. In test mode (the sandbox wallet exists only there)
  // the Sui one funds the demo's test wallet, so a crypto purchase works right away. They boot while this process
  // checks the database; Next starts once their URLs are set (the app reads them when it starts).
  const prime = isOAuthTestMode();
  const sandboxesStarting = Promise.all(
    SANDBOXES.map((spec) => startSandbox(tsx, ROOT, spec, process.env, { prime, inProcessLoader: true })),
  );
  // a sandbox failing while set-up runs is reported where it is awaited, not as an unhandled rejection
  sandboxesStarting.catch(() => undefined);
  if (!args.has("--no-setup")) {
    const production = env.NODE_ENV === "production";
    await setUpIfNeeded({
      open: () => openAdapter(),
      inputs: {
        committed: committedMigrations(path.join(ROOT, "prisma/migrations")),
        production,
        seedDemo: env.SEED_DEMO ? env.SEED_DEMO === "1" : !production,
        demoKey: production ? null : readDemoKey(demoKeyFile()),
      },
      runSetup: (missing) =>
        step(`Set-up: ${missing.join("; ")}`, tsx, ["--conditions=react-server", "scripts/setup.ts"]),
      keep: keepOpenForServer,
      log: (line) => console.log(line.startsWith("Set-up") ? `\n▶ ${line}` : line),
    });
    stageDone("set-up");
  }
  if (args.has("--build") || !existsSync(path.join(ROOT, ".next/BUILD_ID"))) {
    // a first build takes minutes on a small machine: say so before Next's first line, which then sits a while
    console.log(
      "\nNo build yet (.next/BUILD_ID): building once; this takes a few minutes on a small machine.",
    );
    await step("Build (next build)", path.join(ROOT, "node_modules/.bin/next"), ["build"]);
    stageDone("build");
  }

  claimEmbeddedDatabase(); // after set-up (its own process), before anything of this one opens the dir
  // the admin CLI cannot open a data dir this process holds: it sends its commands here instead
  const embedded = !env.DATABASE_URL && !env.PGLITE_DIR.startsWith("memory://");
  const adminSocket = embedded ? await serveAdminSocket(adminSocketPath(env.PGLITE_DIR)) : null;
  const sandboxes = await sandboxesStarting;
  stageDone("sandboxes");
  const host = process.env.HOST ?? "127.0.0.1";
  // loaded here, not at the top: the sandboxes' processes boot while this one loads Next (~0.6 s of CPU)
  const { default: next } = await import("next");
  const app = next({ dev: false, dir: ROOT, hostname: host, port: env.PORT });
  await app.prepare();
  stageDone("next");
  // Next has set NODE_ENV by now (production unless the operator chose otherwise): the policy requests will see.
  const served = parseEnv(process.env);
  const outbound = privateOutboundAllowed(served)
    ? `private and loopback targets allowed for test-mode stores (${served.OUTBOUND_ALLOW_PRIVATE ? `OUTBOUND_ALLOW_PRIVATE=${served.OUTBOUND_ALLOW_PRIVATE}` : `NODE_ENV=${served.NODE_ENV}`})`
    : `public https targets only (NODE_ENV=${served.NODE_ENV}; OUTBOUND_ALLOW_PRIVATE=1 allows private ones)`;
  const handle = app.getRequestHandler();
  // the store REST routes, the store, global and bridge MCP and the Stripe webhook skip Next's request handling
  // (scripts/lib/direct-routes.ts); the URL their Request carries is built as Next builds it, from the host and
  // port it serves on
  const answerDirect = directRoutes(ROOT, { host, port: env.PORT });
  const route = (req: IncomingMessage, res: ServerResponse): Promise<unknown> => {
    const direct = env.DIRECT_ROUTES === "0" ? false : answerDirect(req, res);
    return direct === false ? handle(req, res) : direct.then((done) => (done ? undefined : handle(req, res)));
  };
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (req, res) => {
    lingerOnEarlyClose(req);
    if (!admitRawRequest(req, res)) {
      // answered before any route (a target that does not decode): the access line the prelude would have written
      const requestId = res.getHeader("request-id");
      logger().info(
        {
          kind: "raw",
          method: req.method,
          status: res.statusCode,
          request_id: typeof requestId === "string" ? requestId : null,
        },
        "request",
      );
      return;
    }
    // pages and what no route handler answers get their access line here (route handlers write their own)
    const scope = { routed: false };
    const started = performance.now();
    res.on("finish", () => {
      if (scope.routed) return;
      logger().info(
        {
          kind: "page",
          method: req.method,
          route: pagePathForLog(req.url ?? "/"),
          status: res.statusCode,
          duration_ms: Math.round((performance.now() - started) * 100) / 100,
        },
        "request",
      );
    });
    requestScope
      .run(scope, () => route(req, res))
      .catch((error: unknown) => {
        logger().error(
          { stack: error instanceof Error && error.stack ? errorText(error.stack) : undefined },
          `request handler: ${errorText(error)}`,
        );
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify(errorBody(new AppError("internal_error", "Internal error"))));
      });
  });
  server.on("clientError", rejectClient);
  closeIdleConnectionsAfterReads(server);
  // requests under way, so shutdown can wait for them (a load balancer stops sending before it signals us)
  let inFlight = 0;
  let drained: (() => void) | null = null;
  server.on("request", (_req, res) => {
    inFlight += 1;
    res.on("close", () => {
      inFlight -= 1;
      if (inFlight === 0) drained?.();
    });
  });

  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) {
      // the operator (or the orchestrator, after its grace period) insists: no more waiting, and an exit status
      // that says the drain did not finish (128 + the signal's number, as a shell reports a killed process)
      logger().warn(
        { signal, in_flight: inFlight },
        `${signal} again: exiting now, ${inFlight} request(s) cut short`,
      );
      process.exit(128 + (signal === "SIGINT" ? 2 : 15));
    }
    stopping = true;
    logger().info(
      { signal, in_flight: inFlight },
      `${signal}: closing (no new connections; draining ${inFlight} request(s), at most ${SHUTDOWN_GRACE_MS} ms)`,
    );
    // no new connections; idle keep-alive sockets close now, busy ones after their response
    server.close();
    server.closeIdleConnections();
    adminSocket?.close();
    if (inFlight > 0) {
      await Promise.race([
        new Promise<void>((resolve) => (drained = resolve)),
        new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref()),
      ]);
    }
    server.closeAllConnections();
    const { stopped, problems } = await runShutdownHooks(SHUTDOWN_GRACE_MS);
    for (const name of stopped) logger().info(`stopped: ${name}`);
    for (const problem of problems) logger().error(`shutdown: ${problem}`);
    for (const child of sandboxes) child?.kill("SIGTERM");
    await closeSharedDb().catch((error: unknown) =>
      logger().error(`shutdown: database: ${errorText(error)}`),
    );
    logger().info({ cut_short: inFlight }, `stopped (${inFlight} request(s) cut short)`);
    process.exit(0);
  };
  // a failure while stopping is logged and ends the process, never an unhandled rejection's stack
  const onSignal = (signal: NodeJS.Signals) =>
    void shutdown(signal).catch((error: unknown) => {
      logger().error(`shutdown failed: ${errorText(error)}`);
      process.exit(1);
    });
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  server.listen(env.PORT, host, () => {
    const base = getBaseUrl();
    console.log(`\nAgent Commerce Service — UCP 2026-04-08`);
    console.log(
      `Database: ${env.DATABASE_URL ? "PostgreSQL (DATABASE_URL)" : `PGlite at ${env.PGLITE_DIR}`}`,
    );
    console.log("\nSurfaces:");
    for (const s of SURFACES) console.log(`  ${`${base}${s.path}`.padEnd(58)} ${s.transport}`);
    console.log(`\nOutbound fetches (agent profiles, CIMD, webhooks): ${outbound}`);
    if (adminSocket)
      console.log(`Admin CLI (npm run admin -- …) runs its commands in this server while it serves`);
    // what the examples read to find this server and its sandboxes (whose ports change on every start)
    const serverFile = serverFilePath();
    const sandboxUrls = SANDBOXES.map((s) => [s.envVar, process.env[s.envVar]] as const);
    try {
      writeServerFile(serverFile, {
        base_url: base,
        sandboxes: Object.fromEntries(sandboxUrls.filter((entry): entry is [string, string] => !!entry[1])),
      });
    } catch (error) {
      // a convenience for the examples: a folder it cannot write to is worth a line, not a failed start
      console.error(`Could not write ${serverFile} (the examples then need BASE_URL): ${errorText(error)}`);
    }
    stageDone("listen");
    console.log(`\nStart-up: ${(performance.now() / 1000).toFixed(2)} s (${stages.join(", ")})`);
    // The summary a first run ends on: where to go next. Never the key itself (set-up printed it once, when it
    // created it, and logs outlive terminals): its file and the command that prints it, with the variables
    // another shell needs to find this server's files when they are not the default ones.
    const relative = (file: string) => {
      const inside = path.relative(process.cwd(), file);
      return inside && !inside.startsWith("..") && !path.isAbsolute(inside) ? inside : file;
    };
    const prefix = sameFilesPrefix();
    console.log(`Ready on http://${host}:${env.PORT}`);
    console.log(`  Merchant admin:     ${base}/admin`);
    console.log(`  Agent developers:   ${base}/developers`);
    const hasDemoKey = existsSync(demoKeyFile());
    if (hasDemoKey) {
      console.log(
        `  Demo platform key:  in ${relative(demoKeyFile())} (X-API-Key); print it with: ${prefix}npm run -s demo-key`,
      );
    }
    console.log(
      `  Examples find this server and its sandboxes through ${relative(serverFile)}${hasDemoKey ? ":" : ""}`,
    );
    if (hasDemoKey)
      console.log(`    ${prefix}API_KEY=$(${prefix}npm run -s demo-key) npx tsx examples/agent-rest/main.ts`);
  });
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
