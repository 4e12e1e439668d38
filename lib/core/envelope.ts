import { AsyncLocalStorage } from "node:async_hooks";

import { responseCapabilities, type CapabilityName } from "@/lib/ucp/capabilities";
import { UCP_VERSION } from "@/lib/ucp/version";

import type { Severity } from "./error-codes";
import type { AppError } from "./errors";

// The UCP envelope every shopping response carries (CONTRACT.md §2) and the error envelope
// (`error_response.json`: only `ucp`, `messages[]` and an optional `continue_url`).

export type UcpMessage =
  | { type: "error"; code: string; content: string; severity: Severity; path?: string }
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

export type ErrorBody = { ucp: UcpEnvelope; messages: UcpMessage[]; continue_url?: string };

/** The UCP error envelope for an AppError: `ucp.status: "error"` + one error message (DECISIONS.md B9). */
export const errorBody = (error: AppError, version = UCP_VERSION): ErrorBody => ({
  ucp: { version, status: "error" },
  messages: [
    {
      type: "error",
      code: error.code,
      // internal_error never leaks its cause (STYLE.md §6)
      content: error.code === "internal_error" ? "Internal error" : error.message,
      severity: error.spec.severity,
      ...(error.path ? { path: error.path } : {}),
    },
  ],
});
