// `npm run build:bridge`: the stand-alone bridge as one plain-JavaScript file, the package's `bin`
// (agent-commerce-bridge), runnable with `node` alone — no tsx, no path aliases. esbuild bundles scripts/bridge.ts
// and lib/bridge (our code: its `@/…` imports are resolved from tsconfig) and leaves every npm package external, so
// the published package's dependencies provide them. About a second; CI does not run it (the bridge-process test
// builds into a temporary directory itself).
import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { build } from "esbuild";

const ROOT = path.resolve(import.meta.dirname, "..");
export const BRIDGE_BIN = path.join(ROOT, "dist/bridge/agent-commerce-bridge.mjs");

/** Builds the bridge's bin into `outfile` (default dist/bridge/agent-commerce-bridge.mjs); returns its path. */
export const buildBridge = async (outfile: string = BRIDGE_BIN): Promise<string> => {
  const result = await build({
    entryPoints: [path.join(ROOT, "scripts/bridge.ts")],
    absWorkingDir: ROOT,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    packages: "external",
    tsconfig: path.join(ROOT, "tsconfig.json"),
    write: false,
    logLevel: "error",
  });
  const code = result.outputFiles[0]!.text;
  // the entry's own hashbang asks for tsx; the built file needs node only
  const body = code.startsWith("#!") ? code.slice(code.indexOf("\n") + 1) : code;
  await mkdir(path.dirname(outfile), { recursive: true });
  await writeFile(outfile, `#!/usr/bin/env node\n${body}`);
  await chmod(outfile, 0o755);
  return outfile;
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const out = await buildBridge(process.argv[2] ? path.resolve(process.argv[2]) : undefined);
  console.log(`built ${path.relative(ROOT, out)}`);
}
