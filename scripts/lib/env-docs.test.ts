import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { directEnvReads, readmeEnvNames, renderEnvExample, validatedEnv } from "./env-docs";
import { REPO_ROOT } from "./paths";

// The operator's view of the environment cannot drift from the code: every variable the product reads (validated
// or read directly) is in the README's table, every validated one has a description, and .env.example is exactly
// what `npm run env:example` writes from lib/config/env.ts.

test("every variable the product reads is in the README's env table", () => {
  const documented = readmeEnvNames();
  const validated = validatedEnv().map((v) => v.name);
  assert.ok(validated.length >= 15, `parsed ${validated.length} variables from lib/config/env.ts`);
  const missing = [
    ...validated.filter((name) => !documented.has(name)).map((name) => `${name} (lib/config/env.ts)`),
    ...[...directEnvReads()]
      .filter(([name]) => !documented.has(name))
      .map(([name, files]) => `${name} (${[...new Set(files)].join(", ")})`),
  ];
  assert.deepEqual(missing, [], "add these to the Environment table of README.md");
});

test("every validated variable has a description for .env.example", () => {
  const undocumented = validatedEnv()
    .filter((v) => v.doc.length < 10)
    .map((v) => v.name);
  assert.deepEqual(undocumented, [], "give these a /** comment */ in lib/config/env.ts");
});

test(".env.example is what npm run env:example writes", () => {
  const committed = readFileSync(path.join(REPO_ROOT, ".env.example"), "utf8");
  assert.equal(committed, renderEnvExample(), "run npm run env:example and commit .env.example");
});

test("the scanner sees direct reads (a read it missed would go undocumented)", () => {
  const reads = directEnvReads();
  assert.ok(reads.get("HOST")?.includes("scripts/serve.ts"), JSON.stringify([...reads]));
  assert.ok(reads.has("DEMO_KEY_FILE"));
  assert.ok(!reads.has("NEXT_RUNTIME"), "set by Next, not by the operator");
});
