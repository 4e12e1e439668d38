// ESLint 9 flat config: Next's core-web-vitals + TypeScript rules, and the import direction of STYLE.md §4:
// app → {http, mcp, bridge} → domain folders → {config, ucp}.
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
];

const restrict = (patterns) => ({
  "no-restricted-imports": ["error", { patterns }],
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
    // Domain folders never reach up into surfaces, Next or the app.
    files: DOMAINS.map((d) => `lib/${d}/**/*.{ts,tsx}`),
    rules: restrict([
      { group: ["next", "next/*"], message: "Domain code is framework-free (STYLE.md §4)." },
      {
        group: ["@/app/*", "@/lib/mcp", "@/lib/mcp/*", "@/lib/bridge", "@/lib/bridge/*"],
        message: "Domains never import surfaces (STYLE.md §4).",
      },
      {
        group: [
          "@/lib/http/render-*",
          "@/lib/http/ucp-route",
          "@/lib/http/discovery-route",
          "@/lib/http/not-found-route",
        ],
        message: "Domains throw AppError; surfaces render (STYLE.md §6).",
      },
    ]),
  },
  {
    // The lowest layer: config and ucp import nothing above them.
    files: ["lib/config/**/*.ts", "lib/ucp/**/*.ts"],
    rules: restrict([
      {
        group: [
          "next",
          "next/*",
          "@/app/*",
          "@/lib/mcp*",
          "@/lib/bridge*",
          "@/lib/http/render-*",
          "@/lib/http/ucp-route",
        ],
        message: "config/ucp are the bottom layer (STYLE.md §4).",
      },
      {
        group: DOMAINS.map((d) => `@/lib/${d}/*`),
        message: "config/ucp never import domain folders (STYLE.md §4).",
      },
    ]),
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
];

export default config;
