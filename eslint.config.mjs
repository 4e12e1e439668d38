// ESLint 9 flat config: Next's core-web-vitals + TypeScript rules, and the import direction of STYLE.md §4:
// app → {http, mcp, bridge} → domain folders → {core, config, ucp}.
import { readdirSync } from "node:fs";

import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const DOMAINS = [
  "buyers",
  "catalog",
  "carts",
  "checkout",
  "payments",
  "mandates",
  "orders",
  "oauth",
  "webhooks",
  "stores",
  "credentials",
  "idempotency",
  "rate-limit",
  "agents",
  "outbound",
  "httpsig",
  "locations",
  "coupons",
];

// What no domain folder imports (a later block for the same files repeats these: flat config replaces a rule's
// options, it does not merge them).
const DOMAIN_PATTERNS = [
  { group: ["next", "next/*"], message: "Domain code is framework-free (STYLE.md §4)." },
  {
    group: ["@/app/*", "@/lib/mcp", "@/lib/mcp/*", "@/lib/bridge", "@/lib/bridge/*"],
    message: "Domains never import surfaces (STYLE.md §4).",
  },
  {
    group: ["@/lib/http", "@/lib/http/*"],
    message: "Domains import the transport-free core (lib/core), never the REST adapter (STYLE.md §4, §6).",
  },
];

// Test doubles of providers (sandbox/) are separate servers: the product reaches them over HTTP only. Every
// restriction below carries this pattern too, because a later config block replaces a rule's options for the
// files it matches instead of adding to them.
const NO_SANDBOX = {
  group: ["@/sandbox/*", "**/sandbox/*"],
  message: "The product never imports sandbox/: it talks to the provider's API over HTTP (STYLE.md §2).",
};

const restrict = (patterns) => ({
  "no-restricted-imports": ["error", { patterns: [...patterns, NO_SANDBOX] }],
});

const config = [
  {
    ignores: [
      ".next/**",
      "node_modules/**",
      "lib/generated/**",
      ".data/**",
      "next-env.d.ts",
      "test-results/**",
      "playwright-report/**",
      "packages/*/dist/**",
      "dist/**",
    ],
  },
  ...nextVitals,
  ...nextTs,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-floating-promises": "off",
    },
  },
  {
    // The product (everything but tests, scripts and the sandbox itself); the blocks below narrow it per folder.
    files: [
      "lib/**/*.{ts,tsx}",
      "app/**/*.{ts,tsx}",
      "components/**/*.{ts,tsx}",
      "instrumentation.ts",
      "proxy.ts",
    ],
    rules: restrict([]),
  },
  {
    // Domain folders never reach up into surfaces, Next or the app.
    files: DOMAINS.map((d) => `lib/${d}/**/*.{ts,tsx}`),
    rules: restrict(DOMAIN_PATTERNS),
  },
  {
    // The core is the vocabulary every domain shares: errors, the error table, the operation contract, the
    // envelope. It knows no transport and no domain (the operation context names the principal's type from
    // lib/credentials/principal, a type-only import).
    files: ["lib/core/**/*.ts"],
    rules: restrict([
      { group: ["next", "next/*"], message: "lib/core is framework-free (STYLE.md §4)." },
      {
        group: ["@/app/*", "@/lib/http", "@/lib/http/*", "@/lib/mcp*", "@/lib/bridge*"],
        message: "lib/core never imports a surface (STYLE.md §4).",
      },
      {
        group: DOMAINS.map((d) => `@/lib/${d}/*`).filter((g) => g !== "@/lib/credentials/*"),
        message: "lib/core never imports a domain folder (STYLE.md §4).",
      },
    ]),
  },
  {
    // The lowest layer: config and ucp import nothing above them.
    files: ["lib/config/**/*.ts", "lib/ucp/**/*.ts"],
    rules: restrict([
      {
        group: ["next", "next/*", "@/app/*", "@/lib/mcp*", "@/lib/bridge*", "@/lib/http", "@/lib/http/*"],
        message: "config/ucp are the bottom layer (STYLE.md §4).",
      },
      {
        group: DOMAINS.map((d) => `@/lib/${d}/*`),
        message: "config/ucp never import domain folders (STYLE.md §4).",
      },
    ]),
  },
  {
    // Imports one way inside the domain (STYLE.md §4): checkout/completion → {payments, orders}; payments never
    // import orders or checkout (a late payment outcome reaches the order only through the completion's
    // finisher); orders reach the rail only through the port (rail.ts / rails.ts), for refunds.
    files: ["lib/payments/**/*.ts"],
    rules: restrict([
      ...DOMAIN_PATTERNS,
      {
        group: ["@/lib/orders", "@/lib/orders/*", "@/lib/checkout", "@/lib/checkout/*"],
        message: "Payments never import orders or checkout: completion calls payments (STYLE.md §4).",
      },
    ]),
  },
  {
    files: ["lib/orders/**/*.ts"],
    rules: restrict([
      ...DOMAIN_PATTERNS,
      {
        group: ["@/lib/payments/*", "!@/lib/payments/rail", "!@/lib/payments/rails"],
        message: "Orders reach a rail only through the port, lib/payments/rail(s).ts (STYLE.md §4).",
      },
      {
        group: ["@/lib/checkout/completion", "@/lib/checkout/completion/*"],
        message: "Completion calls orders, never the other way round (STYLE.md §4).",
      },
    ]),
  },
  {
    // lib/checkout/state.ts is the only writer of a checkout's status (STYLE.md §7): a checkoutSession create,
    // update or upsert whose data names `status` anywhere else is refused; call a transition of state.ts
    // (moveCheckout, insertCheckout). Raw SQL is caught by lib/checkout/state-writers.test.ts.
    files: [
      "lib/**/*.{ts,tsx}",
      "app/**/*.{ts,tsx}",
      "scripts/**/*.ts",
      "prisma/**/*.ts",
      "instrumentation.ts",
    ],
    ignores: ["lib/checkout/state.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector:
            "CallExpression[callee.object.property.name='checkoutSession'][callee.property.name=/^(create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert)$/] Property[key.name=/^(data|create|update)$/] Property[key.name='status']",
          message:
            "Only lib/checkout/state.ts writes a checkout's status: call moveCheckout / insertCheckout (STYLE.md §7).",
        },
      ],
    },
  },
  {
    // Server code logs through lib/core/log.ts (pino: JSON lines, secrets redacted), never to the console.
    files: ["lib/**/*.ts", "app/**/route.ts", "instrumentation.ts"],
    ignores: ["lib/**/*.test.ts"],
    rules: { "no-console": "error" },
  },
  {
    // Surfaces (route files, pages, components) never touch the database directly.
    files: ["app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}", "lib/mcp/**/*.ts", "lib/bridge/**/*.ts"],
    rules: restrict([
      {
        group: ["@/lib/config/db", "@/lib/generated/*", "@prisma/*", "pg", "@electric-sql/*"],
        message: "Surfaces call lib/<domain> functions, never the database (STYLE.md §3).",
      },
    ]),
  },
  {
    // The bridge is a client of the public surfaces over HTTP (DECISIONS.md B11, STYLE.md §5): no domain folder,
    // no REST/MCP adapter, no database; the agent kit is its client. Its app routes and CLI read config only;
    // the mounted route also goes through the request prelude, as every route of this app does (limits, access
    // line, Request-Id), which is how it is served, not how the bridge works.
    files: ["lib/bridge/**/*.ts", "app/bridge/**/*.ts", "scripts/bridge.ts"],
    rules: restrict([
      {
        group: [
          ...DOMAINS.map((d) => `@/lib/${d}`),
          ...DOMAINS.map((d) => `@/lib/${d}/*`),
          "@/lib/http",
          "@/lib/http/*",
          "@/lib/mcp",
          "@/lib/mcp/*",
          "@/lib/config/db",
          "@/lib/generated/*",
          "@prisma/*",
          "pg",
          "@electric-sql/*",
        ],
        message:
          "The bridge is a client of the service over HTTP: use @agent-commerce/agent-kit (DECISIONS.md B11).",
      },
    ]),
  },
  {
    files: ["app/bridge/**/*.ts"],
    rules: restrict([
      {
        group: [
          ...DOMAINS.map((d) => `@/lib/${d}`),
          ...DOMAINS.map((d) => `@/lib/${d}/*`),
          // every REST adapter module but the prelude (a bare "@/lib/http" pattern would cover it: gitignore rules)
          ...readdirSync(new URL("./lib/http", import.meta.url))
            .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && f !== "prelude.ts")
            .map((f) => `@/lib/http/${f.slice(0, -3)}`),
          "@/lib/mcp",
          "@/lib/mcp/*",
          "@/lib/config/db",
          "@/lib/generated/*",
          "@prisma/*",
          "pg",
          "@electric-sql/*",
        ],
        message:
          "The bridge is a client of the service over HTTP: use @agent-commerce/agent-kit (DECISIONS.md B11); its route may only go through the request prelude.",
      },
    ]),
  },
];

export default config;
