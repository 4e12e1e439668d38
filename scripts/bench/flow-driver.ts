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

/** User + system CPU time of a process in ms (Linux /proc/<pid>/stat, clock ticks of 10 ms), or null. */
export const processCpuMs = (pid: number): number | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
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
): Promise<{ flowsPerSec: number; cpuPerFlow: number | null }> => {
  let next = 0;
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
  const cpuPerFlow = cpuBefore === null || cpuAfter === null ? null : (cpuAfter - cpuBefore) / flows;
  return { flowsPerSec: flows / seconds, cpuPerFlow };
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
