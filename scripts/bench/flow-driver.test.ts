import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";

import {
  callStats,
  driveFlows,
  flowBenchOptions,
  levelSummary,
  machineCpuMs,
  machineSummary,
  ownCpuMs,
  percentile,
  processCpuMs,
  processTreeCpuMs,
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

test("driveFlows: the machine's CPU per flow split among the named processes, the rest as other", async () => {
  let server = 0;
  let database = 100;
  let busy = 1000;
  let all = 5000;
  const result = await driveFlows(
    2,
    4,
    async () => {
      server += 3;
      database += 2;
      busy += 6; // 1 ms of each flow in no named process
      all += 8; // the CPUs were busy 6 ms out of every 8
    },
    () => server,
    {
      parts: { server: () => server, database: () => database, gone: () => null },
      read: () => ({ busy, all }),
    },
  );
  assert.deepEqual(result.machine, {
    busyPerFlow: 6,
    busyShare: 0.75,
    parts: [
      ["server", 3],
      ["database", 2],
    ],
    other: 1,
  });
  assert.equal(
    machineSummary(result.machine),
    "machine CPU 6.0 ms/flow (75 % of its CPUs busy): server 3.0, database 2.0, other 1.0",
  );
  // the counters' clocks differ: a rest a little below zero is shown as none
  assert.equal(
    machineSummary({ busyPerFlow: 5, busyShare: 0.5, parts: [["server", 5.3]], other: -0.3 }),
    "machine CPU 5.0 ms/flow (50 % of its CPUs busy): server 5.3, other 0.0",
  );
  // with the driver's part: every other part per ms of the driver's CPU, the machine's speed in that run
  assert.equal(
    machineSummary({
      busyPerFlow: 30,
      busyShare: 0.86,
      parts: [
        ["server", 13.2],
        ["database", 6.3],
        ["this driver", 5.5],
      ],
      other: 5,
    }),
    "machine CPU 30.0 ms/flow (86 % of its CPUs busy): server 13.2, database 6.3, this driver 5.5, other 5.0; " +
      "per ms of the driver's: server 2.40, database 1.15",
  );
  assert.equal(machineSummary(null), "");
  const unread = await driveFlows(
    1,
    1,
    async () => {},
    () => null,
    { parts: {}, read: () => null },
  );
  assert.equal(unread.machine, null);
});

test("machineCpuMs: busy and all CPU time from /proc/stat's first line; null for anything else", () => {
  // user nice system idle iowait irq softirq steal guest guest_nice, in clock ticks of 10 ms
  assert.deepEqual(
    machineCpuMs(() => "cpu  100 2 30 500 8 1 4 0 0 0\ncpu0 50 1 15 250 4 0 2 0 0 0\n"),
    {
      busy: 1370,
      all: 6450,
    },
  );
  assert.equal(
    machineCpuMs(() => "intr 1 2 3\n"),
    null,
  );
  assert.equal(
    machineCpuMs(() => {
      throw new Error("no /proc");
    }),
    null,
  );
  const real = machineCpuMs();
  assert.ok(real && real.busy > 0 && real.all >= real.busy);
});

test("processTreeCpuMs: a process with its children counted; ownCpuMs this process's CPU", async () => {
  // a child that burns CPU until it is stopped
  const child = spawn(process.execPath, ["-e", "for (;;);"]);
  try {
    const deadline = Date.now() + 10_000;
    while ((processCpuMs(child.pid!) ?? 0) < 100 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const own = processCpuMs(process.pid)!;
    const childMs = processCpuMs(child.pid!)!;
    const tree = processTreeCpuMs(process.pid)!;
    // the tree includes the child's time, this process alone does not
    assert.ok(childMs >= 100, `child ${childMs} ms`);
    assert.ok(tree >= own + childMs, `tree ${tree} ms, own ${own} ms, child ${childMs} ms`);
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }
  assert.equal(processTreeCpuMs(2 ** 30), null);
  const before = ownCpuMs();
  const until = Date.now() + 30;
  while (Date.now() < until);
  assert.ok(ownCpuMs() > before);
});
