import { existsSync, readdirSync } from "node:fs";
import path from "node:path";

// node 20's `--test` takes file paths only (glob expansion arrived in node 21), so the runners list the files.

/** Folders never searched, wherever they sit: dependencies, build output, generated code, local data. */
const SKIPPED_DIRS = new Set(["node_modules", ".next", ".git", ".data", "generated", "test-results"]);

const walk = (dir: string, suffix: string, out: string[]): void => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (SKIPPED_DIRS.has(entry.name) || entry.name.startsWith(".")) continue;
      walk(path.join(dir, entry.name), suffix, out);
    } else if (entry.isFile() && entry.name.endsWith(suffix)) {
      out.push(path.join(dir, entry.name));
    }
  }
};

/**
 * Test files under `roots` (relative to `cwd`) whose names end in `suffix`, as sorted relative paths. Positional
 * `filters` (from the command line) keep only the paths containing one of them.
 */
export const findTestFiles = (opts: {
  cwd: string;
  roots: string[];
  suffix: string;
  filters?: string[];
}): string[] => {
  const found: string[] = [];
  for (const root of opts.roots) {
    const abs = path.join(opts.cwd, root);
    if (existsSync(abs)) walk(abs, opts.suffix, found);
  }
  const relative = found.map((f) => path.relative(opts.cwd, f)).sort();
  const filters = opts.filters ?? [];
  if (filters.length === 0) return relative;
  return relative.filter((f) =>
    filters.some((filter) => f.includes(path.normalize(filter).replace(/^\.\//, ""))),
  );
};
