import { z } from "zod";

import { parseCidrList } from "./cidr";

// Environment, validated once; a bad value fails at boot with a readable message (STYLE.md §4).
const EnvSchema = z.object({
  /** postgres://… selects PostgreSQL; unset selects the embedded PGlite database. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "DATABASE_URL must start with postgres:// or postgresql://")
    .optional(),
  /** Data directory of the embedded database (default .data/pglite inside the project); "memory://" keeps it in memory. */
  PGLITE_DIR: z.string().min(1).default(".data/pglite"),
  /** Public base URL of the service, used in profiles and links (no trailing slash). */
  BASE_URL: z
    .string()
    .url()
    .transform((u) => u.replace(/\/+$/, ""))
    .optional(),
  /**
   * Public URL of a bridge (the flat-tool MCP server) deployed apart from the service (npm run bridge -- --http
   * --public-url …); the authorization server accepts it, and any path under it, as an OAuth `resource`. The
   * bridge mounted here is always $BASE_URL/bridge.
   */
  BRIDGE_URL: z
    .string()
    .url()
    .transform((u) => u.replace(/\/+$/, ""))
    .optional(),
  /** HTTP port (default 3000). */
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  /** Meilisearch for catalog search at scale (Catalog issue); unset = PostgreSQL full-text search. */
  MEILISEARCH_URL: z.string().url().optional(),
  /** Meilisearch API key (search and index rights), when the engine requires one. */
  MEILISEARCH_KEY: z.string().optional(),
  /** Meilisearch index uid of the catalog (default "products"). */
  MEILISEARCH_INDEX: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .optional(),
  /** HMAC secret of catalog search and change-feed cursors; unset = a random secret the migration stored in the db. */
  CATALOG_CURSOR_SECRET: z.string().min(32, "use at least 32 characters").optional(),
  /** How long (ms) a search's total_count and facets are reused by its next pages; 0 disables (docs/search.md). */
  SEARCH_SUMMARY_TTL_MS: z.coerce.number().int().min(0).default(30_000),
  /** production turns off the test-mode conveniences (OAUTH_TEST_MODE, OUTBOUND_ALLOW_PRIVATE defaults). */
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  /**
   * May outbound fetches (agent profiles, CIMD documents, webhooks) reach loopback/private addresses and plain
   * http? Default: yes outside production (for test-mode stores and global surfaces; live stores never), no in
   * production whatever the store's mode (DECISIONS.md B10). `1` in production is the operator's explicit choice
   * (logged at start by scripts/serve.ts); `0` refuses them in development too.
   */
  OUTBOUND_ALLOW_PRIVATE: z.enum(["1", "0", "true", "false"]).optional(),
  /**
   * `npm start` answers the store REST routes (carts, checkout sessions, orders, catalog, locations, order events,
   * webhook deliveries), the store's, the global and the bridge's MCP endpoint and the Stripe webhook by calling their handlers
   * directly, without Next's request handling
   * (default `1`; scripts/lib/direct-routes.ts); `0` sends them through Next like every other route, for a
   * comparison or a Next upgrade that needs it.
   */
  DIRECT_ROUTES: z.enum(["1", "0"]).default("1"),
  /**
   * `npm start` on an empty database: seed the demo stores (`1`) or not (`0`). Default: seed, except in production
   * (NODE_ENV=production), where an empty database stays empty unless the operator asks.
   */
  SEED_DEMO: z.enum(["1", "0"]).optional(),
  /**
   * Run the order-webhook delivery worker inside the server (default on). Turn it off on all but one instance
   * if you like; several workers are safe (claims keep them off each other's deliveries).
   */
  WEBHOOK_WORKER: z.enum(["on", "off"]).default("on"),
  /**
   * Store signing keys older than this many days are rotated by the server's periodic job (UCP suggests 90); the
   * old key stays published 7 days. `npm run admin -- rotate-signing-key --store <slug>` rotates one at once.
   */
  SIGNING_KEY_MAX_AGE_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  /**
   * Per-attempt webhook delivery timeout in ms (unset: 10 000, lib/webhooks/schedule.ts). For operators and the
   * crash test (`npm run test:crash:webhooks`); receivers are promised 10 s (docs/webhooks.md).
   */
  WEBHOOK_DELIVERY_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(120_000).optional(),
  /**
   * How long a worker's claim on a delivery lasts in ms (unset: the timeout + 20 000). A worker that dies
   * mid-delivery leaves its claim; another worker retakes the delivery when it lapses. Must exceed the timeout,
   * so a live worker's attempt is never retaken while it still waits for an answer (checked below).
   */
  WEBHOOK_CLAIM_TTL_MS: z.coerce.number().int().min(1_000).max(3_600_000).optional(),
  /**
   * Fault injection for `npm run test:crash:card` only: the process exits right after the provider charged
   * (`crash-after-provider`) or right after the charge was recorded (`crash-after-charge`). Unset: no effect.
   */
  ACS_FAULT: z.enum(["crash-after-provider", "crash-after-charge"]).optional(),
  /**
   * Buyer identity test mode: the sandbox wallet on the sign-in page, and CIMD client ids on loopback
   * http / private addresses. Default: on, except in production on PostgreSQL (NODE_ENV=production with
   * DATABASE_URL set) — so the embedded demo has it and a real deployment does not.
   */
  OAUTH_TEST_MODE: z.enum(["true", "false"]).optional(),
  /**
   * Where live-mode Stripe API calls go (default https://api.stripe.com). Only for a Stripe-compatible test server
   * (stripe-mock style, or the e2e fake): the adapter passes its host/port/protocol to the official SDK.
   */
  STRIPE_API_URL: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//.test(u), "STRIPE_API_URL must be an http(s) URL")
    .default("https://api.stripe.com"),
  /**
   * The Stripe sandbox (sandbox/stripe) that test-mode stores pay through. `npm start` starts one and sets this;
   * set it to share one sandbox between processes. The adapter reads it per call, so it is validated here only.
   */
  STRIPE_SANDBOX_URL: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//.test(u), "STRIPE_SANDBOX_URL must be an http(s) URL")
    .optional(),
  /**
   * The Sui sandbox (sandbox/sui, a fake fullnode) that test-mode crypto stores use. `npm start` starts one and
   * sets this; set it to share one sandbox between processes. Read per call, so it is validated here only.
   */
  SUI_SANDBOX_URL: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//.test(u), "SUI_SANDBOX_URL must be an http(s) URL")
    .optional(),
  /** Sui mainnet fullnode (gRPC-web) that live crypto stores on mainnet use. */
  SUI_MAINNET_URL: z.string().url().default("https://fullnode.mainnet.sui.io:443"),
  /** Sui testnet fullnode (gRPC-web) that live crypto stores on testnet use. */
  SUI_TESTNET_URL: z.string().url().default("https://fullnode.testnet.sui.io:443"),
  /** Timeout in ms of each Sui fullnode call (prepare and digest verification); a slow node fails cleanly. */
  SUI_RPC_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  /** Pyth Hermes endpoint of the live price oracle (crypto quotes in live stores). */
  PYTH_HERMES_URL: z.string().url().default("https://hermes.pyth.network"),
  /** Bearer token for Pyth Hermes, when the endpoint requires one (Pyth's 2026 upgrade asks for an API key). */
  PYTH_API_KEY: z.string().min(1).optional(),
  /** Log level of the JSON logs (lib/core/log.ts): fatal, error, warn, info (default; warn when NODE_ENV=test), debug, trace or silent. */
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).optional(),
  /** Pretty, coloured log lines (`1`, needs the pino-pretty dev dependency) or JSON lines (`0`). Default: pretty in development only. */
  LOG_PRETTY: z.enum(["1", "0"]).optional(),
  /**
   * Bearer token a Prometheus scraper sends to `/metrics` (`Authorization: Bearer …`). Required to read the
   * metrics when NODE_ENV=production or any store is live; unset there, `/metrics` answers 401 to everyone.
   */
  METRICS_TOKEN: z.string().min(16, "METRICS_TOKEN must be at least 16 characters").optional(),
  /**
   * Redis for the rate limits (`redis://host:6379`): several instances then share one budget per caller. Unset:
   * each process counts in its own memory (the embedded default; docs/decisions.md "Rate limits").
   */
  REDIS_URL: z
    .string()
    .url()
    .refine((u) => /^rediss?:\/\//.test(u), "REDIS_URL must be a redis:// or rediss:// URL")
    .optional(),
  /**
   * Proxies whose X-Forwarded-For / Forwarded headers are believed, as a comma-separated list of CIDRs or
   * addresses (e.g. `10.0.0.0/8,127.0.0.1`). Unset: none; the client address is the socket's.
   */
  TRUSTED_PROXIES: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || parseCidrList(v) !== null,
      "TRUSTED_PROXIES must be a comma-separated list of CIDRs or IP addresses",
    ),
  /** Length in seconds of every rate-limit window (default 60). */
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  /**
   * How long an instance may answer from the rows it keeps in memory (stores by slug, platform keys by prefix)
   * after another instance changed them, in ms; 0 turns the cache off. At most 5000 (lib/config/row-cache.ts).
   */
  ROW_CACHE_TTL_MS: z.coerce.number().int().min(0).max(5000).default(2000),
  /**
   * How many distinct statements each database connection keeps prepared, parsed and planned once instead of on
   * every call, on PostgreSQL and on PGlite (default 500; lib/config/statement-names.ts, pglite-prepared.ts). `0`
   * prepares none: for a pooler that cannot carry prepared statements (PgBouncer in transaction mode before 1.21).
   */
  PG_PREPARED_STATEMENTS: z.coerce.number().int().min(0).max(10_000).default(500),
  /**
   * The embedded PGlite database's buffer cache in MB (PostgreSQL's `shared_buffers`, default 32). It lives in
   * the server's own memory, so it counts in the process's RSS; pages it does not hold are read through the
   * operating system's file cache. PGlite's own default is 128.
   */
  PGLITE_SHARED_BUFFERS_MB: z.coerce.number().int().min(1).max(4096).default(32),
  /** Requests per window of one anonymous client address (default 120; 1 000 000 under NODE_ENV=test). */
  RATE_LIMIT_ANONYMOUS: z.coerce.number().int().min(1).optional(),
  /** Requests per window of one platform key or client_credentials client (default 1200; 1 000 000 under NODE_ENV=test). */
  RATE_LIMIT_KEY: z.coerce.number().int().min(1).optional(),
  /** Requests per window of one buyer bearer, i.e. one (buyer, agent) pair (default 600; 1 000 000 under NODE_ENV=test). */
  RATE_LIMIT_BEARER: z.coerce.number().int().min(1).optional(),
  /** Requests per window of one RFC 9421-signed caller (default 3000; 1 000 000 under NODE_ENV=test). */
  RATE_LIMIT_SIGNED: z.coerce.number().int().min(1).optional(),
  /** Failed authentications per window of one client address before its credentials get 429 (default 20; 1 000 000 under NODE_ENV=test). */
  RATE_LIMIT_AUTH_FAILURES: z.coerce.number().int().min(1).optional(),
  /** Failed authentications per window of one platform key id or OAuth client id, from any address (default 100; 1 000 000 under NODE_ENV=test). */
  RATE_LIMIT_CREDENTIAL_FAILURES: z.coerce.number().int().min(1).optional(),
  /** next-auth session secret (buyer sign-in). Unset: a random secret is created once and kept in the database. */
  NEXTAUTH_SECRET: z.string().min(32, "NEXTAUTH_SECRET must be at least 32 characters").optional(),
  /**
   * Outgoing mail (password resets, order confirmations): an SMTP URL such as smtps://user:pass@mail.example.com:465.
   * Unset: mail is kept in the database instead (the local capture, shown in the admin), nothing is sent.
   */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/[^\s]+$/, "SMTP_URL must be an smtp:// or smtps:// URL")
    .optional(),
  /**
   * Keyring of the store secrets encrypted at rest (Stripe secret key and webhook signing secret; AES-256-GCM):
   * `<key id>:<32 bytes in base64>`, comma-separated, the FIRST one encrypting and every one decrypting, so a new
   * key is added in front and `npm run admin -- rotate-store-secrets` re-encrypts with it before the old one is
   * dropped. Unset outside production: a fixed development key (id `dev`); unset in production: storing a Stripe
   * secret is refused.
   */
  STORE_SECRETS_KEY: z
    .string()
    .regex(
      /^[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/=_-]{40,}(,[A-Za-z0-9_-]{1,32}:[A-Za-z0-9+/=_-]{40,})*$/,
      "use <key id>:<base64 of 32 bytes>[,<older id>:<base64>…]",
    )
    .optional(),
  /** The From address of outgoing mail. */
  MAIL_FROM: z.string().min(3).default("Agent Commerce Service <no-reply@localhost>"),
});

/** Rules across variables. 10 000 ms is the delivery timeout's default (lib/webhooks/schedule.ts). */
const CheckedEnvSchema = EnvSchema.refine(
  (env) =>
    env.WEBHOOK_CLAIM_TTL_MS === undefined ||
    env.WEBHOOK_CLAIM_TTL_MS > (env.WEBHOOK_DELIVERY_TIMEOUT_MS ?? 10_000),
  { path: ["WEBHOOK_CLAIM_TTL_MS"], message: "must exceed WEBHOOK_DELIVERY_TIMEOUT_MS (default 10000)" },
);

export type Env = z.infer<typeof CheckedEnvSchema>;

let cached: Env | undefined;

/** Validates an environment; throws a readable error listing every bad variable. */
export const parseEnv = (source: Record<string, string | undefined>): Env => {
  const parsed = CheckedEnvSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new Error(`Invalid environment:\n${lines}`);
  }
  return parsed.data;
};

export const getEnv = (): Env => {
  cached ??= parseEnv(process.env);
  return cached;
};

/** Base URL used when none is configured: the loopback address on PORT. */
export const getBaseUrl = (): string => getEnv().BASE_URL ?? `http://127.0.0.1:${getEnv().PORT}`;

/** The bridge's public URL: BRIDGE_URL when deployed apart, else mounted in this app at {base_url}/bridge. */
export const getBridgeUrl = (): string => getEnv().BRIDGE_URL ?? `${getBaseUrl()}/bridge`;

/** Whether a deployment with `env` lets outbound fetches reach private addresses (see OUTBOUND_ALLOW_PRIVATE). */
export const privateOutboundAllowed = (env: Pick<Env, "OUTBOUND_ALLOW_PRIVATE" | "NODE_ENV">): boolean => {
  if (env.OUTBOUND_ALLOW_PRIVATE)
    return env.OUTBOUND_ALLOW_PRIVATE === "1" || env.OUTBOUND_ALLOW_PRIVATE === "true";
  return env.NODE_ENV !== "production";
};

/** Whether this deployment lets outbound fetches reach private addresses. */
export const allowsPrivateOutbound = (): boolean => privateOutboundAllowed(getEnv());

/** Buyer identity test mode (see OAUTH_TEST_MODE): sandbox wallet and loopback CIMD clients. */
export const isOAuthTestMode = (): boolean => {
  const env = getEnv();
  if (env.OAUTH_TEST_MODE) return env.OAUTH_TEST_MODE === "true";
  return !(env.NODE_ENV === "production" && env.DATABASE_URL !== undefined);
};
