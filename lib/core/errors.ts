import { ERROR_CODES, type ErrorCode, type ErrorSpec } from "./error-codes";

// One error class for the whole service (STYLE.md §6). Domain code throws it; surfaces render it.

export type AppErrorOptions = {
  /** JSONPath (RFC 9535) into the request or response body, e.g. `$.line_items[0].quantity`. */
  path?: string;
  /** Extra machine-readable fields rendered to the client (e.g. `retry_after`). Never secrets. */
  details?: Record<string, unknown>;
  /** Extra response headers (e.g. Retry-After, WWW-Authenticate). */
  headers?: Record<string, string>;
  cause?: unknown;
};

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly path?: string;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "AppError";
    this.code = code;
    this.path = options.path;
    this.details = options.details;
    this.headers = options.headers;
  }

  get spec(): ErrorSpec {
    return ERROR_CODES[this.code];
  }
}

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;

type ZodLikeIssue = { path: readonly PropertyKey[]; message: string };
type ZodLikeError = { name: string; issues: readonly ZodLikeIssue[] };

const isZodError = (error: unknown): error is ZodLikeError =>
  typeof error === "object" &&
  error !== null &&
  (error as { name?: unknown }).name === "ZodError" &&
  Array.isArray((error as { issues?: unknown }).issues);

/** Writes a property path as an RFC 9535 JSONPath: ["line_items", 0, "quantity"] → $.line_items[0].quantity */
export const toJsonPath = (segments: readonly PropertyKey[], root = "$"): string =>
  segments.reduce<string>((acc, seg) => {
    if (typeof seg === "number") return `${acc}[${seg}]`;
    const key = String(seg);
    return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${acc}.${key}` : `${acc}['${key.replace(/'/g, "\\'")}']`;
  }, root);

const isPrismaNotFound = (error: unknown): boolean =>
  typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2025";

/**
 * Folds anything thrown into an AppError (STYLE.md §6): ZodError → invalid_request with a JSONPath,
 * Prisma "record not found" → not_found, anything else → internal_error (its message is never shown).
 */
export const toAppError = (error: unknown, pathRoot = "$"): AppError => {
  if (isAppError(error)) return error;
  if (isZodError(error)) {
    const first = error.issues[0];
    const path = first ? toJsonPath(first.path, pathRoot) : pathRoot;
    const message = first ? `${path}: ${first.message}` : "Invalid request";
    return new AppError("invalid_request", message, {
      path,
      details: {
        issues: error.issues.map((i) => ({ path: toJsonPath(i.path, pathRoot), message: i.message })),
      },
    });
  }
  if (isPrismaNotFound(error)) return new AppError("not_found", "Not found", { cause: error });
  return new AppError("internal_error", "Internal error", { cause: error });
};
