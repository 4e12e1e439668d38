import { readFileSync } from "node:fs";
import path from "node:path";

import { REPO_ROOT } from "./paths";

// The README's agent code is the examples' code: a fenced block placed (blank lines around it, as prettier
// writes markdown) between
//   <!-- snippet: examples/agent-rest/main.ts#readme-rest -->  and  <!-- /snippet -->
// holds exactly the lines of that file between `// #region readme-rest` and `// #endregion readme-rest` (region
// markers nested inside are left out). CI runs the examples (e2e/http/agent-examples.spec.ts), so the README's
// snippets are code that ran. `npm run readme:snippets` rewrites the blocks from the files.

const SNIPPET = /<!-- snippet: ([^#\s]+)#([\w-]+) -->\n\n```(\w+)\n([\s\S]*?)```\n\n<!-- \/snippet -->/g;
const MARKER = /^\s*\/\/ #(?:end)?region\b/;

export type Snippet = { file: string; region: string; lang: string; text: string };

/** The snippet blocks of a markdown text. */
export const readmeSnippets = (markdown: string): Snippet[] =>
  [...markdown.matchAll(SNIPPET)].map(([, file, region, lang, text]) => ({
    file: file!,
    region: region!,
    lang: lang!,
    text: text!,
  }));

/** The lines of `file` (repository-relative) inside region `name`, each ending in a newline. */
export const regionOf = (file: string, name: string, root = REPO_ROOT): string => {
  const lines = readFileSync(path.join(root, file), "utf8").split("\n");
  const start = lines.findIndex((l) => l.trim() === `// #region ${name}`);
  const end = lines.findIndex((l, i) => i > start && l.trim() === `// #endregion ${name}`);
  if (start === -1 || end === -1) throw new Error(`${file} has no region ${name}`);
  return lines
    .slice(start + 1, end)
    .filter((l) => !MARKER.test(l))
    .map((l) => `${l}\n`)
    .join("");
};

/** The markdown with every snippet block rewritten from its file's region. */
export const renderSnippets = (markdown: string, root = REPO_ROOT): string =>
  markdown.replace(
    SNIPPET,
    (_all, file: string, region: string, lang: string) =>
      `<!-- snippet: ${file}#${region} -->\n\n\`\`\`${lang}\n${regionOf(file, region, root)}\`\`\`\n\n<!-- /snippet -->`,
  );

/**
 * The commands of the `sh` block that follows `<!-- quickstart: <name> -->` in the markdown, one per line, without
 * comments or blank lines.
 */
export const quickstartCommands = (markdown: string, name: string): string[] => {
  const block = new RegExp(`<!-- quickstart: ${name} -->\\n\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(markdown);
  if (!block) throw new Error(`README.md has no quickstart block "${name}"`);
  return block[1]!
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
};
