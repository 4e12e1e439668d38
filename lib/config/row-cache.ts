import { getEnv } from "./env";
import { onSqlStatement } from "./sql-observer";

// A short-lived in-memory cache of rows that nearly every request reads and that rarely change (a store by its
// slug for the calls that only read, a platform key by its prefix), so a call does not pay a database round trip for them each time.
// Staleness bound (docs/performance.md): a change is seen
//   - at once in the process that made it: any statement this process's Prisma client sends that writes the
//     table (INSERT, UPDATE, DELETE, TRUNCATE; lib/config/sql-observer.ts) empties the cache, and a read that was
//     under way while the table changed is not kept;
//   - within ROW_CACHE_TTL_MS (default 2000, at most 5000) on every other instance, when the entry expires.
// A missing row is never cached, so a new store or key is seen at once everywhere.

export type RowCache<V> = {
  /** The cached value of `key`, else `load()`'s (kept when not null). */
  get: (key: string, load: () => Promise<V | null>) => Promise<V | null>;
  /** Forgets everything (a write this process made). */
  clear: () => void;
};

/** At most this many entries per cache: a flood of distinct keys cannot grow it without bound. */
const MAX_ENTRIES = 10_000;

const LEADING_WITH = /^\s*WITH\b/i;

/**
 * Whether a statement writes `table`: a statement that starts with the write, or a write in one of its
 * data-modifying CTEs (`WITH c AS (UPDATE …)`; only a WITH is searched through, so the other statements cost a
 * look at their start). A text that only mentions such words empties the cache for nothing, never the other way.
 */
const writes = (table: string): ((sql: string) => boolean) => {
  const write = `(?:UPDATE|INSERT\\s+INTO|DELETE\\s+FROM|TRUNCATE(?:\\s+TABLE)?)\\s+(?:ONLY\\s+)?(?:"?public"?\\.)?"?${table}"?(?:[\\s(,;)]|$)`;
  const leading = new RegExp(`^\\s*${write}`, "i");
  const anywhere = new RegExp(`\\b${write}`, "i");
  return (sql) => leading.test(sql) || (LEADING_WITH.test(sql) && anywhere.test(sql));
};

/** A cache of rows of `tables` (SQL names; a value built from several tables is emptied by a write to any). */
export const rowCache = <V>(tables: string | readonly string[]): RowCache<V> => {
  const entries = new Map<string, { value: V; expires: number }>();
  let generation = 0;
  const clear = () => {
    generation += 1;
    entries.clear();
  };
  const written = (typeof tables === "string" ? [tables] : tables).map(writes);
  onSqlStatement(({ sql }) => {
    if (written.some((writesTable) => writesTable(sql))) clear();
  });
  const get = async (key: string, load: () => Promise<V | null>): Promise<V | null> => {
    const now = Date.now();
    const hit = entries.get(key);
    if (hit && hit.expires > now) return hit.value;
    if (hit) entries.delete(key);
    const started = generation;
    const value = await load();
    const ttl = getEnv().ROW_CACHE_TTL_MS;
    if (value !== null && ttl > 0 && started === generation) {
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!);
      entries.set(key, { value, expires: now + ttl }); // counted from before the read
    }
    return value;
  };
  return { get, clear };
};
