import "server-only";

import { runDueDeliveries, type AttemptOutcome } from "./deliver";
import { fanOutEvents } from "./fan-out";
import { periodicJobs, type PeriodicJob } from "./periodic-jobs";

// The outbox poller: one step fans new order events out to deliveries and attempts what is due. The server runs
// it every POLL_INTERVAL_MS (scripts/serve.ts); tests call webhookWorkerStep with their own clock. Steps never
// overlap within a process; across processes, claims (deliver.ts) keep two workers off the same delivery.

export const POLL_INTERVAL_MS = 1_000;

/** One poll: fan out, then attempt what is due (of one store when `storeId` is given: the admin CLI, tests). */
export const webhookWorkerStep = async (
  now = new Date(),
  scope: { storeId?: string } = {},
): Promise<AttemptOutcome[]> => {
  await fanOutEvents(now, scope);
  return runDueDeliveries(now, scope);
};

/**
 * Starts the poller; returns a stop function that resolves once the running step and jobs have finished.
 * `periodic` jobs (periodic-jobs.ts) run on the same timer, each at most every `everyMs`, never overlapping itself.
 */
export const startWebhookWorker = ({
  intervalMs = POLL_INTERVAL_MS,
  onError = (e: unknown) => console.error("webhook worker:", e),
  periodic = [] as PeriodicJob[],
} = {}): (() => Promise<void>) => {
  let running: Promise<unknown> | null = null;
  const jobs = periodicJobs(periodic, onError);
  const timer = setInterval(() => {
    jobs.tick(Date.now());
    if (running) return;
    running = webhookWorkerStep()
      .catch(onError)
      .finally(() => {
        running = null;
      });
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await Promise.all([running, jobs.idle()]);
  };
};
