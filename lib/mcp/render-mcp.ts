import type { ErrorBody } from "@/lib/core/envelope";
import type { AppError } from "@/lib/core/errors";
import { logError } from "@/lib/core/log";

// MCP renderer (STYLE.md §6): protocol errors become JSON-RPC errors (code from the error table, the UCP code
// and content in `data`); business outcomes and resources are tool results whose `structuredContent` is the
// exact UCP body, with the same JSON as text for clients that only read `content` (UCP §16).

export type JsonRpcErrorObject = { code: number; message: string; data: Record<string, unknown> };

/** A throwable JSON-RPC error: the MCP SDK copies `code`, `message` and `data` into the error response. */
class McpProtocolError extends Error {
  readonly code: number;
  readonly data: Record<string, unknown>;
  readonly httpStatus: number;

  constructor(error: AppError) {
    super(error.code === "internal_error" ? "Internal error" : error.message);
    this.code = error.spec.mcpCode;
    this.httpStatus = error.spec.httpStatus;
    this.data = {
      code: error.code,
      content: this.message,
      ...(error.path ? { path: error.path } : {}),
      ...(error.code === "internal_error" ? {} : (error.details ?? {})),
    };
  }
}

export const toMcpProtocolError = (error: AppError, requestId: string | null): McpProtocolError => {
  if (error.code === "internal_error") logError(error, requestId);
  return new McpProtocolError(error);
};

export const toJsonRpcError = (error: AppError, requestId: string | null): JsonRpcErrorObject => {
  const e = toMcpProtocolError(error, requestId);
  return { code: e.code, message: e.message, data: e.data };
};

export type ToolResult = {
  structuredContent: Record<string, unknown>;
  content: { type: "text"; text: string }[];
  isError?: boolean;
};

/** A tool result carrying a UCP body (a resource, or a business error envelope with ucp.status "error"). */
export const toolResult = (bodyText: string): ToolResult => {
  const body = JSON.parse(bodyText) as Record<string, unknown> | ErrorBody;
  return { structuredContent: body as Record<string, unknown>, content: [{ type: "text", text: bodyText }] };
};
