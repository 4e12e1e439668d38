import { z } from "zod";

import type { AnyOperation } from "@/lib/core/operation";

// The JSON Schema advertised for each tool in tools/list: `meta` (ucp-agent profile, and the idempotency key on
// state-changing tools), a top-level `id` where the UCP MCP binding puts one, and the payload under its namespace.

type JsonSchema = Record<string, unknown>;

const metaSchema = (mutates: boolean): JsonSchema => ({
  type: "object",
  description: "Request metadata (UCP MCP binding).",
  properties: {
    "ucp-agent": {
      type: "object",
      properties: { profile: { type: "string", format: "uri", description: "Your agent profile URL." } },
      required: ["profile"],
    },
    "idempotency-key": {
      type: "string",
      description: "A fresh UUID per logical attempt; reuse it only to retry the same call.",
    },
  },
  required: mutates ? ["ucp-agent", "idempotency-key"] : ["ucp-agent"],
});

export const toolInputSchema = (op: AnyOperation, withMeta = true): JsonSchema => {
  const properties: Record<string, JsonSchema> = withMeta ? { meta: metaSchema(op.mutates) } : {};
  const required = withMeta ? ["meta"] : [];
  const payload = z.toJSONSchema(op.input, { io: "input", unrepresentable: "any" }) as JsonSchema;
  if (op.mcp.takesId) {
    properties.id = { type: "string", description: "The resource id." };
    required.push("id");
    const payloadProps = { ...((payload.properties as Record<string, unknown> | undefined) ?? {}) };
    delete payloadProps.id;
    payload.properties = payloadProps;
    if (Array.isArray(payload.required)) payload.required = payload.required.filter((r) => r !== "id");
  }
  if (op.mcp.flat) {
    const flatProps = (payload.properties as Record<string, JsonSchema> | undefined) ?? {};
    Object.assign(properties, flatProps);
    if (Array.isArray(payload.required)) required.push(...(payload.required as string[]));
  } else if (op.mcp.namespace) {
    delete payload.$schema;
    properties[op.mcp.namespace] = payload;
    if (Array.isArray(payload.required) && payload.required.length > 0) required.push(op.mcp.namespace);
  }
  return { type: "object", properties, required };
};
