import { UcpError } from "@agent-commerce/agent-kit";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { z } from "zod";

import type { BridgeContext } from "./context";
import { businessError, toolErrorResult, toToolError } from "./errors";
import { ACCOUNT_TOOLS } from "./proxy-account-tools";
import { SHOPPING_TOOLS, type BridgeTool } from "./tools";

// The bridge's MCP server: the low-level SDK Server (as lib/mcp does), so that input validation answers with our
// own tool error — code `invalid_request` and the argument's JSONPath — instead of the SDK's prose, and every
// failure reaches the model as a tool result (errors.ts). One server per request or per stdio session; stateless.

export const BRIDGE_TOOLS: readonly BridgeTool[] = [...SHOPPING_TOOLS, ...ACCOUNT_TOOLS];

const INSTRUCTIONS =
  "Shop across the Agent Commerce Service's stores with flat arguments. Prices you send are in major units with their currency (12.50 USD); amounts you read are in minor units with a formatted twin. Flow: search_products → create_checkout (store_slug, items, buyer, shipping_address) → update_checkout (shipping_method_id) → confirm_purchase (moves money: ask the buyer first). Crypto: quote_purchase → the buyer's wallet signs and submits the transaction → confirm_purchase with transaction_digest; a pending result means call again with the same digest, never pay again. Crypto and the buyer account tools need the buyer's OAuth bearer.";

/** `$.a.b[0]` from a zod issue path. */
const jsonPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>(
    (out, key) => (typeof key === "number" ? `${out}[${key}]` : `${out}.${String(key)}`),
    "$",
  );

const jsonSchemaOf = (schema: z.ZodType, io: "input" | "output") =>
  z.toJSONSchema(schema, { io, unrepresentable: "any" }) as { type: "object" } & Record<string, unknown>;

/** tools/list entries, computed once (the schemas never change at run time). */
let listing: Tool[] | undefined;
export const toolListing = (): Tool[] =>
  (listing ??= BRIDGE_TOOLS.map((tool) => {
    const { $schema: _in, ...inputSchema } = jsonSchemaOf(tool.input, "input");
    const { $schema: _out, ...outputSchema } = jsonSchemaOf(tool.output, "output");
    return {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema,
      outputSchema,
      annotations: { title: tool.title, ...tool.annotations },
    };
  }));

/** Runs one tool: validate, call the service, and turn every failure into a tool error result. */
export const runTool = async (ctx: BridgeContext, tool: BridgeTool, rawArgs: unknown) => {
  const parsed = tool.input.safeParse(rawArgs ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return toolErrorResult({
      code: "invalid_request",
      message: `${tool.name}: ${issue?.message ?? "invalid arguments"}`,
      path: jsonPath(issue?.path ?? []),
    });
  }
  try {
    const body = await tool.run(ctx, parsed.data);
    const refused = businessError(body);
    if (refused) return toolErrorResult(refused);
    return { structuredContent: body, content: [{ type: "text" as const, text: JSON.stringify(body) }] };
  } catch (thrown) {
    // seed §5 rule 6: a 401 reaches the MCP client as HTTP 401 with its WWW-Authenticate (HTTP surface)
    if (thrown instanceof UcpError && thrown.status === 401) ctx.onUnauthorized?.(thrown);
    return toolErrorResult(toToolError(thrown));
  }
};

// one Ajv instance for every per-request server (each would build its own, for elicitation we never send)
const schemaValidator = new AjvJsonSchemaValidator();

export const createBridgeServer = (ctx: BridgeContext): Server => {
  const server = new Server(
    { name: "agent-commerce-service/bridge", version: "1.0.0" },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: schemaValidator },
  );
  const byName = new Map(BRIDGE_TOOLS.map((tool) => [tool.name, tool]));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolListing() }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) {
      throw Object.assign(new Error(`Unknown tool: ${request.params.name}`), {
        code: ErrorCode.MethodNotFound,
      });
    }
    return runTool(ctx, tool, request.params.arguments);
  });
  return server;
};
