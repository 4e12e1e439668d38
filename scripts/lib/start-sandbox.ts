import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

// A provider sandbox (sandbox/<provider>/main.ts, a test double of the provider's API) as a child process of the
// server: started unless `envVar` already names one, its URL (the first line it prints, `{"url": …}`) put in
// `envVar` for the product to read. Its standard input is our pipe, so it exits with us, even on SIGKILL.
// `prime` runs once on a sandbox we started (test mode only: see startSandbox's `prime` option), e.g. funding the
// demo's test wallet; a sandbox named by `envVar` belongs to whoever started it and is left as it is.
export type SandboxSpec = {
  label: string;
  script: string;
  envVar: string;
  prime?: (url: string) => Promise<string>;
};

export const SANDBOXES: readonly SandboxSpec[] = [
  {
    label: "Stripe sandbox (test-mode card payments)",
    script: "sandbox/stripe/main.ts",
    envVar: "STRIPE_SANDBOX_URL",
  },
  {
    label: "Sui sandbox (test-mode crypto payments, fake fullnode)",
    script: "sandbox/sui/main.ts",
    envVar: "SUI_SANDBOX_URL",
    // loaded only when a wallet is funded (test mode): the Sui SDK it derives the address with is ~0.7 s of CPU
    prime: async (url) => (await import("./fund-sandbox-wallet")).fundTestWallet(url),
  },
];

export const startSandbox = async (
  tsx: string,
  cwd: string,
  spec: SandboxSpec,
  env: Record<string, string | undefined> = process.env,
  { prime = true, inProcessLoader = false }: { prime?: boolean; inProcessLoader?: boolean } = {},
): Promise<ChildProcess | null> => {
  if (env[spec.envVar]) return null;
  // `inProcessLoader`: one `node --import tsx` process instead of the tsx CLI's two (a relay and the sandbox)
  const [command, args] = inProcessLoader
    ? [process.execPath, ["--import", "tsx", spec.script]]
    : [tsx, [spec.script]];
  const child = spawn(command, args, { cwd, stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the ${spec.label} exited (${code}) before it listened`)));
    lines.once("line", (line) => resolve((JSON.parse(line) as { url: string }).url));
  });
  env[spec.envVar] = url;
  console.log(`${spec.label}: ${url}`);
  if (prime && spec.prime) {
    try {
      console.log(`${spec.label}: ${await spec.prime(url)}`);
    } catch (error) {
      child.kill("SIGTERM");
      throw error;
    }
  }
  return child;
};
