// Prepared statements on PostgreSQL. Without a name, every statement is parsed and planned by the server on each
// call; with one, pg prepares it once per pool connection and afterwards sends only Bind/Execute. Prisma's pg
// adapter asks for the name (`statementNameGenerator`); this gives one stable name per SQL text. Bounded: texts
// past `limit` (a long `IN (…)` list of a rare size, say) go unnamed, so neither pg's per-connection map nor the
// server's prepared statements grow without end. Names are the same in every connection of the process, so a
// text is never prepared under two names.

/** The function Prisma's pg adapter calls for each statement (its own type is not exported). */
export type StatementNamer = (query: { sql: string }) => string | undefined;

/** One name per distinct SQL text, for the first `limit` texts; undefined (unnamed, not kept) after that. */
export const statementNamer = (limit: number): StatementNamer => {
  const names = new Map<string, string>();
  return ({ sql }) => {
    const known = names.get(sql);
    if (known !== undefined || names.size >= limit) return known;
    const name = `acs_${names.size.toString(36)}`;
    names.set(sql, name);
    return name;
  };
};
