import { parseArgs, type ParseArgsOptionsConfig } from "node:util";

// What the seeding CLIs (prisma/seed.ts, scripts/db-volume.ts) share: reading their flags (a count flag in
// particular) and printing a count.

/**
 * The CLI's flags (with `--help`/`-h`), and `fail`: prints a message with the usage and exits 2 (a flag Node's
 * parser refuses goes there too). `null` when `--help` was given: the usage is printed, there is nothing to do.
 */
export const readCli = <const O extends ParseArgsOptionsConfig>(
  options: O,
  usage: string,
): {
  values: ReturnType<typeof parseArgs<{ options: O }>>["values"];
  fail: (message: string) => never;
} | null => {
  const fail = (message: string): never => {
    console.error(`${message}\n\n${usage}`);
    process.exit(2);
  };
  let parsed;
  try {
    parsed = parseArgs({ options: { ...options, help: { type: "boolean", short: "h", default: false } } });
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error));
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(usage);
    return null;
  }
  return { values: parsed.values as ReturnType<typeof parseArgs<{ options: O }>>["values"], fail };
};

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
