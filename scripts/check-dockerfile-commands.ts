// `npm run check:dockerfile`: runs the Dockerfile's own commands outside Docker (no image can be built on our
// machines), as a non-root user, in a temporary copy of the build context, and starts the result the way the
// image does. It reads the Dockerfile (scripts/lib/dockerfile.ts) and follows it: the build stage's ENV, COPY
// (the context filtered by .dockerignore) and RUN lines in order, then the runtime stage's ENV, USER,
// HEALTHCHECK and CMD. The CMD must pass the HEALTHCHECK command within its start period, then exit 0 on SIGTERM.
//
// Two RUN lines are replaced by default, to stay cheap (said in the output when it happens):
// - `npm ci`: the checkout's node_modules (installed by the same `npm ci` from the same lock file) is linked in
//   (hard links, so `npm prune` can remove packages in the copy without touching the checkout), and the install's
//   postinstall step (Prisma client generation) is run for real as the user. `--install` runs npm ci itself.
// - `next build`: the checkout's `.next` is linked in when it has one (CI: the end-to-end step just built it).
//   `--build` (or no build in the checkout) runs it for real: minutes, not seconds. `--keep` keeps the copy.
// Every other line runs as written: `npm prune --omit=dev` for real, so the start command proves the runtime
// image keeps what it needs. As root, the commands run as `nobody`; otherwise as the current (non-root) user.
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { envOf, parseDockerfile, type Instruction } from "./lib/dockerfile";
import { findFreePort } from "./lib/free-port";
import { REPO_ROOT } from "./lib/paths";

const args = new Set(process.argv.slice(2));
const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
const say = (line: string) => console.log(`[check-dockerfile ${elapsed()}] ${line}`);

const isRoot = process.getuid?.() === 0;
const user = isRoot ? { uid: 65534, gid: 65534, name: "nobody" } : null;
const userName = user?.name ?? `uid ${process.getuid?.()}`;

const work = mkdtempSync(path.join(tmpdir(), "acs-dockerfile-"));
chmodSync(work, 0o755);
const app = path.join(work, "app");
const home = path.join(work, "home");
const bin = path.join(work, "bin");
mkdirSync(app);
mkdirSync(home);
mkdirSync(bin);
// This Node (24), where the user can run it: ours may sit under a home directory it cannot enter. npm and npx
// (#!/usr/bin/env node) then run on it too.
try {
  linkSync(process.execPath, path.join(bin, "node"));
} catch {
  copyFileSync(process.execPath, path.join(bin, "node"));
}
chmodSync(path.join(bin, "node"), 0o755);

/** Runs a command as root (set-up only: copies and ownership), failing loudly. */
const asRoot = (command: string, commandArgs: string[]): void => {
  const result = spawnSync(command, commandArgs, { stdio: "inherit" });
  if (result.status !== 0) throw new Error(`${command} ${commandArgs.join(" ")} failed`);
};

/** Hands what was copied to the user, leaving hard-linked trees' files alone (they are the checkout's). */
const chownCopied = (): void => {
  if (!user) return;
  const owner = `${user.uid}:${user.gid}`;
  asRoot("find", [
    app,
    "(",
    "-path",
    path.join(app, "node_modules"),
    "-o",
    "-path",
    path.join(app, ".next"),
    ")",
    "-prune",
    "-o",
    "-exec",
    "chown",
    "-h",
    owner,
    "{}",
    "+",
  ]);
};

/** Hard-links a tree of the checkout into the copy; its directories become the user's (so it can add/remove). */
const linkTree = (name: string, { copy = false } = {}): void => {
  const [from, to] = [path.join(REPO_ROOT, name), path.join(app, name)];
  if (copy || spawnSync("cp", ["-al", from, to], { stdio: "ignore" }).status !== 0) {
    // another file system (no hard links): a real copy, then all of it is the user's
    rmSync(to, { recursive: true, force: true });
    asRoot("cp", ["-a", from, to]);
    if (user) asRoot("chown", ["-R", `${user.uid}:${user.gid}`, to]);
    return;
  }
  if (user) asRoot("find", [to, "-type", "d", "-exec", "chown", `${user.uid}:${user.gid}`, "{}", "+"]);
};

const asUser = (env: Record<string, string>): SpawnOptions => ({
  cwd: app,
  env: env as NodeJS.ProcessEnv,
  ...(user ? { uid: user.uid, gid: user.gid } : {}),
});

const runAsUser = (line: string, env: Record<string, string>): void => {
  say(`RUN ${line}   (as ${userName})`);
  const result = spawnSync("sh", ["-c", line], { ...asUser(env), stdio: "inherit" });
  if (result.status !== 0) throw new Error(`RUN ${line} exited ${result.status ?? result.signal}`);
};

// .dockerignore: the last matching pattern wins; `!` re-includes; `*` matches within one path segment.
const ignorePatterns = readFileSync(path.join(REPO_ROOT, ".dockerignore"), "utf8")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith("#"))
  .map((l) => {
    const negate = l.startsWith("!");
    const body = (negate ? l.slice(1) : l).replace(/^\/+|\/+$/g, "");
    const re = new RegExp(`^${body.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}(/.*)?$`);
    return { negate, re };
  });
const ignored = (relative: string): boolean =>
  ignorePatterns.reduce((out, p) => (p.re.test(relative) ? !p.negate : out), false);

const copyInstruction = (copy: Instruction): void => {
  const parts = copy.args.split(/\s+/);
  const dest = parts.pop()!;
  for (const source of parts) {
    if (source === ".") {
      cpSync(REPO_ROOT, path.join(app, dest), {
        recursive: true,
        filter: (from) => {
          const relative = path.relative(REPO_ROOT, from);
          return relative === "" || !ignored(relative);
        },
      });
      continue;
    }
    const target =
      dest.endsWith("/") || parts.length > 1
        ? path.join(app, dest, path.basename(source))
        : path.join(app, dest);
    mkdirSync(path.dirname(target), { recursive: true });
    cpSync(path.join(REPO_ROOT, source), target, { recursive: true });
  }
  chownCopied();
};

const baseEnv = (): Record<string, string> => ({
  PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
  HOME: home,
  npm_config_cache: path.join(home, ".npm"),
  npm_config_update_notifier: "false",
});

const waitForExit = (child: ChildProcess, ms: number): Promise<number | string | null> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve(child.exitCode ?? child.signalCode);
      return;
    }
    const timer = setTimeout(() => resolve("timeout"), ms);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? signal);
    });
  });

const main = async (): Promise<void> => {
  const dockerfile = parseDockerfile(readFileSync(path.join(REPO_ROOT, "Dockerfile"), "utf8"));
  const build = dockerfile.stages[0]!;
  const runtime = dockerfile.stages.at(-1)!;
  say(`build context copy in ${app}; commands run as ${userName}`);

  const buildEnv = baseEnv();
  for (const instruction of build.instructions) {
    if (instruction.keyword === "ENV") Object.assign(buildEnv, envOf(instruction));
    else if (instruction.keyword === "COPY") copyInstruction(instruction);
    else if (instruction.keyword === "RUN") {
      const line = instruction.args;
      if (/^npm ci\b/.test(line) && !args.has("--install")) {
        say(
          `RUN ${line}: replaced by the checkout's node_modules (hard links; same lock file), then its postinstall`,
        );
        linkTree("node_modules");
        // npm rewrites this file in place: give the copy its own, so the checkout's stays untouched
        const hidden = path.join(app, "node_modules/.package-lock.json");
        if (existsSync(hidden)) {
          rmSync(hidden);
          copyFileSync(path.join(REPO_ROOT, "node_modules/.package-lock.json"), hidden);
          chownCopied();
        }
        runAsUser("npm run postinstall", buildEnv);
      } else if (
        /\bnext build\b/.test(line) &&
        !args.has("--build") &&
        existsSync(path.join(REPO_ROOT, ".next/BUILD_ID"))
      ) {
        // a copy, not links: the server writes into its build (caches) as the user
        say(`RUN ${line}: replaced by a copy of the checkout's .next (--build runs it)`);
        linkTree(".next", { copy: true });
      } else {
        runAsUser(line, buildEnv);
      }
    } else if (instruction.keyword !== "WORKDIR") {
      throw new Error(
        `line ${instruction.line}: ${instruction.keyword} in the build stage is not handled here`,
      );
    }
  }

  const runEnv = baseEnv();
  let healthcheck: string[] | null = null;
  let cmd: string[] | null = null;
  let startPeriodSeconds = 90;
  for (const instruction of runtime.instructions) {
    if (instruction.keyword === "ENV") Object.assign(runEnv, envOf(instruction));
    else if (instruction.keyword === "USER") {
      const name = instruction.args.split(":")[0];
      if (!name || name === "root" || name === "0") throw new Error("the runtime stage runs as root");
      say(`USER ${instruction.args}: played by ${userName}`);
    } else if (instruction.keyword === "HEALTHCHECK") {
      healthcheck = JSON.parse(instruction.args.replace(/^CMD\s+/, "")) as string[];
      startPeriodSeconds = Number.parseInt(instruction.flags["start-period"] ?? "90", 10);
    } else if (instruction.keyword === "CMD") cmd = instruction.exec;
  }
  if (!cmd || !healthcheck) throw new Error("the runtime stage needs an exec-form CMD and a HEALTHCHECK");

  // The image listens on 0.0.0.0:3000; here a free loopback port, and the embedded database inside the copy.
  const port = await findFreePort();
  Object.assign(runEnv, { PORT: String(port), HOST: "127.0.0.1", BASE_URL: `http://127.0.0.1:${port}` });
  say(`CMD ${cmd.join(" ")}   (as ${userName}, PORT=${port})`);
  const output: string[] = [];
  const server = spawn(cmd[0]!, cmd.slice(1), {
    ...asUser(runEnv),
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout?.on("data", (c: Buffer) => output.push(c.toString()));
  server.stderr?.on("data", (c: Buffer) => output.push(c.toString()));
  try {
    const deadline = Date.now() + (startPeriodSeconds + 30) * 1000;
    let healthy = false;
    while (!healthy && Date.now() < deadline && server.exitCode === null) {
      await new Promise((r) => setTimeout(r, 1000));
      healthy =
        spawnSync(healthcheck[0]!, healthcheck.slice(1), { ...asUser(runEnv), timeout: 5000 }).status === 0;
    }
    if (!healthy) throw new Error(`the HEALTHCHECK never passed\n${output.join("").slice(-4000)}`);
    say("HEALTHCHECK passed (GET /healthz → 200)");
    server.kill("SIGTERM");
    const exit = await waitForExit(server, 30_000);
    if (exit !== 0)
      throw new Error(`after SIGTERM the server ended with ${exit}\n${output.join("").slice(-4000)}`);
    say("SIGTERM: drained and exited 0");
  } finally {
    if (server.exitCode === null && server.pid) {
      try {
        process.kill(-server.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
};

try {
  await main();
  say("ok: the Dockerfile's commands build and start the service as a non-root user");
  if (args.has("--keep")) say(`kept: ${work}`);
  else rmSync(work, { recursive: true, force: true });
} catch (error) {
  console.error(
    `[check-dockerfile ${elapsed()}] FAILED: ${error instanceof Error ? error.message : String(error)}`,
  );
  console.error(`(the copy is kept for inspection: ${work})`);
  process.exitCode = 1;
}
