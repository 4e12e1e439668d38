import { UcpError } from "@agent-commerce/agent-kit";

import { BridgeInputError } from "./money";

// Every failure of a bridge tool reaches the model as a tool result it can act on (seed §4 bridge, issue "Bad
// input"): `isError: true` with `{error: {code, message, path?}}` as JSON text, never a stack trace. The service's
// codes pass through verbatim; the bridge's own input refusals carry the JSONPath of the bridge argument.

export type ToolError = {
  code: string;
  message: string;
  /** JSONPath of the argument (or, for the service's own refusals, of the raw field) the error is about. */
  path?: string;
  /** The service's messages, when it sent several. */
  messages?: unknown[];
  /** A 401's challenge, relayed for clients that cannot see HTTP headers (stdio). */
  www_authenticate?: string;
  /** What an incomplete checkout still needs, each with the JSONPath (in the checkout) to set. */
  missing?: MissingField[];
  /** Where the buyer acts next, when the service named a page (e.g. signing an allowance). */
  continue_url?: string;
} & Record<string, unknown>;

export type MissingField = { path: string; code: string; message: string };

export type ToolErrorResult = {
  content: { type: "text"; text: string }[];
  isError: true;
};

export const toolErrorResult = (error: ToolError): ToolErrorResult => ({
  content: [{ type: "text", text: JSON.stringify({ error }) }],
  isError: true,
});

/** A thrown value as the model sees it. Unknown failures say only that the service could not be reached. */
export const toToolError = (thrown: unknown): ToolError => {
  if (thrown instanceof BridgeInputError) {
    return { ...thrown.details, code: thrown.code, message: thrown.message, path: thrown.path };
  }
  if (thrown instanceof UcpError) {
    const first = thrown.messages[0];
    const content =
      typeof (thrown.body as { content?: unknown } | null)?.content === "string"
        ? (thrown.body as { content: string }).content
        : (first?.content ?? thrown.message);
    const challenge = thrown.headers.get("www-authenticate");
    // UCP transport errors carry continue_url beside code and content where the buyer can act
    const continueUrl = (thrown.body as { continue_url?: unknown } | null)?.continue_url;
    return {
      code: thrown.code,
      message: content,
      ...(first?.path ? { path: first.path } : {}),
      ...(thrown.messages.length > 1 ? { messages: thrown.messages } : {}),
      ...(challenge ? { www_authenticate: challenge } : {}),
      ...(typeof continueUrl === "string" ? { continue_url: continueUrl } : {}),
    };
  }
  // a network failure after the bounded retries (kit retry.ts): the service is down or unreachable
  return {
    code: "service_unavailable",
    message:
      "The commerce service did not answer (after retries with the same idempotency key); try again later",
  };
};

/** A UCP business outcome with `ucp.status: "error"` (HTTP 200): its first error message as the tool error. */
export const businessError = (body: Record<string, unknown>): ToolError | null => {
  const ucp = body.ucp as { status?: unknown } | undefined;
  if (ucp?.status !== "error") return null;
  const messages = Array.isArray(body.messages) ? (body.messages as Record<string, unknown>[]) : [];
  const first = messages.find((m) => m.type === "error") ?? messages[0];
  return {
    code: typeof first?.code === "string" ? first.code : "error",
    message: typeof first?.content === "string" ? first.content : "The service refused the call",
    ...(typeof first?.path === "string" ? { path: first.path } : {}),
    ...(messages.length > 1 ? { messages } : {}),
    ...(typeof body.continue_url === "string" ? { continue_url: body.continue_url } : {}),
  };
};
