import { z } from "zod";

import { ERROR_CODES } from "@/lib/core/error-codes";
import type { AnyOperation } from "@/lib/core/operation";
import { ErrorEnvelopeSchema } from "@/lib/ucp/output-schemas";

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

/**
 * The outputSchema of a tool (MCP 2025-06-18): a resource, or the UCP error envelope of a business outcome
 * (both come back as structuredContent; protocol errors are JSON-RPC errors and never reach it). Draft-07
 * keywords only: the SDK Client validates structuredContent with Ajv's default (draft-07) dialect.
 */
const outputSchemas = new WeakMap<AnyOperation, JsonSchema>();
export const toolOutputSchema = (op: AnyOperation): JsonSchema => {
  let schema = outputSchemas.get(op);
  if (!schema) {
    const json = (s: z.ZodType): JsonSchema => {
      const out = z.toJSONSchema(s, {
        io: "output",
        target: "draft-07",
        unrepresentable: "any",
      }) as JsonSchema;
      delete out.$schema;
      return out;
    };
    schema = { type: "object", anyOf: [json(op.output), json(ErrorEnvelopeSchema)] };
    outputSchemas.set(op, schema);
  }
  return schema;
};

/** The tool description: the descriptor's text, then what each of its error codes means and what to do next. */
export const toolDescription = (op: AnyOperation): string => {
  const errors = op.errors ?? [];
  if (errors.length === 0) return op.description;
  const lines = errors.map((code) => `- ${code}: ${ERROR_CODES[code].docs}`);
  return `${op.description}\nErrors (the code in messages[0].code, or data.code of a JSON-RPC error):\n${lines.join("\n")}`;
};
