// Headers, server externals and start-up options only; no logic (STYLE.md §2).
/** @type {import('next').NextConfig} */
const nextConfig = {
  // The embedded database and the Postgres driver load native/wasm assets at run time: keep them out of the bundle.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pglite-prisma-adapter",
    "@prisma/adapter-pg",
    "pg",
    "@prisma/client",
    // one metrics registry per process, shared by every route bundle (lib/ops/metrics.ts)
    "prom-client",

    // the rate limiter and its Redis client: plain Node modules, loaded once for every route
    "rate-limiter-flexible",
    "ioredis",
  ],
  poweredByHeader: false,
  // Buyer identity pages (issue #6): never framed (RFC 9700 §4.16 clickjacking), never cached, no referrer. The
  // Content-Security-Policy of every page (with frame-ancestors 'none') comes from proxy.ts: it needs a nonce.
  // Every answer is nosniff and has a Referrer-Policy (lib/http/security-headers.ts says where else they are set,
  // and why); the identity pages' no-referrer comes later in this list, so it wins (Next: the last match wins).
  headers: async () => [
    {
      source: "/:path*",
      headers: [
        { key: "X-Content-Type-Options", value: "nosniff" },
        { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
      ],
    },
    ...["/oauth/:path*", "/account/agents", "/account/orders", "/account/pay/:token"].map((source) => ({
      source,
      headers: [
        { key: "X-Frame-Options", value: "DENY" },
        { key: "Referrer-Policy", value: "no-referrer" },
        { key: "Cache-Control", value: "no-store" },
      ],
    })),
  ],
  typedRoutes: false,
  experimental: {
    // Routes load on their first request instead of all at start: a production start is ready seconds sooner
    // (loading every route blocked the event loop after "Ready on") and holds only the routes it serves.
    preloadEntriesOnStart: false,
  },
};

export default nextConfig;
