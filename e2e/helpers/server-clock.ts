import path from "node:path";

import { expect } from "@playwright/test";

import type { ServedApp } from "../../scripts/lib/served-app";

// Moving a served instance's clock forward (e2e/support/server-clock.ts, preloaded into it): `serverClockEnv` goes
// into startServedApp's env, `moveServerClock` makes the time pass.

const PRELOAD = path.resolve(import.meta.dirname, "../support/server-clock.ts");

/** The environment that preloads the clock into a served instance; each move is `stepMs`. */
export const serverClockEnv = (stepMs: number): Record<string, string> => ({
  NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${PRELOAD}`].filter(Boolean).join(" "),
  E2E_CLOCK_STEP_MS: String(stepMs),
});

/** Moves the instance's clock forward by its step; resolves once the server reads the new time. */
export const moveServerClock = async (app: ServedApp): Promise<void> => {
  const moves = () => app.output().match(/^server clock \+\d+ ms$/gm)?.length ?? 0;
  const before = moves();
  app.child.kill("SIGUSR2");
  await expect.poll(moves, { message: "the server acknowledged the clock move" }).toBe(before + 1);
};
