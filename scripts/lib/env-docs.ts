import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

import ts from "typescript";

import { REPO_ROOT } from "./paths";

// What the environment looks like to an operator, from the code itself: the validated variables with their doc
// comments (lib/config/env.ts, read with the TypeScript parser so the schema stays the single source), the names
// the product reads directly from process.env, and the README's env table. `npm run env:example` writes
// .env.example from the first; scripts/lib/env-docs.test.ts fails when any of them disagree.

export type EnvVar = { name: string; doc: string };

const ENV_FILE = path.join(REPO_ROOT, "lib/config/env.ts");

/** The variables of EnvSchema in declaration order, with their JSDoc text (one paragraph). */
export const validatedEnv = (): EnvVar[] => {
  const source = ts.createSourceFile(ENV_FILE, readFileSync(ENV_FILE, "utf8"), ts.ScriptTarget.Latest, true);
  const found: EnvVar[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isVariableDeclaration(node) &&
      node.name.getText(source) === "EnvSchema" &&
      node.initializer &&
      ts.isCallExpression(node.initializer)
    ) {
      const [shape] = node.initializer.arguments;
      if (shape && ts.isObjectLiteralExpression(shape)) {
        for (const property of shape.properties) {
          if (!ts.isPropertyAssignment(property)) continue;
          const docs = ts.getJSDocCommentsAndTags(property).filter(ts.isJSDoc);
          const doc = docs
            .map((d) => ts.getTextOfJSDocComment(d.comment) ?? "")
            .join(" ")
            .replace(/\s+/g, " ")
            .trim();
          found.push({ name: property.name.getText(source), doc });
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
};

/** Product code: what runs in a deployment (not the tests, benches or CI scripts). */
const PRODUCT_ROOTS = ["lib", "app", "components", "sandbox", "proxy.ts", "instrumentation.ts"];
const PRODUCT_SCRIPTS = ["scripts/serve.ts", "scripts/setup.ts", "scripts/admin.ts", "scripts/db-migrate.ts"];
const SKIPPED = new Set(["generated", "node_modules"]);

const sourceFiles = (root: string): string[] => {
  const full = path.join(REPO_ROOT, root);
  if (/\.(ts|tsx)$/.test(root)) return [full];
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const rel = path.join(root, entry.name);
    if (entry.isDirectory()) return sourceFiles(rel);
    return /\.(ts|tsx)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)
      ? [path.join(REPO_ROOT, rel)]
      : [];
  });
};

/** Names set by the platform for the code to read, not by an operator. */
const PLATFORM_SET = new Set(["NEXT_RUNTIME"]);

/** Every `process.env.NAME` (or `process.env["NAME"]`) read by product code, outside the validated schema. */
export const directEnvReads = (): Map<string, string[]> => {
  const reads = new Map<string, string[]>();
  for (const file of [...PRODUCT_ROOTS, ...PRODUCT_SCRIPTS].flatMap(sourceFiles)) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(
      /process\.env(?:\.([A-Z][A-Z0-9_]*)|\[\s*["']([A-Z][A-Z0-9_]*)["']\s*\])/g,
    )) {
      const name = match[1] ?? match[2]!;
      if (PLATFORM_SET.has(name)) continue;
      reads.set(name, [...(reads.get(name) ?? []), path.relative(REPO_ROOT, file)]);
    }
  }
  return reads;
};

/** The names in the README's env table (first column, each `NAME` in backticks). */
export const readmeEnvNames = (): Set<string> => {
  const readme = readFileSync(path.join(REPO_ROOT, "README.md"), "utf8");
  const names = new Set<string>();
  let inTable = false;
  for (const line of readme.split("\n")) {
    if (/^\|\s*Name\s*\|\s*Required\s*\|/.test(line)) inTable = true;
    else if (inTable && !line.startsWith("|")) inTable = false;
    else if (inTable) {
      const first = line.split("|")[1] ?? "";
      for (const m of first.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(m[1]!);
    }
  }
  return names;
};

/** .env.example: every validated variable, commented out, with its description. */
export const renderEnvExample = (vars: EnvVar[] = validatedEnv()): string => {
  const wrap = (text: string): string[] => {
    const lines: string[] = [];
    let line = "#";
    for (const word of text.split(" ")) {
      if (line.length + word.length + 1 > 100 && line !== "#") {
        lines.push(line);
        line = "#";
      }
      line += ` ${word}`;
    }
    if (line !== "#") lines.push(line);
    return lines;
  };
  const blocks = vars.map(({ name, doc }) => [...(doc ? wrap(doc) : []), `# ${name}=`].join("\n"));
  return [
    "# The service's environment (generated from lib/config/env.ts by `npm run env:example`; do not edit).",
    "# Every variable is optional: unset, the embedded demo runs (PGlite, the Stripe sandbox, the worker on).",
    "# Set them in the process environment of every command (npm start, db:migrate, admin); README.md has the table.",
    "",
    blocks.join("\n\n"),
    "",
  ].join("\n");
};
