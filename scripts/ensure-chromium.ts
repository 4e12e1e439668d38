import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

// The browser tests drive Debian's chromium package: `npx playwright install` cannot download browsers on
// these machines (DECISIONS.md A). Installs it with apt-get when /usr/bin/chromium is missing.

export const CHROMIUM_PATH = "/usr/bin/chromium";

const run = (command: string, args: string[]): void => {
  console.log(`$ ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, {
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} failed (${result.error?.message ?? `exit code ${result.status}`})`,
    );
  }
};

/** Makes sure /usr/bin/chromium exists, installing Debian's package when it does not (needs root). */
export const ensureChromium = (): void => {
  if (existsSync(CHROMIUM_PATH)) {
    console.log(`Chromium: ${CHROMIUM_PATH} is installed.`);
    return;
  }
  if (process.getuid?.() !== 0) {
    throw new Error(
      `${CHROMIUM_PATH} is missing. Install it as root: apt-get update && apt-get install -y chromium`,
    );
  }
  console.log(`Chromium: ${CHROMIUM_PATH} is missing; installing Debian's chromium package (≈ 30 s).`);
  run("apt-get", ["update", "-q"]);
  run("apt-get", ["install", "-y", "-q", "chromium"]);
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(`apt-get installed chromium but ${CHROMIUM_PATH} is still missing`);
};

const isMain =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;

if (isMain) {
  try {
    ensureChromium();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}
