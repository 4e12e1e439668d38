import { execFileSync } from "node:child_process";
import { createServer } from "node:net";

// A free loopback port, found by letting the kernel pick one (bind port 0) and releasing it at once. Another
// process could take it in between; on a test machine that window is small enough, and whoever binds next
// fails loudly rather than silently sharing a port.

const PICK_PORT_SCRIPT = `
const server = require("node:net").createServer();
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(String(server.address().port));
  server.close();
});
`;

/** Resolves to a TCP port on 127.0.0.1 that was free a moment ago. */
export const findFreePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      if (address === null || typeof address === "string") {
        server.close();
        reject(new Error("could not read the port the kernel picked"));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });

/**
 * Same as findFreePort, synchronously: Playwright evaluates its config synchronously, so it asks a short-lived
 * child node process for the port.
 */
export const findFreePortSync = (): number => {
  const out = execFileSync(process.execPath, ["-e", PICK_PORT_SCRIPT], { encoding: "utf8" }).trim();
  const port = Number(out);
  if (!Number.isInteger(port) || port <= 0) throw new Error(`could not find a free port (got "${out}")`);
  return port;
};
