// What must stop before the process exits (graceful shutdown): the webhook worker and its periodic sweeps, started
// by instrumentation.ts inside Next's server code, register here; scripts/serve.ts runs them after the HTTP server
// stopped taking requests and drained the ones under way. Kept on globalThis because Next loads its own instance of
// this module beside the one the serve script imports.

type Hook = { name: string; run: () => Promise<void> };
const KEY = Symbol.for("agent-commerce-service.shutdown-hooks");
type Holder = { [KEY]?: Hook[] };

const hooks = (): Hook[] => ((globalThis as Holder)[KEY] ??= []);

/** Registers something to stop on shutdown (run in registration order). */
export const onShutdown = (name: string, run: () => Promise<void>): void => {
  hooks().push({ name, run });
};

/** Runs every hook, each bounded by `deadlineMs`; a hook that fails or overruns is reported, never blocks exit. */
export const runShutdownHooks = async (
  deadlineMs: number,
): Promise<{ stopped: string[]; problems: string[] }> => {
  const stopped: string[] = [];
  const problems: string[] = [];
  for (const hook of hooks().splice(0)) {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        hook.run(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`still running after ${deadlineMs} ms`)), deadlineMs);
        }),
      ]);
      stopped.push(hook.name);
    } catch (error) {
      problems.push(`${hook.name}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      clearTimeout(timer);
    }
  }
  return { stopped, problems };
};
