// Admin CLI: `npm run admin -- <command> [options]`. Operators manage platform keys, stores' webhooks and Stripe
// keys, and orders (fulfil, cancel, refund) here (seed §5: how keys are issued is ours). Runs with the
// react-server condition so lib/ modules marked "server-only" load. The commands live in scripts/lib/admin-commands.ts.
// While a server holds the embedded database (`npm start` on PGlite), the command runs inside that server through
// its admin socket (scripts/lib/admin-socket.ts): a second process must never open the data dir.
import { closeDb } from "@/lib/config/db";
import { getEnv } from "@/lib/config/env";
import { pgliteHolder } from "@/lib/config/pglite-lock";

import { adminErrorMessage, runAdmin } from "./lib/admin-commands";
import { adminSocketPath, runThroughServer } from "./lib/admin-socket";

const argv = process.argv.slice(2);

/** The embedded data dir when a live server holds it (then the command goes to that server), else null. */
const heldDataDir = (): { dir: string; pid: number } | null => {
  const env = getEnv();
  if (env.DATABASE_URL || env.PGLITE_DIR.startsWith("memory://")) return null;
  const holder = pgliteHolder(env.PGLITE_DIR);
  return holder ? { dir: env.PGLITE_DIR, pid: holder.pid } : null;
};

const main = async (): Promise<number> => {
  const held = heldDataDir();
  if (!held) return runAdmin(argv);
  const socket = adminSocketPath(held.dir);
  try {
    return await runThroughServer(socket, argv);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(
      code === "ENOENT" || code === "ECONNREFUSED"
        ? `The embedded database is in use by the server (pid ${held.pid}), which does not answer on its admin ` +
            `socket ${socket} (still starting, or started by an older version): retry in a moment, or stop it.`
        : `The server (pid ${held.pid}) did not run the command: ${(error as Error).message}`,
    );
  }
};

/**
 * Resolves once what was written to the stream has left this process: process.exit drops what a pipe or socket
 * still queues (asynchronous on some platforms and for sockets), and the lines may hold a key shown only once.
 */
const flushed = (stream: NodeJS.WriteStream): Promise<void> =>
  new Promise((resolve) => {
    if (!stream.writable) resolve();
    else stream.write("", () => resolve());
  });

const exit = async (code: number): Promise<never> => {
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  process.exit(code);
};

main()
  .then(async (code) => {
    await closeDb();
    await exit(code);
  })
  .catch(async (thrown: unknown) => {
    console.error(`admin: ${adminErrorMessage(thrown)}`);
    await closeDb().catch(() => undefined);
    await exit(1);
  });
