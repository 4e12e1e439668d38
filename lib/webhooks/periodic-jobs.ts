// Slower jobs the webhook worker loop also runs (e.g. the card payment reconciliation sweep, every 60 s): on each
// tick a job starts when `everyMs` has passed since its last start and it is not still running, so a job never
// overlaps itself however slow it is. A job's failure goes to onError and never stops the loop. Each run is logged
// (started at debug, done with its duration; a failure through onError) and its end recorded for the metrics' sweep lag
// (lastJobRuns): kept on globalThis because the worker runs in the instrumentation bundle and /metrics in a route's.

import { logger } from "@/lib/core/log";

export type PeriodicJob = { name: string; everyMs: number; run: () => Promise<unknown> };

export type PeriodicJobs = {
  /** Starts the jobs that are due at `now` (ms since the epoch). */
  tick: (now: number) => void;
  /** Resolves once every running job has finished. */
  idle: () => Promise<void>;
};

/** When each job last finished (ms since the epoch) and whether that run succeeded, in this process. */
export type JobRun = { finishedAt: number; ok: boolean; durationMs: number };
const RUNS = Symbol.for("agent-commerce-service.periodic-job-runs");
type Holder = { [RUNS]?: Map<string, JobRun> };
const runs = (): Map<string, JobRun> => ((globalThis as Holder)[RUNS] ??= new Map());

/** The last run of every periodic job of this process, by job name. */
export const lastJobRuns = (): ReadonlyMap<string, JobRun> => runs();

export const periodicJobs = (jobs: PeriodicJob[], onError: (e: unknown) => void): PeriodicJobs => {
  const state = jobs.map((job) => ({
    job,
    lastStart: null as number | null,
    running: null as Promise<unknown> | null,
  }));
  return {
    tick: (now) => {
      for (const s of state) {
        if (s.running || (s.lastStart !== null && now - s.lastStart < s.job.everyMs)) continue;
        s.lastStart = now;
        const name = s.job.name;
        const started = performance.now();
        const record = (ok: boolean) => {
          const durationMs = Math.round(performance.now() - started);
          runs().set(name, { finishedAt: Date.now(), ok, durationMs });
          return durationMs;
        };
        logger().debug({ job: name }, `${name}: started`);
        s.running = Promise.resolve()
          .then(s.job.run)
          .then(() => logger().info({ job: name, duration_ms: record(true) }, `${name}: done`))
          .catch((e: unknown) => {
            record(false);
            onError(new Error(`${name}: ${(e as Error).message}`, { cause: e }));
          })
          .finally(() => {
            s.running = null;
          });
      }
    },
    idle: async () => {
      await Promise.all(state.map((s) => s.running));
    },
  };
};
