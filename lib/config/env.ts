import { z } from "zod";

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
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  /** Meilisearch for catalog search at scale (Catalog issue); unset = PostgreSQL full-text search. */
  MEILISEARCH_URL: z.string().url().optional(),
  MEILISEARCH_KEY: z.string().optional(),
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
});

export type Env = z.infer<typeof EnvSchema>;

let cached: Env | undefined;

export const getEnv = (): Env => {
  if (cached) return cached;
  const parsed = EnvSchema.safeParse(process.env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new Error(`Invalid environment:\n${lines}`);
  }
  cached = parsed.data;
  return cached;
};

/** Base URL used when none is configured: the loopback address on PORT. */
export const getBaseUrl = (): string => getEnv().BASE_URL ?? `http://127.0.0.1:${getEnv().PORT}`;
