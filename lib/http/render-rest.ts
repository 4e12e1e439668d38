import { errorBody } from "@/lib/core/envelope";
import type { AppError } from "@/lib/core/errors";
import { responseOf } from "@/lib/core/known-body";
import { logError } from "@/lib/core/log";
import { UCP_VERSION } from "@/lib/ucp/version";
import { isOlderVersion } from "@/lib/ucp/versions";
import { errorDown } from "@/lib/ucp/versions/envelope";

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
  const body = errorBody(error, version);
  // at an older version, that version's error shape and status (docs/ucp-versions.md §3.14)
  const answer = isOlderVersion(version)
    ? errorDown(version, body as unknown as Record<string, unknown>, error.spec.httpStatus)
    : { status: error.spec.httpStatus, body };
  return jsonResponse(answer.status, JSON.stringify(answer.body), requestId, errorHeaders(error));
};
