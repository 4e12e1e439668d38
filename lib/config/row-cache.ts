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

// A table's name as a statement writes it: bare, quoted, or under a schema ("public"."stores"): the name captured.
const TABLE = String.raw`(?:"?\w+"?\.)?"?(\w+)"?`;
const WRITE = String.raw`(?:UPDATE|INSERT\s+INTO|DELETE\s+FROM|TRUNCATE(?:\s+TABLE)?)\s+(?:ONLY\s+)?${TABLE}`;
const LEADING_WRITE = new RegExp(String.raw`^\s*${WRITE}`, "i");
const ANY_WRITE = new RegExp(String.raw`\b${WRITE}`, "gi");
const LEADING_WITH = /^\s*WITH\b/i;
const TRUNCATED = /^\s*TRUNCATE(?:\s+TABLE)?\s+([^;]*?)(?:\s+(?:RESTART|CONTINUE|CASCADE|RESTRICT)\b|;|$)/i;
const LISTED_TABLE = new RegExp(String.raw`^\s*(?:ONLY\s+)?${TABLE}\s*$`, "i");

const find = (sql: string): string[] => {
  if (LEADING_WITH.test(sql)) return [...sql.matchAll(ANY_WRITE)].map((match) => match[1]!.toLowerCase());
  const leading = LEADING_WRITE.exec(sql);
  if (!leading) return [];
  const truncated = TRUNCATED.exec(sql);
  if (!truncated) return [leading[1]!.toLowerCase()];
  return truncated[1]!.split(",").flatMap((listed) => {
    const name = LISTED_TABLE.exec(listed)?.[1];
    return name ? [name.toLowerCase()] : [];
  });
};

/** The statements' texts already read: most are sent again and again (prepared), so each is read once. */
const known = new Map<string, readonly string[]>();
const KNOWN_TEXTS = 2_000;

/**
 * The tables a statement writes (bare, lower-case names): the one it starts by writing (every table a TRUNCATE
 * lists), or, for a statement that starts with WITH, every write of its data-modifying CTEs and of its main
 * statement (`WITH c AS (UPDATE …) INSERT …`). Only a WITH is searched through, so the others cost a look at their
 * start. A text that only mentions such words (a literal) empties a cache for nothing, never the other way.
 */
export const tablesWritten = (sql: string): readonly string[] => {
  let tables = known.get(sql);
  if (tables === undefined) {
    tables = find(sql);
    if (known.size < KNOWN_TEXTS) known.set(sql, tables);
  }
  return tables;
};

/** Each cached table's caches, emptied by one listener that reads each statement once. */
const clearersOf = new Map<string, Set<() => void>>();
let listening = false;
const clearOnWrite = (table: string, clear: () => void): void => {
  if (!listening) {
    listening = true;
    onSqlStatement(({ sql }) => {
      for (const written of tablesWritten(sql))
        clearersOf.get(written)?.forEach((clearCache) => clearCache());
    });
  }
  let clearers = clearersOf.get(table);
  if (!clearers) clearersOf.set(table, (clearers = new Set()));
  clearers.add(clear);
};

/** A cache of rows of `tables` (SQL names; a value built from several tables is emptied by a write to any). */
export const rowCache = <V>(tables: string | readonly string[]): RowCache<V> => {
  const entries = new Map<string, { value: V; expires: number }>();
  let generation = 0;
  const clear = () => {
    generation += 1;
    entries.clear();
  };
  for (const table of typeof tables === "string" ? [tables] : tables)
    clearOnWrite(table.toLowerCase(), clear);
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
