import { createRequire } from "node:module";
import path from "node:path";

import pino, { type DestinationStream, type Logger } from "pino";

// The service's one logger (pino): one JSON line per event on stdout, for a log shipper to read. Pretty, coloured
// lines instead in development (NODE_ENV=development, or LOG_PRETTY=1). Level from LOG_LEVEL (default info).
// A log outlives the request and is read by more people than the secrets' owners, so secrets are kept out twice:
//   - by field: pino's `redact` censors the fields that carry credentials whatever their value (authorization,
//     x-api-key, cookie, tokens, secrets) at the top level and one or two levels down (a `headers` object);
//   - by text: every message (and an error's message and stack) goes through redactSecrets, because an
//     unexpected error's message can quote its input (a driver echoing a query's arguments, a parser quoting a
//     header), and that input may be a key or a token.
// Unexpected errors carry the Request-Id so an operator can find them from a client's report; their details
// never reach the client.

// Our own formats (lib/credentials/api-key-format.ts, lib/oauth) and the providers' we hold for stores.
const SECRET_PATTERNS: [RegExp, string][] = [
  [/\bacs_([A-Za-z0-9]{12})_[A-Za-z0-9_-]{20,}/g, "acs_$1_[redacted]"], // platform API key: keep the public prefix
  [/\b(ocs|ort|oac)_[A-Za-z0-9_-]{20,}/g, "$1_[redacted]"], // OAuth client secret, refresh token, authorization code
  [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, "[redacted JWT]"], // access tokens, signed mandates
  [/\b(sk|rk)_(live|test)_[A-Za-z0-9]{8,}/g, "$1_$2_[redacted]"], // Stripe secret / restricted keys
  [/\bwhsec_[A-Za-z0-9+/=]{8,}/g, "whsec_[redacted]"], // webhook signing secrets
  [/\b(pi|seti)_[A-Za-z0-9]+_secret_[A-Za-z0-9]+/g, "$1_[redacted client secret]"], // Stripe client secrets
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, "$1 [redacted]"],
];

/** `text` with every recognisable secret replaced (public prefixes kept so an operator can still tell which). */
export const redactSecrets = (text: string): string =>
  SECRET_PATTERNS.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);

/** Field names whose value is a credential, whatever it looks like. */
const SECRET_FIELDS = [
  "authorization",
  "cookie",
  '["set-cookie"]',
  '["x-api-key"]',
  "api_key",
  "apiKey",
  "token",
  "access_token",
  "refresh_token",
  "id_token",
  "code_verifier",
  "client_secret",
  "secret",
  "password",
];
/** Each field at the top level, and one or two levels down (`headers.authorization`, `req.headers.cookie`). */
export const REDACT_PATHS = SECRET_FIELDS.flatMap((field) => {
  const member = field.startsWith("[") ? field : `.${field}`;
  return [field, `*${member}`, `*.*${member}`];
});

const LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
type Level = (typeof LEVELS)[number];

/** pino-pretty is a development dependency: loaded only when asked for, from the project's node_modules. */
const prettyStream = (): DestinationStream | null => {
  try {
    const load = createRequire(path.join(process.cwd(), "package.json"));
    const pretty = load("pino-pretty") as (options: object) => DestinationStream;
    return pretty({ colorize: true, sync: true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname" });
  } catch {
    return null; // not installed (a production install): JSON lines, which every deployment can read anyway
  }
};

const wantsPretty = (): boolean => {
  const flag = process.env.LOG_PRETTY;
  if (flag === "1" || flag === "0") return flag === "1";
  return process.env.NODE_ENV === "development";
};

/** What a batch writes to: sonic-boom's synchronous stdout, which waits out a full pipe. */
type LineTarget = { write: (text: string) => unknown };
/** A destination that writes its lines in batches, and the function that writes what waits now. */
export type BatchedDestination = DestinationStream & { flush: (done?: () => void) => void };

/**
 * Lines written to `target` in batches: everything logged within `ms` goes in one write (sooner once `bytes` wait).
 * One write per line cost the busy server ~45 µs a line (an access line per request, and a reader woken for each),
 * a measurable part of a checkout's CPU; a line now reaches the log up to `ms` later. What waits is written when
 * the process exits (the `exit` event: a return from main, process.exit, an uncaught error); a process killed
 * outright (SIGKILL, the OOM killer) loses at most those `ms` of lines.
 */
export const batchedDestination = (
  target: LineTarget,
  { ms, bytes }: { ms: number; bytes: number },
): BatchedDestination => {
  let waiting: string[] = [];
  let size = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = (done?: () => void) => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (waiting.length > 0) {
      const text = waiting.length === 1 ? waiting[0]! : waiting.join("");
      waiting = [];
      size = 0;
      target.write(text);
    }
    done?.();
  };
  return {
    write(line: string) {
      waiting.push(line);
      size += line.length;
      if (size >= bytes) flush();
      else timer ??= setTimeout(() => flush(), ms).unref();
    },
    flush,
  };
};

/** The process's stdout log destination: one, made on first use, written out on exit. */
let stdoutLines: BatchedDestination | null = null;
const stdoutDestination = (): BatchedDestination => {
  if (!stdoutLines) {
    const lines = batchedDestination(pino.destination({ fd: 1, sync: true }), { ms: 100, bytes: 16_384 });
    process.on("exit", () => lines.flush());
    stdoutLines = lines;
  }
  return stdoutLines;
};

let destination: DestinationStream | null = null;
let instance: Logger | null = null;
let accessInstance: Logger | null = null;

const createLogger = (): Logger => {
  const requested = process.env.LOG_LEVEL as Level | undefined;
  // test runs make thousands of requests: their access lines would bury the test output (a test asks for them)
  const fallback: Level = process.env.NODE_ENV === "test" ? "warn" : "info";
  const level: Level = requested && LEVELS.includes(requested) ? requested : fallback;
  const stream = destination ?? (wantsPretty() ? prettyStream() : null) ?? stdoutDestination();
  return pino(
    {
      level,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: "[redacted]" },
      hooks: {
        // every message text through redactSecrets (the fields are pino's redact paths' business)
        logMethod(args, method) {
          const cleaned = args.map((arg: unknown) => (typeof arg === "string" ? redactSecrets(arg) : arg));
          return method.apply(this, cleaned as Parameters<typeof method>);
        },
      },
    },
    stream,
  );
};

/** The logger (created on first use, so LOG_LEVEL and NODE_ENV are read as the process has them then). */
export const logger = (): Logger => (instance ??= createLogger());

/**
 * The logger of the access lines (lib/ops/access-log.ts): the same destination, level and message hook, without
 * the field redaction. An access line's fields are set by our code (method, route pattern, status, duration,
 * Request-Id, the kind of credential, the store's slug), none of them a credential; the redaction's walk of the
 * wildcard paths cost about 50 µs a line, a measurable part of a checkout's CPU at one line per request.
 */
export const accessLogger = (): Logger => (accessInstance ??= logger().child({}, { redact: [] }));

/**
 * Sends the log lines to `stream` (tests capture them), or back to stdout with `null`. The logger is rebuilt, so
 * LOG_LEVEL and LOG_PRETTY are read again.
 */
export const setLogDestination = (stream: DestinationStream | null): void => {
  destination = stream;
  instance = null;
  accessInstance = null;
};

/** An unexpected error: one error line with the Request-Id, the error's code, and its redacted message and stack. */
export const logError = (error: Error, requestId: string | null): void => {
  const cause = error.cause instanceof Error ? error.cause : error;
  logger().error(
    {
      request_id: requestId,
      code: (error as { code?: string }).code,
      stack: cause.stack === undefined ? undefined : redactSecrets(cause.stack),
    },
    redactSecrets(cause.message),
  );
};

/** `error`'s message, redacted, for a log line's text. */
export const errorText = (error: unknown): string =>
  redactSecrets(error instanceof Error ? error.message : String(error));
