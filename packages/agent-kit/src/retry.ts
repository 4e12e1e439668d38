import { randomUUID } from "node:crypto";

// Idempotency-Key and retries as the service's rules have them (DECISIONS.md B8): one key per logical attempt
// (a purchase step), reused on every retry of that attempt, so a retry after a lost answer replays the first
// outcome instead of doing the work twice. Retried, with the same key:
// - 409 `idempotency_in_flight`: the first call with this key is still running; wait its Retry-After;
// - 429 `rate_limited`: wait its Retry-After;
// - 5xx and network failures (no answer): the outcome is unknown, and only the same key makes a retry safe.
// Not retried: every other answer, 409 `idempotency_key_reused` included (the same key was sent with other
// arguments: a bug in the caller, which a retry cannot fix). Attempts and waits are bounded.

/** A fresh Idempotency-Key for one logical attempt. */
export const newIdempotencyKey = (): string => randomUUID();

export type RetryPolicy = {
  /** Attempts in all, the first included (default 4). */
  attempts?: number;
  /** First backoff after a 5xx or network failure; doubled each time (default 200 ms). */
  baseDelayMs?: number;
  /** Upper bound of any wait, Retry-After included (default 5 s). */
  maxDelayMs?: number;
  /** Injected for tests. */
  sleep?: (ms: number) => Promise<void>;
};

export type RetryDecision = { retry: false } | { retry: true; delayMs: number };

const retryAfterMs = (response: Response): number | undefined => {
  const value = response.headers.get("retry-after");
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
};

const errorCode = async (response: Response): Promise<string | undefined> => {
  try {
    const body = (await response.clone().json()) as {
      code?: unknown;
      messages?: { code?: unknown }[];
      error?: { data?: { code?: unknown } };
    };
    // REST: top-level code or messages[]; MCP: the JSON-RPC error's data.code
    const code = body.code ?? body.messages?.[0]?.code ?? body.error?.data?.code;
    return typeof code === "string" ? code : undefined;
  } catch {
    return undefined;
  }
};

/** Whether (and after how long) to send the same request again, with the same Idempotency-Key. */
export const retryDecision = async (
  response: Response,
  attempt: number,
  { baseDelayMs = 200, maxDelayMs = 5_000 }: RetryPolicy = {},
): Promise<RetryDecision> => {
  const backoff = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
  const after = retryAfterMs(response);
  if (response.status === 409 || response.status === 429) {
    const code = await errorCode(response);
    const waits = (response.status === 409 && code === "idempotency_in_flight") || response.status === 429;
    return waits ? { retry: true, delayMs: Math.min(maxDelayMs, after ?? backoff) } : { retry: false };
  }
  if (response.status >= 500) return { retry: true, delayMs: Math.min(maxDelayMs, after ?? backoff) };
  return { retry: false };
};

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Calls `send` until an answer is final or the attempts are used up: returns the last answer, or throws the last
 * network error when no attempt got one. `send` must reuse the same Idempotency-Key on every call.
 */
export const withRetries = async (
  send: (attempt: number) => Promise<Response>,
  policy: RetryPolicy = {},
): Promise<Response> => {
  const attempts = Math.max(1, policy.attempts ?? 4);
  const sleep = policy.sleep ?? defaultSleep;
  for (let attempt = 1; ; attempt++) {
    let response: Response;
    try {
      response = await send(attempt);
    } catch (error) {
      // no answer (connection refused or reset, DNS, timeout): the request may or may not have been processed
      if (attempt >= attempts) throw error;
      await sleep(Math.min(policy.maxDelayMs ?? 5_000, (policy.baseDelayMs ?? 200) * 2 ** (attempt - 1)));
      continue;
    }
    if (attempt >= attempts) return response;
    const decision = await retryDecision(response, attempt, policy);
    if (!decision.retry) return response;
    await response.body?.cancel();
    await sleep(decision.delayMs);
  }
};
