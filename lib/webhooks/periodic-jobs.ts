// Slower jobs the webhook worker loop also runs (e.g. the card payment reconciliation sweep, every 60 s): on each
// tick a job starts when `everyMs` has passed since its last start and it is not still running, so a job never
// overlaps itself however slow it is. A job's failure goes to onError and never stops the loop.

export type PeriodicJob = { name: string; everyMs: number; run: () => Promise<unknown> };

export type PeriodicJobs = {
  /** Starts the jobs that are due at `now` (ms since the epoch). */
  tick: (now: number) => void;
  /** Resolves once every running job has finished. */
  idle: () => Promise<void>;
};

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
        s.running = Promise.resolve()
          .then(s.job.run)
          .catch((e: unknown) => onError(new Error(`${s.job.name}: ${(e as Error).message}`, { cause: e })))
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
