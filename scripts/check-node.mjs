// The Node version check that runs before anything else: `npm start`, `npm run serve` and `npm run admin` run it
// first (`node scripts/check-node.mjs && …`), the examples import it first, and .ci/run asks it whether the
// machine's node will do. Plain JavaScript with nothing newer than Node 12 in it, so an old node parses it and
// says what is needed instead of failing later on a missing API (`npm start` on Node 20 used to die with
// "does not provide an export named 'registerHooks'").
//
// The minimum is package.json's "engines" (one ">=MAJOR.MINOR" range), and the APIs it stands for must be there:
// node:module's registerHooks (the admin commands inside the server, scripts/lib/admin-socket.ts) arrived in
// 22.15 (23.5 on the odd line). Exits 1 with the message on stderr when the node running it falls short.
import { existsSync, readFileSync } from "node:fs";
import * as nodeModule from "node:module";
import { homedir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const range = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).engines.node;
const minimum = /^>=(\d+)\.(\d+)$/.exec(range);
if (!minimum)
  throw new Error(`package.json engines.node must be ">=MAJOR.MINOR", not ${JSON.stringify(range)}`);

const [major, minor] = process.versions.node.split(".").map(Number);
const wantMajor = Number(minimum[1]);
const wantMinor = Number(minimum[2]);
const recentEnough = major > wantMajor || (major === wantMajor && minor >= wantMinor);
const missing = ["registerHooks"].filter((name) => typeof nodeModule[name] !== "function");

if (!recentEnough || missing.length > 0) {
  // .ci/run and the README install into the same cache, so one install serves them all
  const cacheRoot = process.env.XDG_CACHE_HOME || path.join(homedir(), ".cache");
  const cache = path.join(cacheRoot, "agent-commerce-service", "node24");
  const shown = cache.indexOf(homedir() + path.sep) === 0 ? "~" + cache.slice(homedir().length) : cache;
  // Node's own binaries are on the npm registry for Linux (x64, arm64): no root, no other site needed
  const pkg =
    process.platform === "linux" && ["x64", "arm64"].indexOf(process.arch) >= 0
      ? "node-linux-" + process.arch
      : null;
  const bin = pkg && path.join(cache, "node_modules", pkg, "bin");
  const shownBin = pkg && shown + "/node_modules/" + pkg + "/bin";
  const lines = [
    "✖ This service needs Node " +
      range +
      " (Node 24 LTS recommended); this is Node " +
      process.version +
      " (" +
      process.execPath +
      ")" +
      (recentEnough ? ", which lacks node:module's " + missing.join(", ") : "") +
      ".",
  ];
  if (bin && existsSync(path.join(bin, "node"))) {
    lines.push(
      "Node 24 is already installed in " + shown + "; put it first on PATH, then run the command again:",
    );
    lines.push("  export PATH=" + shownBin + ":$PATH");
  } else if (pkg) {
    lines.push(
      "Get Node 24 from the npm registry (no root needed), then run the command again in the same shell:",
    );
    lines.push(
      "  npm install --prefix " + shown + " --no-save " + pkg + "@24 && export PATH=" + shownBin + ":$PATH",
    );
  } else {
    lines.push(
      "Install Node 24 (nvm install 24, fnm install 24: .nvmrc says 24; or https://nodejs.org), then run the",
    );
    lines.push("command again.");
  }
  process.stderr.write(lines.join("\n") + "\n");
  process.exit(1);
}
