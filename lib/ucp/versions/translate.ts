import { checkoutDown, checkoutUp } from "./checkout";
import { errorDown } from "./envelope";
import { OPERATIONS_AT, type HandlerDocs, type OlderVersion } from "./index";

// The three hooks the surfaces call around an operation when an older version was negotiated
// (docs/ucp-versions.md §5.2). At 2026-04-08 nobody calls them: the surfaces pass our shapes through.

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const CHECKOUT_OPERATIONS: ReadonlySet<string> = new Set([
  "create_checkout",
  "get_checkout",
  "update_checkout",
  "complete_checkout",
  "cancel_checkout",
]);

/** Whether `operation` exists at `version` (its OpenAPI/OpenRPC); the others are refused before they run (§2). */
export const existsAt = (version: OlderVersion, operation: string): boolean =>
  OPERATIONS_AT[version].has(operation);

/**
 * An older request body → our input for `operation` (before the operation and its idempotency hash, so a replay
 * with the same older body hashes the same).
 * @throws AppError invalid_request (see checkoutUp)
 */
export const translateRequest = (
  version: OlderVersion,
  operation: string,
  body: unknown,
  context: { id?: string; storeCurrency: string },
): unknown => (CHECKOUT_OPERATIONS.has(operation) ? checkoutUp(version, operation, body, context) : body);

/**
 * Our answer (status and body) → the older shape: an error envelope (`ucp.status: "error"`, or any non-2xx)
 * through errorDown, which may change the status (§3.14); a checkout through checkoutDown; anything else
 * (prepare_checkout_payment's answer, which is not a UCP shape) passes untouched.
 */
export const translateResponse = (
  version: OlderVersion,
  operation: string,
  status: number,
  body: unknown,
  docs: (registryKey: string) => HandlerDocs,
): { status: number; body: unknown; error: boolean } => {
  if (!isObject(body)) return { status, body, error: false };
  const ucp = isObject(body.ucp) ? body.ucp : undefined;
  if (ucp?.status === "error" || status >= 400) return { ...errorDown(version, body, status), error: true };
  if (CHECKOUT_OPERATIONS.has(operation)) {
    return { status, body: checkoutDown(version, body, docs), error: false };
  }
  return { status, body, error: false };
};
