import { AsyncLocalStorage } from "node:async_hooks";
import diagnostics from "node:diagnostics_channel";

import { getEnv } from "@/lib/config/env";
import { onSqlStatement } from "@/lib/config/sql-observer";

// The Server-Timing header (W3C Server Timing) on every answer of the API surfaces: where a request spent its
// time, for agents and operators, kept in production. The request prelude (lib/http/prelude.ts) opens a scope per
// request; code on the request's path adds to a stage. Stages (docs/performance.md):
//   envelope  request headers (Request-Id, UCP-Agent, Idempotency-Key) and body read and decoded
//   store     the store of /s/<slug>/ resolved
//   auth      the caller's credential checked (API key, bearer, HTTP message signature)
//   profile   the agent's profile fetched (or read from cache) and the version negotiated
//   app       the operation itself (validation, rules, database, providers)
//   db        SQL statements, summed (inside app and the others; desc = how many)
//   psp       calls to the card provider (Stripe or its sandbox), summed
//   chain     calls to the Sui fullnode (or its sandbox), summed
//   render    the answer serialised
//   total     the whole request inside the prelude
// Stages only appear when the request spent time in them. Durations are in milliseconds (performance.now()).

export const STAGES = [
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
] as const;
export type Stage = (typeof STAGES)[number];

type Timing = { started: number; ms: Map<Stage, number>; count: Map<Stage, number> };

// On globalThis: Next's bundled copies of this module and the server's must share one scope.
const SCOPE = Symbol.for("agent-commerce-service.server-timing");
const scope = ((globalThis as { [SCOPE]?: AsyncLocalStorage<Timing> })[SCOPE] ??=
  new AsyncLocalStorage<Timing>());

/** Runs `run` in a fresh timing scope (the prelude, once per request). */
export const withServerTiming = <T>(run: () => Promise<T>): Promise<T> =>
  scope.run({ started: performance.now(), ms: new Map(), count: new Map() }, run);

/** Adds `ms` (and one event) to a stage of the current request, if there is one. */
export const addStage = (stage: Stage, ms: number, events = 1): void => {
  const timing = scope.getStore();
  if (!timing) return;
  timing.ms.set(stage, (timing.ms.get(stage) ?? 0) + ms);
  timing.count.set(stage, (timing.count.get(stage) ?? 0) + events);
};

/** Runs `run` and adds its duration (success or failure) to `stage`. */
export const timeStage = async <T>(stage: Stage, run: () => Promise<T>): Promise<T> => {
  const started = performance.now();
  try {
    return await run();
  } finally {
    addStage(stage, performance.now() - started);
  }
};

/** Synchronous twin of timeStage. */
export const timeStageSync = <T>(stage: Stage, run: () => T): T => {
  const started = performance.now();
  try {
    return run();
  } finally {
    addStage(stage, performance.now() - started);
  }
};

const COUNTED: ReadonlySet<Stage> = new Set(["db", "psp", "chain"]);

/** The Server-Timing value of the current request so far (`total` up to now), or null outside a scope. */
export const serverTimingValue = (): string | null => {
  const timing = scope.getStore();
  if (!timing) return null;
  const parts: string[] = [];
  for (const stage of STAGES) {
    if (stage === "total") continue;
    const ms = timing.ms.get(stage);
    if (ms === undefined) continue;
    const count = COUNTED.has(stage) ? `;desc="${timing.count.get(stage) ?? 0}"` : "";
    parts.push(`${stage};dur=${ms.toFixed(2)}${count}`);
  }
  parts.push(`total;dur=${(performance.now() - timing.started).toFixed(2)}`);
  return parts.join(", ");
};

/** The stages of a Server-Timing value, by name (tests and the bench read it back). */
export const parseServerTiming = (value: string): Map<string, { dur: number; desc?: string }> => {
  const stages = new Map<string, { dur: number; desc?: string }>();
  for (const entry of value.split(",")) {
    const [name, ...params] = entry.trim().split(";");
    if (!name) continue;
    const dur = Number(/(?:^|;)\s*dur=([0-9.]+)/.exec(params.join(";"))?.[1] ?? NaN);
    const desc = /(?:^|;)\s*desc="([^"]*)"/.exec(params.join(";"))?.[1];
    stages.set(name.trim(), { dur, ...(desc === undefined ? {} : { desc }) });
  }
  return stages;
};

// Outbound HTTP (the Stripe SDK on node:http, the Sui clients on fetch) is timed from Node's diagnostics
// channels, so the provider adapters stay as they are. A call is `psp` or `chain` by its origin (config).
let origins: Map<string, Stage> | undefined;
const originOf = (url: string): string | null => {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};
const classify = (origin: string): Stage | null => {
  if (!origins) {
    const env = getEnv();
    origins = new Map();
    for (const url of [env.STRIPE_API_URL, env.STRIPE_SANDBOX_URL, "https://api.stripe.com"]) {
      const o = url && originOf(url);
      if (o) origins.set(o, "psp");
    }
    for (const url of [env.SUI_SANDBOX_URL, env.SUI_MAINNET_URL, env.SUI_TESTNET_URL]) {
      const o = url && originOf(url);
      if (o) origins.set(o, "chain");
    }
  }
  return origins.get(originOf(origin) ?? "") ?? null;
};

const OUTBOUND = Symbol.for("agent-commerce-service.server-timing.outbound");
const pending = new WeakMap<object, { timing: Timing; stage: Stage; started: number }>();
const finish = (request: object) => {
  const open = pending.get(request);
  if (!open) return;
  pending.delete(request);
  open.timing.ms.set(open.stage, (open.timing.ms.get(open.stage) ?? 0) + performance.now() - open.started);
  open.timing.count.set(open.stage, (open.timing.count.get(open.stage) ?? 0) + 1);
};
const start = (request: object, origin: string) => {
  const timing = scope.getStore();
  if (!timing) return;
  const stage = classify(origin);
  if (stage) pending.set(request, { timing, stage, started: performance.now() });
};

if (!(globalThis as { [OUTBOUND]?: boolean })[OUTBOUND]) {
  (globalThis as { [OUTBOUND]?: boolean })[OUTBOUND] = true;
  onSqlStatement(({ ms }) => addStage("db", ms));
  diagnostics.subscribe("http.client.request.start", (message) => {
    const { request } = message as {
      request: { host: string; protocol: string; getHeader: (name: string) => unknown };
    };
    start(request, `${request.protocol}//${String(request.getHeader("host") ?? request.host)}`);
  });
  diagnostics.subscribe("http.client.response.finish", (message) =>
    finish((message as { request: object }).request),
  );
  diagnostics.subscribe("http.client.request.error", (message) =>
    finish((message as { request: object }).request),
  );
  diagnostics.subscribe("undici:request:create", (message) => {
    const { request } = message as { request: { origin: string } };
    start(request, String(request.origin));
  });
  diagnostics.subscribe("undici:request:trailers", (message) =>
    finish((message as { request: object }).request),
  );
  diagnostics.subscribe("undici:request:error", (message) =>
    finish((message as { request: object }).request),
  );
}
