import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

// A set-up step of `npm start` (the set-up script, `next build`) as a child process whose output is relayed line by
// line, so a first start never looks stuck and never reads like a failure when it is not:
// - while the step prints nothing for `heartbeatMs`, a line says it is still working and for how long (a first
//   `next build` sits on "Creating an optimized production build ..." for minutes on a small machine);
// - Next's list of experiments marks a setting that is off with "⨯", its error mark: the ones next.config.mjs turns
//   off on purpose get the reason beside them.
// Not spawnSync: the sandboxes boot and are primed while these steps run (the Sui one funds the test wallet over
// HTTP), and an event loop blocked through a build of minutes left that request unanswered until the sandbox's
// server dropped its connection (a failed start with `connect EPIPE`).

/** Experiments next.config.mjs sets to false on purpose, and why (Next lists them as "⨯ <name>"). */
const DELIBERATELY_OFF: Record<string, string> = {
  preloadEntriesOnStart:
    "off on purpose (next.config.mjs): each route loads on its first request, so a start is ready sooner; not an error",
};

/** `line` as printed, with the reason added when it is Next's "⨯ <experiment>" for one that is off on purpose. */
export const explainLine = (line: string): string => {
  // Next colours its marks when it believes it writes to a terminal
  const plain = line.replace(/\u001b\[[0-9;]*m/g, "");
  const name = /^\s*⨯\s+(\w+)\s*$/.exec(plain)?.[1];
  const reason = name === undefined ? undefined : DELIBERATELY_OFF[name];
  return reason ? `${line} — ${reason}` : line;
};

export type StepOptions = {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Silence after which a "still working" line is printed (then again after each such period). */
  heartbeatMs?: number;
  /** Where the step's standard output and our lines go (each without its newline). */
  out?: (line: string) => void;
  /** Where the step's standard error goes. */
  err?: (line: string) => void;
};

/** Runs `command`; resolves with its exit status (a signal's name when one ended it). */
export const runStep = async (
  label: string,
  command: string,
  args: string[],
  {
    cwd,
    env = process.env,
    heartbeatMs = 20_000,
    out = (line) => console.log(line),
    err = (line) => console.error(line),
  }: StepOptions,
): Promise<number | string> => {
  out(`\n▶ ${label}`);
  const started = performance.now();
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  let timer: NodeJS.Timeout | undefined;
  const quiet = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const seconds = Math.round((performance.now() - started) / 1000);
      out(`  … ${label}: still working (${seconds} s so far)`);
      quiet();
    }, heartbeatMs);
  };
  quiet();
  const relay = (stream: NodeJS.ReadableStream, to: (line: string) => void) =>
    createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) => {
      to(explainLine(line));
      quiet();
    });
  relay(child.stdout, out);
  relay(child.stderr, err);
  const status = await new Promise<number | string>((resolve) => {
    child.once("error", (error) => resolve(error.message));
    // "close", not "exit": every line of its output has been relayed by then
    child.once("close", (code, signal) => resolve(code ?? signal ?? 1));
  });
  clearTimeout(timer);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  out(status === 0 ? `✔ ${label} (${seconds} s)` : `✖ ${label} failed (exit ${status})`);
  return status;
};
