// `npm run bench:startup`: how long `npm start` takes to serve on an existing build and database. Starts
// scripts/serve.ts (as `npm start` does: the set-up step included) several times on one database, and for each
// start prints the time to its "Ready on" line and to the first /readyz 200, the stages the server reports
// ("Start-up: …"), and the server process's RSS right after start. The first start on a new database migrates and
// seeds it and is reported apart; figures are printed, never asserted.
// Usage: npm run bench:startup [-- --runs=<n>] [--db=pglite|postgres] [--pglite-dir=<dir>] [--cpu-prof=<dir>]
//   --db=postgres starts a throwaway PostgreSQL (scripts/pg-harness.ts) unless DATABASE_URL names one.
//   --pglite-dir keeps the embedded database between bench runs (default: a temp dir, removed at the end).
//   --cpu-prof writes a CPU profile of each warm start's server process into <dir> (node --cpu-prof).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { descendantsOf } from "./bench/flow-driver";
import { findFreePort } from "./lib/free-port";
import { REPO_ROOT, SERVER_NODE_ARGS, serverEnv } from "./lib/paths";
import { startPostgres, type PostgresServer } from "./pg-harness";

const option = (name: string): string | undefined =>
  process.argv
    .slice(2)
    .find((a) => a.startsWith(`--${name}=`))
    ?.slice(name.length + 3);

const USAGE =
  "Usage: npm run bench:startup [-- --runs=<n>] [--db=pglite|postgres] [--pglite-dir=<dir>] [--cpu-prof=<dir>]";
const runs = Number(option("runs") ?? 5);
const db = option("db") ?? "pglite";
const cpuProfDir = option("cpu-prof");
const known = new Set(["runs", "db", "pglite-dir", "cpu-prof"]);
const unknown = process.argv.slice(2).find((a) => !known.has(/^--([^=]+)=/.exec(a)?.[1] ?? ""));
if (unknown || !Number.isInteger(runs) || runs < 1 || !["pglite", "postgres"].includes(db)) {
  console.error(unknown ? `Unknown argument ${unknown}\n${USAGE}` : USAGE);
  process.exit(2);
}
if (!existsSync(path.join(REPO_ROOT, ".next/BUILD_ID"))) {
  console.error("No build: run `npm run build` first (this bench measures starts on an existing build).");
  process.exit(2);
}

type Start = {
  readyMs: number;
  readyzMs: number;
  /**
   * CPU time (user + system) the server process and its set-up step spent until /readyz answered: what the
   * machine's load does not inflate much, unlike the wall-clock times.
   */
  cpuMs: number;
  rssMb: number;
  treeRssMb: number;
  stages: string;
};

const CLOCK_TICK_MS = 10; // USER_HZ = 100 on Linux

/** CPU time of a process and of its finished children so far (from /proc), 0 when it is gone. */
const cpuMsOf = (pid: number): number => {
  try {
    // the fields after the command name, which is in parentheses and may hold spaces
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    // utime + stime, and cutime + cstime: the children it waited for (the set-up step when it ran), not the
    // sandboxes, which still run
    const [utime, stime, cutime, cstime] = fields.slice(11, 15).map(Number);
    return (utime! + stime! + cutime! + cstime!) * CLOCK_TICK_MS;
  } catch {
    return 0;
  }
};

/** Resident set of a process (kB from /proc), 0 when it is gone. */
const rssKb = (pid: number): number => {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
};

const startOnce = async (env: NodeJS.ProcessEnv, profile: boolean): Promise<Start> => {
  const port = await findFreePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const nodeArgs = profile && cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(cpuProfDir)}`] : [];
  const started = performance.now();
  // as `npm start` runs it, without npm's own start-up in front (the same for every variant measured)
  const child = spawn(process.execPath, [...nodeArgs, ...SERVER_NODE_ARGS], {
    cwd: REPO_ROOT,
    env: serverEnv({ ...env, PORT: String(port), BASE_URL: baseUrl, NEXT_TELEMETRY_DISABLED: "1" }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const readyMs = await new Promise<number>((resolve, reject) => {
    child.stdout.on("data", (c: Buffer) => {
      output += c.toString();
      if (output.includes("Ready on")) resolve(performance.now() - started);
    });
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    void exited.then(() => reject(new Error(`the server exited before ready:\n${output.slice(-3000)}`)));
  });
  let readyzMs = Number.NaN;
  for (let attempt = 0; attempt < 200; attempt++) {
    const status = await fetch(`${baseUrl}/readyz`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) {
      readyzMs = performance.now() - started;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const pid = child.pid!;
  const cpuMs = cpuMsOf(pid);
  const rssMb = rssKb(pid) / 1024;
  const treeRssMb = [pid, ...descendantsOf(pid)].reduce((sum, p) => sum + rssKb(p), 0) / 1024;
  const stages = /Start-up: (.*)/.exec(output)?.[1] ?? "(no breakdown printed)";
  child.kill("SIGTERM");
  await exited;
  return { readyMs, readyzMs, cpuMs, rssMb, treeRssMb, stages };
};

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
};
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

const bench = async (label: string, env: NodeJS.ProcessEnv): Promise<void> => {
  console.log(`\n=== ${label}: ${runs} warm start(s) after a first start ===`);
  const first = await startOnce(env, false);
  console.log(
    `first start (migrate + seed when new): ready ${seconds(first.readyMs)}, /readyz ${seconds(first.readyzMs)}`,
  );
  const starts: Start[] = [];
  for (let i = 0; i < runs; i++) {
    const start = await startOnce(env, true);
    starts.push(start);
    console.log(
      `start ${i + 1}: ready ${seconds(start.readyMs)}, /readyz ${seconds(start.readyzMs)}` +
        ` (server CPU ${seconds(start.cpuMs)}), RSS ${start.rssMb.toFixed(0)} MB` +
        ` (with children ${start.treeRssMb.toFixed(0)} MB) — ${start.stages}`,
    );
  }
  const ready = starts.map((s) => s.readyMs);
  const readyz = starts.map((s) => s.readyzMs);
  const rss = starts.map((s) => s.rssMb);
  const cpu = starts.map((s) => s.cpuMs);
  console.log(
    `ready p50 ${seconds(quantile(ready, 0.5))} max ${seconds(Math.max(...ready))}; ` +
      `/readyz p50 ${seconds(quantile(readyz, 0.5))} max ${seconds(Math.max(...readyz))}; ` +
      `server CPU to /readyz p50 ${seconds(quantile(cpu, 0.5))}; RSS after start p50 ${quantile(rss, 0.5).toFixed(0)} MB max ${Math.max(...rss).toFixed(0)} MB`,
  );
};

const temp = mkdtempSync(path.join(tmpdir(), "acs-bench-startup-"));
let postgres: PostgresServer | undefined;
try {
  const base: NodeJS.ProcessEnv = { ...process.env };
  if (db === "pglite") {
    // the demo key file stays beside the data dir (lib/config/constants.ts), so a kept dir keeps its key
    delete base.DATABASE_URL;
    base.PGLITE_DIR = path.resolve(option("pglite-dir") ?? path.join(temp, "pglite"));
    await bench(`PGlite ${base.PGLITE_DIR}`, base);
  } else {
    base.DEMO_KEY_FILE ??= path.join(temp, "demo-key.json");
    if (!base.DATABASE_URL) {
      postgres = await startPostgres();
      base.DATABASE_URL = postgres.url;
    }
    await bench("PostgreSQL (DATABASE_URL)", base);
  }
} finally {
  await postgres?.stop();
  rmSync(temp, { recursive: true, force: true });
}
console.log(
  `\nMachine load (1/5/15 min): ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`,
);
