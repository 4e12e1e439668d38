import { findTestFiles } from "./lib/find-test-files";
import { REPO_ROOT } from "./lib/paths";
import { childEnv, runNodeTests, splitArgs } from "./lib/run-node-tests";

// `npm test`: every unit test (`*.test.ts` next to the code under lib/, components/, scripts/, prisma/, packages/; STYLE.md §9).
// Unit tests are pure; those that need SQL open their own in-memory PGlite, so the run never sees a
// DATABASE_URL from the developer's shell and never touches the project's PGlite data dir.
// Usage: npm test [-- <path filter>… [--test-name-pattern=<re>]]

const { nodeArgs, filters } = splitArgs(process.argv.slice(2));
const files = findTestFiles({
  cwd: REPO_ROOT,
  roots: ["lib", "components", "scripts", "prisma", "packages"],
  suffix: ".test.ts",
  filters,
});

console.log(`\n=== Unit tests: ${files.length} file(s), PGlite (memory://) ===\n`);
if (files.length === 0) {
  console.log(
    filters.length > 0 ? `No unit test file matches ${filters.join(", ")}.` : "No unit test files yet.",
  );
  process.exit(filters.length > 0 ? 1 : 0);
}

const result = await runNodeTests({
  cwd: REPO_ROOT,
  files,
  nodeArgs,
  env: childEnv({ set: { NODE_ENV: "test", PGLITE_DIR: "memory://" }, unset: ["DATABASE_URL"] }),
});
process.exit(result.exitCode);
