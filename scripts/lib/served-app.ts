import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";

import { REPO_ROOT } from "./paths";

// The built service as a child process (scripts/serve.ts), for the tests that need a real server process: the
// crash tests kill it, the live hosted-page spec needs its own Stripe URLs and database access while it serves.
// Resolves once it printed "Ready on"; rejects with its output when it exits first.

/** The current environment with `changes` applied (`undefined` removes a variable). */
const withEnv = (changes: Record<string, string | undefined>): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
};

export type ServedApp = {
  child: ChildProcess;
  baseUrl: string;
  /** Resolves when the process exits: the signal that ended it (e.g. "SIGKILL") or `exit <code>`. */
  exited: Promise<string>;
  /** Everything it printed so far (stdout and stderr). */
  output: () => string;
};

export const startServedApp = async ({
  port,
  env,
  args = [],
  detached = false,
}: {
  port: number;
  /** Over the current environment; `undefined` removes a variable. */
  env: Record<string, string | undefined>;
  /** scripts/serve.ts flags (`--build`, `--no-setup`). */
  args?: string[];
  /** Its own process group, so a signal to the group reaches every process of it. */
  detached?: boolean;
}): Promise<ServedApp> => {
  const baseUrl = `http://127.0.0.1:${port}`;
  const merged = withEnv({
    PORT: String(port),
    BASE_URL: baseUrl,
    NEXT_TELEMETRY_DISABLED: "1",
    // The tests' agents and webhook receivers live on loopback, and the served app runs as production (Next sets
    // NODE_ENV), which refuses private targets unless the operator allows them; a test may pass "0" to see that.
    OUTBOUND_ALLOW_PRIVATE: "1",
    ...env,
  });
  // tsx as a loader inside the server's own process (not the tsx CLI, which wraps it in a relay parent that SIGKILLs
  // a child slow to acknowledge a relayed SIGTERM): a signal to this pid reaches the server itself
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/serve.ts", ...args], {
    cwd: REPO_ROOT,
    env: merged,
    detached,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<string>((resolve) =>
    child.once("exit", (code, signal) => resolve(signal ?? `exit ${code}`)),
  );
  let output = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (c: Buffer) => {
      output += c.toString();
      if (output.includes("Ready on")) resolve();
    });
    child.stderr?.on("data", (c: Buffer) => (output += c.toString()));
    void exited.then((how) =>
      reject(new Error(`server exited (${how}) before ready:\n${output.slice(-3000)}`)),
    );
  });
  return { child, baseUrl, exited, output: () => output };
};

/** `npm run admin -- <args…>` as its own process (an operator next to the server); never rejects. */
export const runAdminProcess = (
  args: string[],
  env: Record<string, string | undefined>,
): Promise<{ code: number | null; output: string }> =>
  new Promise((resolve) => {
    const merged = withEnv(env);
    const child = spawn(
      path.join(REPO_ROOT, "node_modules/.bin/tsx"),
      ["--conditions=react-server", "scripts/admin.ts", ...args],
      { cwd: REPO_ROOT, env: merged, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.once("error", (error) => resolve({ code: null, output: `${output}${error.message}` }));
    child.once("exit", (code) => resolve({ code, output }));
  });
