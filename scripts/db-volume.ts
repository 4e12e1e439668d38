// `npm run db:volume`: fills the configured database (DATABASE_URL, else the PGlite dir) with generated volume —
// by default 1,000,000 orders, 1,000,000 idempotency records and 500,000 products — over its existing stores, to
// measure whether the service's costs stay flat as data grows (docs/performance.md, "Flat growth"). The rows are
// made inside the database (prisma/seed/volume.ts). A progress bar on a terminal; plain progress lines otherwise.
// Refuses a database with a live-mode store unless --force.

import { Presets, SingleBar } from "cli-progress";

import { openAdapter } from "@/lib/config/database";
import { PrismaClient } from "@/lib/generated/prisma/client";

import { formatInt, parseCount, readCli } from "../prisma/seed/cli-count";
import {
  DEFAULT_VOLUME_BATCH,
  generateVolume,
  VOLUME_DEFAULTS,
  VolumeRefused,
  type VolumeCounts,
} from "../prisma/seed/volume";

const USAGE = `Usage: npm run db:volume -- [--orders N] [--idempotency N] [--products N] [--store <slug>] [--batch N] [--force]

  --orders N        orders, each with its checkout, 1–3 lines, events and card payment (default ${formatInt(VOLUME_DEFAULTS.orders)})
  --idempotency N   idempotency records over the last 47 hours (default ${formatInt(VOLUME_DEFAULTS.idempotency)})
  --products N      products with 1–3 variants and their search documents (default ${formatInt(VOLUME_DEFAULTS.products)})
  --store <slug>    only this store (default: spread over every store of the database)
  --batch N         rows per transaction (default ${formatInt(DEFAULT_VOLUME_BATCH)})
  --force           also when the database has a live-mode store (never do this to production data)`;

/** The generator binds its counts as PostgreSQL `int` (prisma/seed/volume.ts). */
const MAX_COUNT = 2 ** 31 - 1;

const duration = (seconds: number): string =>
  seconds >= 60
    ? `${Math.floor(seconds / 60)}m${String(Math.round(seconds % 60)).padStart(2, "0")}s`
    : `${seconds.toFixed(0)}s`;

/** A bar per part on a terminal; one line per batch otherwise (CI logs, piped output). */
const progressReporter = () => {
  const tty = process.stderr.isTTY === true;
  let bar: SingleBar | null = null;
  let current: keyof VolumeCounts | null = null;
  // a part starts when the previous one ended (its first report comes after its first batch)
  let lastReportAt = performance.now();
  let startedAt = lastReportAt;
  return {
    update: (part: keyof VolumeCounts, done: number, total: number) => {
      if (part !== current) {
        bar?.stop();
        current = part;
        startedAt = lastReportAt;
        if (tty) {
          bar = new SingleBar(
            {
              format: `${part.padEnd(11)} |{bar}| {percentage}% | {value}/{total} | {rate} rows/s | ETA {eta_formatted}`,
              stream: process.stderr,
              hideCursor: true,
              etaBuffer: 5,
            },
            Presets.shades_classic,
          );
          bar.start(total, 0, { rate: 0 });
        }
      }
      lastReportAt = performance.now();
      const seconds = (lastReportAt - startedAt) / 1000;
      const rate = seconds > 0 ? done / seconds : 0;
      if (bar) {
        bar.update(done, { rate: formatInt(Math.round(rate)) });
        if (done >= total) {
          bar.stop();
          bar = null;
        }
      } else {
        const eta = rate > 0 ? duration((total - done) / rate) : "?";
        console.log(
          `${part}: ${formatInt(done)}/${formatInt(total)} (${Math.floor((done / total) * 100)} %), ${formatInt(Math.round(rate))} rows/s, ETA ${eta}`,
        );
      }
    },
    stop: () => bar?.stop(),
  };
};

const main = async (): Promise<void> => {
  const cli = readCli(
    {
      orders: { type: "string" },
      idempotency: { type: "string" },
      products: { type: "string" },
      store: { type: "string" },
      batch: { type: "string" },
      force: { type: "boolean", default: false },
    },
    USAGE,
  );
  if (!cli) return;
  const { values, fail } = cli;
  const counts = {
    orders: parseCount("--orders", values.orders, VOLUME_DEFAULTS.orders, { min: 0, max: MAX_COUNT, fail }),
    idempotency: parseCount("--idempotency", values.idempotency, VOLUME_DEFAULTS.idempotency, {
      min: 0,
      max: MAX_COUNT,
      fail,
    }),
    products: parseCount("--products", values.products, VOLUME_DEFAULTS.products, {
      min: 0,
      max: MAX_COUNT,
      fail,
    }),
  };
  const batch = parseCount("--batch", values.batch, DEFAULT_VOLUME_BATCH, { min: 1, max: MAX_COUNT, fail });

  const handle = await openAdapter();
  const client = new PrismaClient({ adapter: handle.factory });
  const progress = progressReporter();
  try {
    console.log(
      `Database: ${handle.describe}\nGenerating ${formatInt(counts.orders)} orders, ${formatInt(counts.idempotency)} idempotency records, ${formatInt(counts.products)} products${values.store ? ` in ${values.store}` : ""}`,
    );
    const result = await generateVolume(client, {
      ...counts,
      batch,
      force: values.force,
      ...(values.store ? { stores: [values.store] } : {}),
      onProgress: progress.update,
    });
    progress.stop();
    console.log(`Analyzing the tables (fresh planner statistics for the new sizes)…`);
    await client.$executeRawUnsafe("ANALYZE");
    console.log(
      `Done in ${duration(result.ms / 1000)}: run ${result.tag}, stores ${result.stores.join(", ")}`,
    );
  } catch (error) {
    progress.stop();
    if (error instanceof VolumeRefused) {
      console.error(error.message);
      process.exitCode = 1;
      return;
    }
    throw error;
  } finally {
    await client.$disconnect();
    await handle.close();
  }
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
