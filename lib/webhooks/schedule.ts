// The published retry schedule for webhook deliveries (docs/webhooks.md): exponential from 30 s, capped at 6 h,
// eleven attempts spanning about a day (0 s, 30 s, 2 min, 8 min, 30 min, 1 h, 2 h, 4 h, 6 h, 6 h, 6 h after the
// previous one: ≈ 25.7 h from first to last). After the last failure the delivery is `dead` (redeliver on demand).
// An endpoint that has failed every attempt for ENDPOINT_DISABLE_AFTER_MS and at least ENDPOINT_DISABLE_MIN_FAILURES
// times in a row is disabled: no more attempts until the merchant re-enables it; nothing queued is dropped.

export const RETRY_DELAYS_S = [30, 120, 480, 1800, 3600, 7200, 14_400, 21_600, 21_600, 21_600] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_S.length + 1;

export const ENDPOINT_DISABLE_AFTER_MS = 24 * 60 * 60 * 1000;
export const ENDPOINT_DISABLE_MIN_FAILURES = 10;

/** Per-attempt timeout and the response bytes kept in the log. */
export const DELIVERY_TIMEOUT_MS = 10_000;
export const RESPONSE_SNIPPET_BYTES = 512;
/** How long a worker holds a claimed delivery (longer than the timeout: a crashed worker's claim lapses). */
export const CLAIM_MS = DELIVERY_TIMEOUT_MS + 20_000;

/** Delay before the attempt after `attempts` failed ones; null when the schedule is exhausted. */
export const retryDelayMs = (attempts: number): number | null => {
  const delay = RETRY_DELAYS_S[attempts - 1];
  return delay === undefined ? null : delay * 1000;
};
