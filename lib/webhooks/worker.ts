import "server-only";

import { errorText, logger } from "@/lib/core/log";
import { sendDueConfirmationMails } from "@/lib/orders/confirmation-mail";

import { runDueDeliveries, type AttemptOutcome } from "./deliver";
import { fanOutEvents } from "./fan-out";
import { periodicJobs, type PeriodicJob } from "./periodic-jobs";

// The outbox poller: one step fans new order events out to deliveries and attempts what is due. The server runs
// it every POLL_INTERVAL_MS (scripts/serve.ts); tests call webhookWorkerStep with their own clock. Steps never
// overlap within a process; across processes, claims (deliver.ts) keep two workers off the same delivery.

export const POLL_INTERVAL_MS = 1_000;

/** One poll: fan out, send the pending order confirmations, then attempt what is due (of one store when `storeId` is given: the admin CLI, tests). */
export const webhookWorkerStep = async (
  now = new Date(),
  scope: { storeId?: string } = {},
): Promise<AttemptOutcome[]> => {
  await fanOutEvents(now, scope);
  // the buyers' order confirmations ride the same outbox poll (written with the order, sent once)
  await sendDueConfirmationMails(now, scope);
  const outcomes = await runDueDeliveries(now, scope);
  if (outcomes.length > 0) {
    const delivered = outcomes.filter((o) => o.ok).length;
    logger().info(
      { delivered, failed: outcomes.length - delivered },
      `webhook worker: ${delivered} delivered, ${outcomes.length - delivered} failed (retried later)`,
    );
  }
  return outcomes;
};

const logWorkerError = (error: unknown): void => {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  logger().error(
    { stack: cause instanceof Error && cause.stack ? errorText(cause.stack) : undefined },
    `webhook worker: ${errorText(error)}`,
  );
};

/**
 * Starts the poller; returns a stop function that resolves once the running step and jobs have finished.
 * `periodic` jobs (periodic-jobs.ts) run on the same timer, each at most every `everyMs`, never overlapping itself.
 */
export const startWebhookWorker = ({
  intervalMs = POLL_INTERVAL_MS,
  onError = logWorkerError,
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
