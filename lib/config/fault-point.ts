import { getEnv } from "./env";

// Crash tests (scripts/crash-test-*.ts) kill the real server process at a named moment, as a power cut would:
// exit 137 (SIGKILL's status) with nothing flushed or unwound. Only when ACS_FAULT names that moment (the env
// schema lists the known names); a no-op otherwise.

export type FaultPoint = NonNullable<ReturnType<typeof getEnv>["ACS_FAULT"]>;

/** Exits the process with 137 when ACS_FAULT names `point`. */
export const faultPoint = (point: FaultPoint): void => {
  if (getEnv().ACS_FAULT === point) process.exit(137);
};
