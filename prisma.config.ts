// Prisma CLI config. DATABASE_URL is read with a fallback: prisma's env() throws when it is unset,
// which would break `prisma generate` on the embedded default (DECISIONS.md C).
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations", seed: "tsx prisma/seed.ts" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost:5432/unused" },
});
