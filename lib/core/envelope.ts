import { AsyncLocalStorage } from "node:async_hooks";

import { responseCapabilities, type CapabilityName } from "@/lib/ucp/capabilities";
import { UCP_VERSION } from "@/lib/ucp/version";

import type { Severity } from "./error-codes";
import type { AppError } from "./errors";

// The UCP envelope every shopping response carries (CONTRACT.md §2) and the error envelope
// (`error_response.json`: only `ucp`, `messages[]` and an optional `continue_url`).

export type UcpMessage =
  | {
      type: "error";
      code: string;
      content: string;
      severity: Severity;
      path?: string;
      details?: Record<string, unknown>;
    }
  | { type: "warning"; code: string; content: string; path?: string }
  | { type: "info"; content: string; code?: string; path?: string };

export type UcpEnvelope = {
  version: string;
  status?: "success" | "error";
  capabilities?: Record<string, { version: string }[]>;
  payment_handlers?: Record<string, unknown[]>;
};

// The capabilities negotiated for the request being served (UCP overview.md "Response Capability Selection": a
// response lists only capabilities in the negotiated intersection). Set around an operation by
// lib/agents requireCapability; absent (no filtering) outside a negotiated request, e.g. in webhook payloads.
const negotiated = new AsyncLocalStorage<ReadonlySet<string>>();

/** Runs `fn` with the negotiated capability set applied to every successEnvelope it builds. */
export const withNegotiatedCapabilities = <T>(
  active: ReadonlySet<string>,
  fn: () => Promise<T>,
): Promise<T> => negotiated.run(active, fn);

/** The capability set negotiated for the current request, or null when none was. */
export const negotiatedCapabilities = (): ReadonlySet<string> | null => negotiated.getStore() ?? null;

export const successEnvelope = (
  capabilities: readonly CapabilityName[],
  extra: Omit<UcpEnvelope, "version" | "status" | "capabilities"> = {},
  version = UCP_VERSION,
): UcpEnvelope => {
  const active = negotiated.getStore();
  return {
    version,
    status: "success",
    capabilities: responseCapabilities(active ? capabilities.filter((c) => active.has(c)) : capabilities),
    ...extra,
  };
};

export type ErrorBody = {
  ucp: UcpEnvelope;
  messages: UcpMessage[];
  continue_url?: string;
  /** UCP's REST transport-error fields (overview.md "Transport Bindings"), on non-2xx answers only. */
  code?: string;
  content?: string;
  /** Seconds to wait before retrying (rate_limited), beside the Retry-After header. */
  retry_after?: number;
};

/**
 * Codes whose details are part of the answer (UCP messages allow extra fields): the agent needs them to act, e.g.
 * spend_cap_exceeded's remaining allowance per window (DECISIONS B6). Other details stay server-side.
 */
const DETAILS_ON_THE_WIRE: ReadonlySet<string> = new Set(["spend_cap_exceeded"]);

/**
 * The UCP error envelope for an AppError: `ucp.status: "error"` + one error message. A protocol error (non-2xx)
 * also carries UCP's transport-error fields at the top level, `code` and `content` (and `continue_url` when
 * there is one), so a client reading either shape understands it (DECISIONS.md B9).
 */
export const errorBody = (error: AppError, version = UCP_VERSION): ErrorBody => {
  // internal_error never leaks its cause (STYLE.md §6)
  const content = error.code === "internal_error" ? "Internal error" : error.message;
  const body: ErrorBody = {
    ucp: { version, status: "error" },
    messages: [
      {
        type: "error",
        code: error.code,
        content,
        severity: error.spec.severity,
        ...(error.path ? { path: error.path } : {}),
        ...(DETAILS_ON_THE_WIRE.has(error.code) && error.details ? { details: error.details } : {}),
      },
    ],
  };
  const continueUrl = error.details?.continue_url;
  // a business outcome may send the agent somewhere too (mandate_required: where the buyer signs an allowance)
  if (error.spec.httpStatus < 400) {
    return typeof continueUrl === "string" ? { ...body, continue_url: continueUrl } : body;
  }
  const retryAfter = error.details?.retry_after;
  return {
    ...body,
    code: error.code,
    content,
    ...(typeof continueUrl === "string" ? { continue_url: continueUrl } : {}),
    ...(typeof retryAfter === "number" ? { retry_after: retryAfter } : {}),
  };
};
