// Terminal progress for long seeds. cli-progress stays silent when stderr is not a TTY (CI logs, the start
// script's piped output), so callers can ask for a bar unconditionally.
import { Presets, SingleBar } from "cli-progress";

export type ProgressReporter = {
  advance: (products: number) => void;
  stop: () => void;
};

export const NO_PROGRESS: ProgressReporter = { advance: () => {}, stop: () => {} };

export const startProgressBar = (total: number): ProgressReporter => {
  const bar = new SingleBar(
    {
      format:
        "Seeding |{bar}| {percentage}% | {value}/{total} products | {rate} products/s | ETA {eta_formatted}",
      stream: process.stderr,
      hideCursor: true,
      etaBuffer: 20,
    },
    Presets.shades_classic,
  );
  const startedAt = performance.now();
  let done = 0;
  bar.start(total, 0, { rate: 0 });
  return {
    advance: (products) => {
      done += products;
      const seconds = (performance.now() - startedAt) / 1000;
      bar.update(done, { rate: seconds > 0 ? Math.round(done / seconds) : 0 });
    },
    stop: () => bar.stop(),
  };
};
