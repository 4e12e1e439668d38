// What the checkout benches share, so that ours (scripts/bench-checkout.ts) and the reference server
// (scripts/bench-reference.ts) are measured the same way: N agents each run flows back to back until the level's
// count is reached, the server's own CPU time is read from /proc before and after and divided by the flows, and
// every call's latency is reported as p50/p95.
import { readFileSync } from "node:fs";

/**
 * The options both benches read the same way: `--<name>=<value>`, `--flows=<n>` per level (200; 10 with
 * `--smoke`) and `--concurrency=1,8`. `valid` is false when the flows or a level is not a positive integer.
 */
export const flowBenchOptions = (argv: readonly string[]) => {
  const option = (name: string): string | undefined =>
    argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const smoke = argv.includes("--smoke");
  const flowsPerLevel = Number(option("flows") ?? (smoke ? 10 : 200));
  const levels = (option("concurrency") ?? "1,8").split(",").map(Number);
  const valid =
    levels.every((c) => Number.isInteger(c) && c >= 1) &&
    Number.isInteger(flowsPerLevel) &&
    flowsPerLevel >= 1;
  return { option, smoke, flowsPerLevel, levels, valid };
};

/** The pids of a process's children (Linux /proc), or none when it is gone. */
export const childrenOf = (pid: number): number[] => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
};

/** The pids of a process's children, their children and so on (Linux /proc), or none when it is gone. */
export const descendantsOf = (pid: number): number[] =>
  childrenOf(pid).flatMap((child) => [child, ...descendantsOf(child)]);

/** The fields of /proc/<pid>/stat after the command's name (state first), or null when it is gone. */
const statFields = (pid: number): string[] | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
};

/** User + system CPU time of a process in ms (Linux /proc/<pid>/stat, clock ticks of 10 ms), or null. */
export const processCpuMs = (pid: number): number | null => {
  const fields = statFields(pid);
  return fields === null ? null : (Number(fields[11]) + Number(fields[12])) * 10;
};

/**
 * CPU time of a process and all its descendants in ms, or null when it is gone: the living ones as they read now,
 * the ended ones through their parents' counters of waited-for children (cutime, cstime), where the kernel adds
 * them. A child that ended and is not yet waited for is not counted.
 */
export const processTreeCpuMs = (pid: number): number | null => {
  const withChildren = (of: number): number | null => {
    const fields = statFields(of);
    return fields === null
      ? null
      : (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 10;
  };
  const own = withChildren(pid);
  return own === null
    ? null
    : descendantsOf(pid).reduce((sum, child) => sum + (withChildren(child) ?? 0), own);
};

/** This process's own CPU time in ms (the driver's: its agents, and what it serves them). */
export const ownCpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * The whole machine's CPU time so far in ms, summed over its CPUs (Linux /proc/stat's first line, clock ticks of
 * 10 ms): `busy` (user, nice, system, irq, softirq, steal) and `all` (idle and iowait too), or null.
 */
export const machineCpuMs = (
  read = () => readFileSync("/proc/stat", "utf8"),
): { busy: number; all: number } | null => {
  try {
    const line = read().split("\n", 1)[0]!;
    if (!line.startsWith("cpu ")) return null;
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line
      .slice(4)
      .trim()
      .split(/\s+/)
      .map(Number);
    const busy = user! + nice! + system! + irq! + softirq! + (steal ?? 0);
    if (![busy, idle, iowait].every(Number.isFinite)) return null;
    return { busy: busy * 10, all: (busy + idle! + iowait!) * 10 };
  } catch {
    return null;
  }
};

/** CPU counters of the processes that share the machine with the server: name → ms so far (null: unreadable). */
export type CpuParts = Record<string, () => number | null>;

/**
 * Where the machine's CPU went over a level, per completed flow: `busyPerFlow` the whole machine's, `busyShare` the
 * part of its CPUs' time that was busy, `parts` each named process's, and `other` the rest (the kernel's threads,
 * any other process). The kernel keeps a process's time and the machine's by different clocks (exact run time
 * against ticks), so `other` can come out a few tenths of a millisecond below zero: no rest to speak of.
 */
export type MachineSplit = {
  busyPerFlow: number;
  busyShare: number;
  parts: [string, number][];
  other: number;
};

export const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;

export type CallStats = { n: number; p50: number; p95: number };

/** p50/p95 of each call's samples (ms), in the calls' order. */
export const callStats = <C extends string>(
  calls: readonly C[],
  samples: Record<C, number[]>,
): Map<C, CallStats> =>
  new Map(
    calls.map((call) => {
      const sorted = [...samples[call]].sort((a, b) => a - b);
      return [call, { n: sorted.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95) }] as const;
    }),
  );

/**
 * Runs `flows` flows with `concurrency` agents and returns the throughput and the server's CPU per completed flow
 * (null where `cpuMs` cannot read it).
 */
export const driveFlows = async (
  concurrency: number,
  flows: number,
  runFlow: () => Promise<void>,
  cpuMs: () => number | null,
  machine?: { parts: CpuParts; read?: () => { busy: number; all: number } | null },
): Promise<{ flowsPerSec: number; cpuPerFlow: number | null; machine: MachineSplit | null }> => {
  let next = 0;
  const readMachine = machine?.read ?? machineCpuMs;
  const partsBefore = machine && Object.entries(machine.parts).map(([name, read]) => [name, read()] as const);
  const machineBefore = machine ? readMachine() : null;
  const cpuBefore = cpuMs();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < flows) {
        next++;
        await runFlow();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = cpuMs();
  const machineAfter = machine ? readMachine() : null;
  const cpuPerFlow = cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / flows;
  let split: MachineSplit | null = null;
  if (machine && partsBefore && machineBefore && machineAfter && machineAfter.all > machineBefore.all) {
    const parts = partsBefore.flatMap(([name, before]): [string, number][] => {
      const after = machine.parts[name]!();
      return before === null || after === null ? [] : [[name, (after - before) / flows]];
    });
    const busyPerFlow = (machineAfter.busy - machineBefore.busy) / flows;
    split = {
      busyPerFlow,
      busyShare: (machineAfter.busy - machineBefore.busy) / (machineAfter.all - machineBefore.all),
      parts,
      other: busyPerFlow - parts.reduce((sum, [, ms]) => sum + ms, 0),
    };
  }
  return { flowsPerSec: flows / seconds, cpuPerFlow, machine: split };
};

/** The part of a machine split that is this process, the load driver. */
export const DRIVER_PART = "this driver";

/**
 * "machine CPU X ms/flow (Y % busy): server …, database …, other …" — where a level's CPU went on the whole box, or
 * an empty string without the counters. The machine is shared by the server, its database, the PSP sandbox and
 * this driver: how many flows a second it can do is bounded by the sum, whatever the server's own share. With the
 * driver's part, each other part per ms of the driver's CPU follows: the driver does the same work a flow in every
 * run, so its CPU a flow gauges the machine's speed in that run, and the ratios compare runs of a machine whose
 * speed drifts (docs/performance.md, "Reading the figures").
 */
export const machineSummary = (split: MachineSplit | null): string => {
  if (split === null) return "";
  const summary = `machine CPU ${split.busyPerFlow.toFixed(1)} ms/flow (${Math.round(split.busyShare * 100)} % of its CPUs busy): ${[
    ...split.parts,
    ["other", Math.max(0, split.other)] as [string, number],
  ]
    .map(([name, ms]) => `${name} ${ms.toFixed(1)}`)
    .join(", ")}`;
  const driver = split.parts.find(([name]) => name === DRIVER_PART)?.[1] ?? 0;
  const others = split.parts.filter(([name]) => name !== DRIVER_PART);
  if (driver <= 0 || others.length === 0) return summary;
  return `${summary}; per ms of the driver's: ${others
    .map(([name, ms]) => `${name} ${(ms / driver).toFixed(2)}`)
    .join(", ")}`;
};

/** The server's CPU with no request at all over `ms` (its background loops), in ms per second, or null. */
export const idleCpuPerSecond = async (cpuMs: () => number | null, ms = 3000): Promise<number | null> => {
  const before = cpuMs();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = cpuMs();
  return before === null || after === null ? null : (after - before) / (ms / 1000);
};

/** "X flows/s, server CPU Y ms/flow (Z ms net of idle)" — the line both benches print per level. */
export const levelSummary = (
  r: { flowsPerSec: number; cpuPerFlow: number | null },
  idlePerSecond: number | null,
): string => {
  const cpu = r.cpuPerFlow === null ? "n/a" : `${r.cpuPerFlow.toFixed(1)} ms`;
  const net =
    r.cpuPerFlow === null || idlePerSecond === null
      ? ""
      : ` (${(r.cpuPerFlow - idlePerSecond / r.flowsPerSec).toFixed(1)} ms net of idle)`;
  return `${r.flowsPerSec.toFixed(1)} flows/s, server CPU ${cpu}/flow${net}`;
};

/** A p50/p95 pair right-aligned for the call tables (– where the call was not made). */
export const cell = (row: { p50: number; p95: number } | undefined): string =>
  row
    ? `${row.p50.toFixed(1).padStart(8)} ${row.p95.toFixed(1).padStart(8)}`
    : `${"–".padStart(8)} ${"–".padStart(8)}`;
