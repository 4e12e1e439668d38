import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

import { REPO_ROOT } from "./lib/paths";
import { readmeSnippets, renderSnippets } from "./lib/readme-snippets";

// `npm run readme:snippets`: rewrites the README's snippet blocks from the examples' regions (see
// scripts/lib/readme-snippets.ts); scripts/lib/readme-snippets.test.ts fails until they agree.

const file = path.join(REPO_ROOT, "README.md");
const before = readFileSync(file, "utf8");
const after = renderSnippets(before);
writeFileSync(file, after);
console.log(
  `README.md: ${readmeSnippets(after).length} snippet(s), ${before === after ? "already up to date" : "rewritten"}`,
);
