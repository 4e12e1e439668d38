// The admin CLI beside a running server on the embedded database. A PGlite data dir may be opened by one process
// only (lib/config/pglite-lock.ts), so while `npm start` serves, `npm run admin -- …` cannot open it. Instead the
// server listens on a Unix socket beside the data dir, owner-only (0600: whoever can use it can already read the
// data dir), and runs the same commands (admin-commands.ts) in its own process on its own database handle; the CLI
// sends its arguments there and prints what comes back. One JSON line from the client ({"argv": [...]}), then
// JSON lines from the server: {"o": text} for standard output, {"e": text} for standard error, {"exit": code}.
import { createHash } from "node:crypto";
import { chmodSync, existsSync, unlinkSync } from "node:fs";
import { createRequire, registerHooks } from "node:module";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { Writable } from "node:stream";
import { pathToFileURL } from "node:url";

/** Unix socket paths are limited to ~108 bytes: a long data dir path gets a hashed one in the temp dir. */
const MAX_SOCKET_PATH = 100;
/** The largest request line accepted (an argv is a few hundred bytes). */
const MAX_REQUEST_BYTES = 64 * 1024;

/** The admin socket of a data dir: `<data dir>.admin.sock` beside it (or a hashed name in the temp dir). */
export const adminSocketPath = (dataDir: string): string => {
  const beside = `${path.resolve(dataDir)}.admin.sock`;
  if (beside.length <= MAX_SOCKET_PATH) return beside;
  const hash = createHash("sha256").update(path.resolve(dataDir)).digest("hex").slice(0, 16);
  return path.join(tmpdir(), `acs-admin-${hash}.sock`);
};

/**
 * A command's standard output or error as frames on the socket. Each chunk goes to the socket as it is written
 * (the socket queues it, in order across both streams, ahead of the exit frame written after the command). Waiting
 * for each chunk to reach the kernel instead made this stream hold every later line of a command while the first
 * was in flight, and the exit frame ended the socket before they were written: only a command's first line arrived.
 */
const framed = (socket: Socket, key: "o" | "e") =>
  new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      // a client that left: nobody to print to (the socket's error handler has destroyed it)
      if (socket.writable) socket.write(`${JSON.stringify({ [key]: chunk.toString() })}\n`);
      done();
    },
  });

/** Ends a command's output stream once all it was given has been framed onto the socket. */
const ended = (stream: Writable): Promise<void> => new Promise((resolve) => stream.end(() => resolve()));

const readArgv = (line: string): string[] | null => {
  try {
    const { argv } = JSON.parse(line) as { argv?: unknown };
    return Array.isArray(argv) && argv.every((a) => typeof a === "string") ? argv : null;
  } catch {
    return null;
  }
};

/**
 * The admin commands, loaded into the server process. They use lib/ modules marked "server-only", which the CLI
 * loads under the react-server condition; the server process runs Next under the default conditions, so here the
 * marker resolves to its react-server (empty) entry for these imports. The server bundle is unaffected: Next
 * compiled its own copy of the marker.
 */
const loadAdminCommands = async () => {
  const marker = createRequire(import.meta.url).resolve("server-only"); // its default entry, which throws
  const empty = pathToFileURL(path.join(path.dirname(marker), "empty.js")).href;
  registerHooks({
    resolve: (specifier, context, nextResolve) =>
      specifier === "server-only" ? { url: empty, shortCircuit: true } : nextResolve(specifier, context),
  });
  return import("./admin-commands");
};

/** What the socket runs: the admin commands (admin-commands.ts), or a test's own. */
export type AdminCommands = {
  runAdmin: (argv: string[], io: { stdout: Writable; stderr: Writable }) => Promise<number>;
  adminErrorMessage: (thrown: unknown) => string;
};

/** Serves admin commands on the socket; commands run one at a time, in arrival order. */
export const serveAdminSocket = async (socketPath: string, commands?: AdminCommands): Promise<Server> => {
  const { adminErrorMessage, runAdmin } = commands ?? (await loadAdminCommands());
  // a socket file left by a server that died: nobody answers on it (the data dir's lock said so first)
  if (existsSync(socketPath)) unlinkSync(socketPath);
  let queue = Promise.resolve();
  const server = createServer((socket) => {
    socket.setEncoding("utf8");
    let buffered = "";
    const onData = (chunk: string) => {
      buffered += chunk;
      const newline = buffered.indexOf("\n");
      if (newline < 0) {
        if (buffered.length > MAX_REQUEST_BYTES) socket.destroy();
        return;
      }
      socket.off("data", onData);
      const argv = readArgv(buffered.slice(0, newline));
      const reply = (code: number) => socket.end(`${JSON.stringify({ exit: code })}\n`);
      if (!argv) {
        socket.write(`${JSON.stringify({ e: 'admin socket: send one JSON line {"argv": [...]}\n' })}\n`);
        reply(2);
        return;
      }
      queue = queue.then(async () => {
        const stdout = framed(socket, "o");
        const stderr = framed(socket, "e");
        let code: number;
        try {
          code = await runAdmin(argv, { stdout, stderr });
        } catch (thrown) {
          stderr.write(`admin: ${adminErrorMessage(thrown)}\n`);
          code = 1;
        }
        // every line the command wrote goes out before the exit frame, which ends the socket
        await Promise.all([ended(stdout), ended(stderr)]);
        reply(code);
      });
      // the next command runs whatever became of this one (a socket gone mid-answer included)
      queue = queue.catch(() => {
        socket.destroy();
      });
    };
    socket.on("data", onData);
    socket.on("error", () => socket.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  chmodSync(socketPath, 0o600);
  server.on("close", () => {
    if (existsSync(socketPath)) unlinkSync(socketPath);
  });
  return server;
};

/**
 * Runs a command in the server that holds the data dir; resolves to its exit code.
 * @throws Error when nothing answers on the socket (a server too old to have one, or one still starting)
 */
export const runThroughServer = (
  socketPath: string,
  argv: string[],
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream } = process,
): Promise<number> =>
  new Promise((resolve, reject) => {
    const socket = createConnection(socketPath);
    let exit: number | null = null;
    socket.once("connect", () => socket.write(`${JSON.stringify({ argv })}\n`));
    socket.once("error", (error) => reject(error));
    const lines = createInterface({ input: socket });
    lines.on("line", (line) => {
      const frame = JSON.parse(line) as { o?: string; e?: string; exit?: number };
      if (frame.o !== undefined) io.stdout.write(frame.o);
      if (frame.e !== undefined) io.stderr.write(frame.e);
      if (frame.exit !== undefined) exit = frame.exit;
    });
    lines.once("close", () =>
      exit === null
        ? reject(new Error("the server closed the admin socket without an answer"))
        : resolve(exit),
    );
  });
