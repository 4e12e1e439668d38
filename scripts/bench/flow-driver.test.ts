import assert from "node:assert/strict";
import { test } from "node:test";

import {
  callStats,
  driveFlows,
  flowBenchOptions,
  levelSummary,
  percentile,
  processCpuMs,
} from "./flow-driver";

test("driveFlows: runs exactly the level's flows with at most `concurrency` in flight, CPU divided by the flows", async () => {
  let started = 0;
  let inFlight = 0;
  let peak = 0;
  let cpu = 1000;
  const result = await driveFlows(
    3,
    10,
    async () => {
      started++;
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 2));
      cpu += 7; // the "server" spends 7 ms per flow
      inFlight--;
    },
    () => cpu,
  );
  assert.equal(started, 10);
  assert.equal(peak, 3);
  assert.equal(result.cpuPerFlow, 7);
  assert.ok(result.flowsPerSec > 0 && Number.isFinite(result.flowsPerSec));
});

test("driveFlows: no CPU figure where the counters cannot be read", async () => {
  const result = await driveFlows(
    1,
    2,
    async () => {},
    () => null,
  );
  assert.equal(result.cpuPerFlow, null);
  assert.match(levelSummary(result, null), /server CPU n\/a\/flow$/);
});

test("callStats: p50/p95 per call, nearest rank, in the calls' order", () => {
  const samples = { create: [5, 1, 4, 2, 3], get: [] as number[] };
  const stats = callStats(["get", "create"] as const, samples);
  assert.deepEqual([...stats.keys()], ["get", "create"]);
  assert.deepEqual(stats.get("create"), { n: 5, p50: 3, p95: 5 });
  assert.ok(Number.isNaN(stats.get("get")!.p50));
  assert.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95), 10);
  assert.equal(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50), 5);
});

test("levelSummary: CPU net of idle subtracts the idle CPU spread over the level's flows", () => {
  // 10 flows/s with 20 ms/s idle: 2 ms of each flow's 9 ms is the idle loops
  assert.equal(
    levelSummary({ flowsPerSec: 10, cpuPerFlow: 9 }, 20),
    "10.0 flows/s, server CPU 9.0 ms/flow (7.0 ms net of idle)",
  );
});

test("processCpuMs: this process's CPU time from /proc, null for a pid that does not exist", () => {
  const before = processCpuMs(process.pid);
  assert.equal(typeof before, "number");
  const until = Date.now() + 60;
  while (Date.now() < until); // burn CPU so the counter moves
  assert.ok(processCpuMs(process.pid)! >= before!);
  assert.equal(processCpuMs(2 ** 30), null);
});

test("flowBenchOptions: 200 flows at 1 and 8 by default, 10 with --smoke; a non-positive or fractional count is invalid", () => {
  const defaults = flowBenchOptions([]);
  assert.deepEqual([defaults.flowsPerLevel, defaults.levels, defaults.valid], [200, [1, 8], true]);
  assert.equal(flowBenchOptions(["--smoke"]).flowsPerLevel, 10);
  const given = flowBenchOptions(["--flows=50", "--concurrency=2,4,16", "--db=postgres"]);
  assert.deepEqual([given.flowsPerLevel, given.levels, given.option("db")], [50, [2, 4, 16], "postgres"]);
  for (const bad of [["--flows=0"], ["--flows=2.5"], ["--concurrency=1,0"], ["--concurrency=x"]]) {
    assert.equal(flowBenchOptions(bad).valid, false, bad.join(" "));
  }
});
