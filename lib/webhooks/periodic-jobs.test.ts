import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { test } from "node:test";

import { setLogDestination } from "@/lib/core/log";

import { lastJobRuns, periodicJobs } from "./periodic-jobs";

// The worker loop's periodic jobs (the card payment reconciliation sweep runs as one): due by their own interval,
// never overlapping themselves, failures reported without stopping the loop. Driven with explicit clock values.

const unexpected: unknown[] = [];
const recordError = (e: unknown) => void unexpected.push(e);

const deferred = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
};

test("a job runs on the first tick, then at most every everyMs", async () => {
  let runs = 0;
  const jobs = periodicJobs([{ name: "sweep", everyMs: 60_000, run: async () => void runs++ }], recordError);
  jobs.tick(1_000);
  await jobs.idle();
  assert.equal(runs, 1);
  for (const now of [2_000, 30_000, 60_999]) jobs.tick(now);
  await jobs.idle();
  assert.equal(runs, 1, "not due before 60 s after its last start");
  jobs.tick(61_000);
  await jobs.idle();
  assert.equal(runs, 2);
  assert.deepEqual(unexpected, []);
});

test("a slow job never overlaps itself: ticks while it runs start nothing", async () => {
  let active = 0;
  let maxActive = 0;
  let runs = 0;
  const gate = deferred();
  const jobs = periodicJobs(
    [
      {
        name: "slow",
        everyMs: 10,
        run: async () => {
          runs++;
          active++;
          maxActive = Math.max(maxActive, active);
          await gate.promise;
          active--;
        },
      },
    ],
    recordError,
  );
  for (let now = 0; now <= 1_000; now += 10) jobs.tick(now);
  await new Promise((r) => setImmediate(r));
  assert.equal(runs, 1);
  gate.resolve();
  await jobs.idle();
  assert.equal(active, 0);
  jobs.tick(2_000);
  await jobs.idle();
  assert.equal(runs, 2, "due again once finished");
  assert.equal(maxActive, 1);
  assert.deepEqual(unexpected, []);
});

test("a failing job is reported and runs again when due; other jobs are unaffected", async () => {
  const errors: string[] = [];
  let ok = 0;
  const jobs = periodicJobs(
    [
      { name: "broken", everyMs: 100, run: async () => Promise.reject(new Error("db down")) },
      { name: "fine", everyMs: 100, run: async () => void ok++ },
    ],
    (e) => errors.push((e as Error).message),
  );
  jobs.tick(0);
  await jobs.idle();
  jobs.tick(100);
  await jobs.idle();
  assert.deepEqual(errors, ["broken: db down", "broken: db down"]);
  assert.equal(ok, 2);
});

test("each run is logged through the service logger and recorded as the job's last run (the metrics' sweep lag)", async () => {
  const lines: { level: string; job?: string; msg: string; duration_ms?: number }[] = [];
  process.env.LOG_LEVEL = "info";
  setLogDestination(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split("\n").filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    }),
  );
  try {
    const before = Date.now();
    const jobs = periodicJobs(
      [
        { name: "logged sweep", everyMs: 100, run: async () => undefined },
        { name: "logged failure", everyMs: 100, run: async () => Promise.reject(new Error("db down")) },
      ],
      () => undefined,
    );
    jobs.tick(0);
    await jobs.idle();
    const done = lines.filter((l) => l.job === "logged sweep");
    assert.deepEqual(
      done.map((l) => [l.level, l.msg]),
      [["info", "logged sweep: done"]],
    );
    assert.equal(typeof done[0]!.duration_ms, "number");
    assert.equal(lastJobRuns().get("logged sweep")?.ok, true);
    assert.ok((lastJobRuns().get("logged sweep")?.finishedAt ?? 0) >= before);
    assert.equal(lastJobRuns().get("logged failure")?.ok, false);
  } finally {
    delete process.env.LOG_LEVEL;
    setLogDestination(null);
  }
});
