// What the seeding CLIs (prisma/seed.ts, scripts/db-volume.ts) share: reading a count flag and printing one.

export const formatInt = (n: number): string => n.toLocaleString("en-US");

/**
 * A count flag: `raw` when given (100000, 100_000 and 100,000 are the same), else `fallback`; at least `min`, and
 * at most `max` when one is given. Anything else goes to `fail` (the CLI's usage and exit 2).
 */
export const parseCount = (
  flag: string,
  raw: string | undefined,
  fallback: number,
  { min, max, fail }: { min: number; max?: number; fail: (message: string) => never },
): number => {
  if (raw === undefined) return fallback;
  const cleaned = raw.replace(/[_,]/g, "");
  if (!/^\d+$/.test(cleaned)) return fail(`${flag} must be a whole number, got "${raw}"`);
  const value = Number(cleaned);
  if (max === undefined) {
    if (!Number.isSafeInteger(value) || value < min)
      return fail(`${flag} must be at least ${min}, got "${raw}"`);
  } else if (!Number.isSafeInteger(value) || value < min || value > max) {
    return fail(`${flag} must be between ${min} and ${formatInt(max)}, got "${raw}"`);
  }
  return value;
};
