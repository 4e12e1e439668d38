// Headers and server externals only; no logic (STYLE.md §2).
/** @type {import('next').NextConfig} */
const nextConfig = {
  // The embedded database and the Postgres driver load native/wasm assets at run time: keep them out of the bundle.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "pglite-prisma-adapter",
    "@prisma/adapter-pg",
    "pg",
    "@prisma/client",
  ],
  poweredByHeader: false,
  typedRoutes: false,
};

export default nextConfig;
