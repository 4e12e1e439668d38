import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";

import { REDIS_SERVER } from "@/scripts/ensure-os-packages";

// A real Redis (Debian's redis-server) for the rate-limit tests: on a free loopback port, nothing persisted
// (--save '' --appendonly no), stopped by the test. `kill()` simulates an outage; `start()` again brings it back
// on the same port.

export type RedisServer = {
  url: string;
  port: number;
  start: () => Promise<void>;
  kill: () => Promise<void>;
};

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });

export const redisServer = async (): Promise<RedisServer> => {
  if (!existsSync(REDIS_SERVER)) {
    throw new Error(
      `${REDIS_SERVER} is missing: apt-get install -y redis-server (scripts/ensure-os-packages.ts)`,
    );
  }
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    const process = spawn(
      REDIS_SERVER,
      [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--daemonize",
        "no",
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    child = process;
    await new Promise<void>((resolve, reject) => {
      let output = "";
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output}`)), 10_000);
      process.stdout!.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("Ready to accept connections")) {
          clearTimeout(timer);
          resolve();
        }
      });
      process.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code}): ${output}`));
      });
    });
  };
  const kill = async () => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once("exit", () => resolve());
      running.kill("SIGKILL");
    });
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, start, kill };
};
