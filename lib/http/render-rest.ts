import { errorBody } from "@/lib/core/envelope";
import type { AppError } from "@/lib/core/errors";
import { responseOf } from "@/lib/core/known-body";
import { logError } from "@/lib/core/log";
import { UCP_VERSION } from "@/lib/ucp/version";

import { errorHeaders } from "./auth-challenge";

// REST renderer (STYLE.md §6): JSON body, status and headers. Route files never build error JSON.

const baseHeaders = (requestId: string | null, extra?: Record<string, string>): Headers => {
  const headers = new Headers({
    "content-type": "application/json; charset=utf-8",
    "cache-control": "no-store",
  });
  if (requestId) headers.set("request-id", requestId);
  for (const [k, v] of Object.entries(extra ?? {})) headers.set(k, v);
  return headers;
};

/** A JSON response with the exact bytes given (idempotent replays are byte for byte). */
export const jsonResponse = (
  status: number,
  bodyText: string,
  requestId: string | null,
  headers?: Record<string, string>,
): Response => responseOf(bodyText, { status, headers: baseHeaders(requestId, headers) });

/** An AppError as the UCP error envelope with its table status (business → 200, protocol → 4xx/5xx). */
export const errorResponse = (error: AppError, requestId: string | null, version = UCP_VERSION): Response => {
  if (error.code === "internal_error") logError(error, requestId);
  return jsonResponse(
    error.spec.httpStatus,
    JSON.stringify(errorBody(error, version)),
    requestId,
    errorHeaders(error),
  );
};
