import { readFileSync } from "node:fs";

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

// The stand-alone bridge is a child of whatever started it (an MCP client over stdio, npm, a terminal, a process
// manager), and it must end with it: an MCP client ends a stdio server by closing its stdin, then SIGTERM, then
// SIGKILL (MCP spec, lifecycle §"stdio"; the SDK's StdioClientTransport waits 2 s between each). Nothing of ours
// keeps the event loop alive on purpose, but the loopback agent-profile server, keep-alive sockets and timers do,
// so the process ends explicitly: on stdin's end, on SIGTERM/SIGINT/SIGHUP, when stdout is gone (EPIPE), and when
// its parent dies (it is then adopted by another process, whatever kept its stdin open). Requests already being
// handled get a short grace to be answered; after it they are abandoned and the process exits anyway, so the
// client never waits more than about a second.

/** How long requests in flight may still be answered once the client has left. */
export const SHUTDOWN_GRACE_MS = 700;
/** How often the parent is checked (Linux has no portable "parent died" event for a Node process). */
export const PARENT_POLL_MS = 200;

const report = (error: unknown) => {
  process.stderr.write(`bridge: ${error instanceof Error ? error.message : String(error)}\n`);
};

const isRequest = (message: JSONRPCMessage): boolean => "method" in message && "id" in message;
const isResponse = (message: JSONRPCMessage): boolean =>
  "id" in message && ("result" in message || "error" in message);

export type InFlight = {
  /** Requests received and not answered yet. */
  count: () => number;
  /** Resolves when nothing is in flight, or after `ms`, whichever is first. */
  settled: (ms: number) => Promise<void>;
  /** Stops dispatching what arrives from now on (the client is leaving). */
  stopAccepting: () => void;
};

/**
 * Wraps a transport already connected to its server: counts requests in flight (received, not yet answered), and
 * runs `beforeDispatch` ahead of each message, in arrival order (the login's silent refresh), so a handler never
 * sees a token that expired while the process slept.
 */
export const trackInFlight = (transport: Transport, beforeDispatch?: () => Promise<void>): InFlight => {
  let pending = 0;
  let accepting = true;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of waiters) waiter();
    waiters.clear();
  };
  const dispatch = transport.onmessage;
  let queue: Promise<void> = Promise.resolve();
  transport.onmessage = (message, extra) => {
    if (!accepting) return;
    if (isRequest(message)) pending += 1;
    // each step catches its own failure: a refresh that fails still dispatches, and one message never stops the next
    queue = queue
      .then(() => beforeDispatch?.())
      .catch(report)
      .then(() => dispatch?.(message, extra))
      .catch(report);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    try {
      await send(message, options);
    } finally {
      if (isResponse(message) && pending > 0) {
        pending -= 1;
        if (pending === 0) wake();
      }
    }
  };
  return {
    count: () => pending,
    settled: (ms) =>
      pending === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, ms);
            waiters.add(() => {
              clearTimeout(timer);
              resolve();
            });
          }),
    stopAccepting: () => {
      accepting = false;
    },
  };
};

/**
 * Whether the process that started us is gone. `process.ppid` is read once at start-up, so it is asked again: on
 * Linux the kernel's current parent (/proc/self/stat, field 4: it changes when we are adopted); elsewhere whether
 * the original parent still exists.
 */
export const hasParentChanged = (parent: number): boolean => {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) !== parent;
  } catch {
    try {
      process.kill(parent, 0);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "ESRCH";
    }
  }
};

export type ShutdownReason =
  "end of input" | "SIGTERM" | "SIGINT" | "SIGHUP" | "parent exited" | "output closed";

/**
 * Ends the process with its client: calls `shutdown` once, on the first of stdin's end (when `watchStdin`), the
 * signals, stdout failing, or the parent changing; then exits with code 0 even if `shutdown` hangs or throws.
 */
export const endWithClient = ({
  shutdown,
  watchStdin,
  graceMs = SHUTDOWN_GRACE_MS,
  log = (line: string) => process.stderr.write(`${line}\n`),
}: {
  shutdown: (reason: ShutdownReason) => Promise<void>;
  watchStdin: boolean;
  graceMs?: number;
  log?: (line: string) => void;
}): void => {
  let ending = false;
  const end = (reason: ShutdownReason) => {
    if (ending) return;
    ending = true;
    log(`bridge: ${reason}, exiting`);
    // a hard deadline: whatever still holds the loop (a hung fetch, a socket) does not keep the process alive
    setTimeout(() => process.exit(0), graceMs + 300).unref();
    shutdown(reason).then(
      () => process.exit(0),
      (error: unknown) => {
        log(`bridge: shutdown failed: ${error instanceof Error ? error.message : String(error)}`);
        process.exit(0);
      },
    );
  };
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.once(signal, () => end(signal));
  if (watchStdin) {
    process.stdin.once("end", () => end("end of input"));
    process.stdin.once("close", () => end("end of input"));
    process.stdout.on("error", () => end("output closed"));
    // adopted by init or a subreaper: whoever started us is gone, even if something else still holds our stdin
    const parent = process.ppid;
    setInterval(() => {
      if (hasParentChanged(parent)) end("parent exited");
    }, PARENT_POLL_MS).unref();
  }
};
