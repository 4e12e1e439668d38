import "server-only";

import { errorText, logger } from "@/lib/core/log";
import { sendDueConfirmationMails } from "@/lib/orders/confirmation-mail";

import { runDueDeliveries, type AttemptOutcome } from "./deliver";
import { fanOutEvents } from "./fan-out";
import { periodicJobs, type PeriodicJob } from "./periodic-jobs";

// The outbox poller: one step fans new order events out to deliveries and attempts what is due. The server runs
// it every POLL_INTERVAL_MS (instrumentation.ts), step after step while they find full batches; tests call
// webhookWorkerStep with their own clock. Steps never overlap within a process; across processes, claims
// (deliver.ts, confirmation-mail.ts) keep two workers off the same delivery or mail.

export const POLL_INTERVAL_MS = 1_000;

/** Items of each kind one step takes on (events fanned out, confirmation mails, delivery attempts). */
const BATCH = { events: 50, mails: 20, deliveries: 20 } as const;

const step = async (
  now: Date,
  scope: { storeId?: string },
): Promise<{ outcomes: AttemptOutcome[]; full: boolean }> => {
  const fanned = await fanOutEvents(now, { ...scope, limit: BATCH.events });
  // the buyers' order confirmations ride the same outbox poll (written with the order, sent once)
  const mailed = await sendDueConfirmationMails(now, { ...scope, limit: BATCH.mails });
  const outcomes = await runDueDeliveries(now, { ...scope, limit: BATCH.deliveries });
  if (outcomes.length > 0) {
    const delivered = outcomes.filter((o) => o.ok).length;
    logger().info(
      { delivered, failed: outcomes.length - delivered },
      `webhook worker: ${delivered} delivered, ${outcomes.length - delivered} failed (retried later)`,
    );
  }
  const full = fanned >= BATCH.events || mailed.length >= BATCH.mails || outcomes.length >= BATCH.deliveries;
  return { outcomes, full };
};

/** One poll: fan out, send the pending order confirmations, then attempt what is due (of one store when `storeId` is given: the admin CLI, tests). */
export const webhookWorkerStep = async (
  now = new Date(),
  scope: { storeId?: string } = {},
): Promise<AttemptOutcome[]> => (await step(now, scope)).outcomes;

/**
 * Steps until one leaves no full batch behind: under load the orders' events, mails and deliveries arrive faster
 * than one batch a poll (a card flow leaves an order with two events, a mail and up to four deliveries), and a
 * backlog that only grows is a webhook that arrives minutes late. Between steps the run yields to the event loop,
 * so the server's requests go on meanwhile; `stopping` ends the run after its current step.
 */
export const webhookWorkerRun = async (
  scope: { storeId?: string } = {},
  { stopping = () => false, clock = () => new Date() }: { stopping?: () => boolean; clock?: () => Date } = {},
): Promise<AttemptOutcome[]> => {
  const outcomes: AttemptOutcome[] = [];
  for (;;) {
    const result = await step(clock(), scope);
    outcomes.push(...result.outcomes);
    if (!result.full || stopping()) return outcomes;
    await new Promise((resolve) => setImmediate(resolve));
  }
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
  let stopping = false;
  const jobs = periodicJobs(periodic, onError);
  const timer = setInterval(() => {
    jobs.tick(Date.now());
    if (running) return;
    running = webhookWorkerRun({}, { stopping: () => stopping })
      .catch(onError)
      .finally(() => {
        running = null;
      });
  }, intervalMs);
  timer.unref();
  return async () => {
    stopping = true;
    clearInterval(timer);
    await Promise.all([running, jobs.idle()]);
  };
};
