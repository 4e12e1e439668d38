import { execFile, execFileSync, spawnSync } from "node:child_process";
import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";

import { findFreePort } from "./lib/free-port";

// A throwaway PostgreSQL server for tests (DECISIONS.md A: "Tests must run against a real one"). Debian's
// postgresql-15 server binaries, a fresh cluster in a temp dir, trust auth on a loopback port, no fsync (the data
// is thrown away). initdb refuses to run as root, so when we are root every server command runs as the
// `postgres` OS user, which owns the temp dir.
//
// Library: `const pg = await startPostgres(); …; await pg.stop();`
// CLI:     `tsx scripts/pg-harness.ts` prints the URL and keeps the server up until Ctrl-C.

export type PostgresServer = {
  /** postgres://postgres@127.0.0.1:<port>/<db> (trust auth, no password). */
  url: string;
  /** The same database through the server's Unix socket (`?host=<socket dir>`), as a client on its host connects. */
  socketUrl: string;
  /** The postmaster's pid (the backends are its children): what the benches read its CPU time from. */
  pid: number;
  /** Stops the server (`pg_ctl stop -m fast`) and deletes its temp dir. Safe to call twice. */
  stop: () => Promise<void>;
};

const DEFAULT_BIN_DIR = "/usr/lib/postgresql/15/bin";
const MIN_MAJOR = 15;
const DATABASE_NAME = "acs_test";

const execFileAsync = promisify(execFile);

type RunAs = { uid: number; gid: number } | undefined;

/** Server binaries: $PG_BIN_DIR, else Debian's 15, else the newest Debian major ≥ 15 (developer machines). */
const findBinDir = (): string => {
  const fromEnv = process.env.PG_BIN_DIR;
  if (fromEnv) {
    if (existsSync(path.join(fromEnv, "initdb"))) return fromEnv;
    throw new Error(`PG_BIN_DIR=${fromEnv} has no initdb`);
  }
  if (existsSync(path.join(DEFAULT_BIN_DIR, "initdb"))) return DEFAULT_BIN_DIR;
  const root = "/usr/lib/postgresql";
  const majors = existsSync(root)
    ? readdirSync(root)
        .map(Number)
        .filter(
          (m) =>
            Number.isInteger(m) && m >= MIN_MAJOR && existsSync(path.join(root, String(m), "bin", "initdb")),
        )
        .sort((a, b) => b - a)
    : [];
  const newest = majors[0];
  if (newest !== undefined) return path.join(root, String(newest), "bin");
  throw new Error(
    [
      `PostgreSQL server binaries not found: ${DEFAULT_BIN_DIR}/initdb is missing.`,
      "Install them (Debian 12): apt-get update && apt-get install -y postgresql-15",
      "(.ci/run does this on CI), or set PG_BIN_DIR to a directory that holds initdb and pg_ctl.",
    ].join("\n"),
  );
};

/** initdb refuses root: as root, run the server as the `postgres` user (created by Debian's package). */
const findRunAs = (): RunAs => {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    return { uid, gid };
  } catch {
    throw new Error(
      "Running as root and there is no `postgres` OS user: initdb refuses root. " +
        "Install postgresql-15 (it creates the user) or run the tests as a normal user.",
    );
  }
};

type Cluster = { binDir: string; runAs: RunAs; tempDir: string; dataDir: string; logFile: string };

const run = async (cluster: Cluster, bin: string, args: string[]): Promise<string> => {
  try {
    const { stdout } = await execFileAsync(path.join(cluster.binDir, bin), args, {
      cwd: cluster.tempDir,
      encoding: "utf8",
      ...(cluster.runAs ?? {}),
    });
    return stdout;
  } catch (error) {
    const err = error as { stdout?: string; stderr?: string; message: string };
    const log = existsSync(cluster.logFile) ? readFileSync(cluster.logFile, "utf8").slice(-2000) : "";
    throw new Error(
      [
        `${bin} ${args.join(" ")} failed: ${err.message}`,
        err.stdout,
        err.stderr,
        log && `server log:\n${log}`,
      ]
        .filter(Boolean)
        .join("\n"),
    );
  }
};

/** Last-resort stop from `exit`/signal handlers, where only synchronous work runs. */
const stopSync = (cluster: Cluster): void => {
  if (existsSync(path.join(cluster.dataDir, "postmaster.pid"))) {
    spawnSync(path.join(cluster.binDir, "pg_ctl"), ["stop", "-D", cluster.dataDir, "-m", "immediate", "-w"], {
      cwd: cluster.tempDir,
      stdio: "ignore",
      ...(cluster.runAs ?? {}),
    });
  }
  rmSync(cluster.tempDir, { recursive: true, force: true });
};

// Every running cluster, so that the parent exiting (normally, on Ctrl-C or on SIGTERM from CI) never leaves a
// server behind. The handlers are installed only while a server runs, so they do not change how the host
// process reacts to signals the rest of the time.
const running = new Set<Cluster>();

const onExit = (): void => {
  for (const cluster of running) stopSync(cluster);
  running.clear();
};

const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;
type HandledSignal = keyof typeof SIGNAL_EXIT_CODES;
const signalHandlers = new Map<HandledSignal, () => void>();

const installHandlers = (): void => {
  if (signalHandlers.size > 0) return;
  process.on("exit", onExit);
  for (const signal of Object.keys(SIGNAL_EXIT_CODES) as HandledSignal[]) {
    const handler = (): void => {
      onExit();
      process.exit(SIGNAL_EXIT_CODES[signal]);
    };
    signalHandlers.set(signal, handler);
    process.on(signal, handler);
  }
};

const removeHandlersIfIdle = (): void => {
  if (running.size > 0) return;
  process.off("exit", onExit);
  for (const [signal, handler] of signalHandlers) process.off(signal, handler);
  signalHandlers.clear();
};

/**
 * Starts a fresh PostgreSQL on a free loopback port with an empty database; see PostgresServer. `statementStats`:
 * load pg_stat_statements and create it in the database, so a bench can count the statements a flow sends.
 */
export const startPostgres = async ({ statementStats = false } = {}): Promise<PostgresServer> => {
  const binDir = findBinDir();
  const runAs = findRunAs();
  const tempDir = mkdtempSync(path.join(tmpdir(), "acs-pg-"));
  const cluster: Cluster = {
    binDir,
    runAs,
    tempDir,
    dataDir: path.join(tempDir, "data"),
    logFile: path.join(tempDir, "postgres.log"),
  };
  if (runAs) chownSync(tempDir, runAs.uid, runAs.gid);
  running.add(cluster);
  installHandlers();

  try {
    // C.UTF-8 exists on every glibc ≥ 2.35 system (Debian 12) and keeps sorting byte-wise like PGlite.
    await run(cluster, "initdb", [
      "-D",
      cluster.dataDir,
      "-A",
      "trust",
      "-U",
      "postgres",
      "-E",
      "UTF8",
      "--locale=C.UTF-8",
      "--no-sync",
    ]);
    const port = await findFreePort();
    // Settings go to postgresql.conf rather than `pg_ctl -o`, which passes them through a shell.
    appendFileSync(
      path.join(cluster.dataDir, "postgresql.conf"),
      [
        "",
        "# test harness (scripts/pg-harness.ts)",
        "listen_addresses = '127.0.0.1'",
        `port = ${port}`,
        `unix_socket_directories = '${tempDir}'`,
        // Throwaway data: durability buys nothing and costs seconds per test run.
        "fsync = off",
        "synchronous_commit = off",
        "full_page_writes = off",
        ...(statementStats ? ["shared_preload_libraries = 'pg_stat_statements'"] : []),
        "",
      ].join("\n"),
    );
    await run(cluster, "pg_ctl", ["start", "-w", "-t", "60", "-D", cluster.dataDir, "-l", cluster.logFile]);
    await run(cluster, "createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", DATABASE_NAME]);
    if (statementStats) {
      const psql = ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", DATABASE_NAME, "-c"];
      await run(cluster, "psql", [...psql, "CREATE EXTENSION pg_stat_statements"]);
    }

    let stopped = false;
    const stop = async (): Promise<void> => {
      if (stopped) return;
      stopped = true;
      try {
        await run(cluster, "pg_ctl", ["stop", "-w", "-D", cluster.dataDir, "-m", "fast"]);
      } finally {
        rmSync(tempDir, { recursive: true, force: true });
        running.delete(cluster);
        removeHandlersIfIdle();
      }
    };
    // postmaster.pid's first line, written before `pg_ctl start -w` returns
    const pid = Number(readFileSync(path.join(cluster.dataDir, "postmaster.pid"), "utf8").split("\n", 1)[0]);
    return {
      pid,
      url: `postgres://postgres@127.0.0.1:${port}/${DATABASE_NAME}`,
      socketUrl: `postgres://postgres@localhost:${port}/${DATABASE_NAME}?host=${encodeURIComponent(tempDir)}`,
      stop,
    };
  } catch (error) {
    stopSync(cluster);
    running.delete(cluster);
    removeHandlersIfIdle();
    throw error;
  }
};

const isMain =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;

if (isMain) {
  try {
    const server = await startPostgres();
    console.log(server.url);
    console.error(
      `PostgreSQL is running. Use it with:\n  export DATABASE_URL=${server.url}\nCtrl-C stops it.`,
    );
    // The signal handlers installed by startPostgres stop the server and exit; until then keep the process alive.
    setInterval(() => {}, 1 << 30);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}
