import assert from "node:assert/strict";
import { test } from "node:test";

import { retryDecision, withRetries } from "./retry.js";

// Our retry rules: 409 idempotency_in_flight and 429 wait their Retry-After; 5xx and network failures back off;
// everything else (409 idempotency_key_reused, 4xx, 2xx) is final; attempts are bounded.

const answer = (status: number, code?: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(code ? { code, content: code, messages: [{ code, content: code }] } : {}), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });

const scripted = (outcomes: (Response | Error)[]) => {
  const calls: number[] = [];
  const send = async (attempt: number) => {
    calls.push(attempt);
    const next = outcomes.shift();
    if (!next) throw new Error("no more scripted outcomes");
    if (next instanceof Error) throw next;
    return next;
  };
  return { send, calls };
};

const sleeps = () => {
  const waited: number[] = [];
  return { waited, sleep: async (ms: number) => void waited.push(ms) };
};

test("409 idempotency_in_flight waits Retry-After and retries; the answer after it is returned", async () => {
  const { send, calls } = scripted([
    answer(409, "idempotency_in_flight", { "retry-after": "2" }),
    answer(201),
  ]);
  const { waited, sleep } = sleeps();
  const response = await withRetries(send, { sleep });
  assert.equal(response.status, 201);
  assert.deepEqual(calls, [1, 2]);
  assert.deepEqual(waited, [2000]);
});

test("409 idempotency_key_reused and other 4xx are final: no retry", async () => {
  for (const final of [answer(409, "idempotency_key_reused"), answer(400, "invalid_request"), answer(404)]) {
    const { send, calls } = scripted([final, answer(200)]);
    const response = await withRetries(send, sleeps());
    assert.equal(response.status, final.status);
    assert.deepEqual(calls, [1]);
  }
});

test("5xx and network failures back off exponentially, bounded by attempts; the last answer is returned", async () => {
  const { send, calls } = scripted([answer(503), new TypeError("fetch failed"), answer(500), answer(502)]);
  const { waited, sleep } = sleeps();
  const response = await withRetries(send, { attempts: 4, baseDelayMs: 100, sleep });
  assert.equal(response.status, 502);
  assert.deepEqual(calls, [1, 2, 3, 4]);
  assert.deepEqual(waited, [100, 200, 400]);
});

test("network failures on every attempt: the last error is thrown", async () => {
  const { send, calls } = scripted([new TypeError("a"), new TypeError("b"), new TypeError("c")]);
  await assert.rejects(withRetries(send, { attempts: 3, ...sleeps() }), /^TypeError: c$/);
  assert.deepEqual(calls, [1, 2, 3]);
});

test("429 waits Retry-After (capped by maxDelayMs); a 5xx's Retry-After is honoured", async () => {
  assert.deepEqual(await retryDecision(answer(429, "rate_limited", { "retry-after": "60" }), 1), {
    retry: true,
    delayMs: 5000,
  });
  assert.deepEqual(await retryDecision(answer(503, undefined, { "retry-after": "1" }), 3), {
    retry: true,
    delayMs: 1000,
  });
  assert.deepEqual(await retryDecision(answer(200), 1), { retry: false });
});
