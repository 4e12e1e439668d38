// Prepared statements on PostgreSQL. Without a name, every statement is parsed and planned by the server on each
// call; with one, pg prepares it once per pool connection and afterwards sends only Bind/Execute. Prisma's pg
// adapter asks for the name (`statementNameGenerator`); this gives one stable name per SQL text. Bounded: texts
// past `limit` (a long `IN (…)` list of a rare size, say) go unnamed, so neither pg's per-connection map nor the
// server's prepared statements grow without end. Names are the same in every connection of the process, so a
// text is never prepared under two names.

/**
 * Leads a statement whose best plan depends on its values, so that it is never prepared: a prepared statement is
 * planned for its values five times and then, when that looks no dearer, once for all values (PostgreSQL's
 * `plan_cache_mode = auto`), and a full-text search wants another plan for a rare word than for a common one
 * (measured: the typo searches' p95 at 100,000 products went from 40 to 90 ms prepared).
 */
export const PLAN_PER_CALL = "/* plan per call */";

/** Whether `sql` asked to be planned for its values on every call (PLAN_PER_CALL). */
export const plansPerCall = (sql: string): boolean => sql.startsWith(PLAN_PER_CALL);

/** The function Prisma's pg adapter calls for each statement (its own type is not exported). */
export type StatementNamer = (query: { sql: string }) => string | undefined;

/**
 * One name per distinct SQL text, for the first `limit` texts; undefined (unnamed, not kept) after that and for a
 * text that plans per call.
 */
export const statementNamer = (limit: number): StatementNamer => {
  const names = new Map<string, string>();
  return ({ sql }) => {
    const known = names.get(sql);
    if (known !== undefined || names.size >= limit || plansPerCall(sql)) return known;
    const name = `acs_${names.size.toString(36)}`;
    names.set(sql, name);
    return name;
  };
};
