import "server-only";

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

import { negotiateWithAgent } from "@/lib/agents/negotiate-agent";
import { AppError, toAppError } from "@/lib/core/errors";
import type { AnyOperation, OperationContext } from "@/lib/core/operation";
import { assertCanCall } from "@/lib/credentials/principal";
import { errorHeaders } from "@/lib/http/auth-challenge";
import { executeOperation, outcomeError } from "@/lib/http/execute-operation";
import { assertIdempotencyKey, assertProfileUrl } from "@/lib/http/request-envelope";

import { toMcpProtocolError, toolResult } from "./render-mcp";
import { toolDescription, toolInputSchema, toolOutputSchema } from "./tool-schema";

// One MCP server per request (stateless; DECISIONS.md A): the low-level SDK Server, so that a thrown error with a
// JSON-RPC code becomes a JSON-RPC error and not an `isError` tool result. Each tool is a descriptor from lib/.

export type ToolCallContext = Omit<OperationContext, "agentProfile" | "idempotencyKey">;

export type McpServerOptions = {
  name: string;
  instructions: string;
  tools: readonly AnyOperation[];
  context: ToolCallContext;
  /** UCP shopping surfaces need meta['ucp-agent'] on every call; the account surface does not (seed §5 rule 9). */
  requiresAgentMeta?: boolean;
  /** The profile of the request's UCP-Agent header (normalised); each tool call's meta profile must equal it. */
  headerProfile?: string;
  /**
   * Receives the HTTP status of a protocol error and its headers, so the route can answer with them (UCP: HTTP
   * status primary; a 401's WWW-Authenticate is what an MCP client starts OAuth from).
   */
  onProtocolError: (status: number, headers?: Record<string, string>) => void;
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** seed §4: the profile in meta is required on every tool call; the key on the seven state-changing tools. */
const readMeta = (name: string, op: AnyOperation, args: Record<string, unknown>, headerProfile?: string) => {
  const meta = isRecord(args.meta) ? args.meta : {};
  const agent = isRecord(meta["ucp-agent"]) ? meta["ucp-agent"] : {};
  const profile = agent.profile;
  if (typeof profile !== "string" || profile.trim() === "") {
    throw new AppError("missing_ucp_agent", `Tool ${name} requires meta.ucp-agent.profile`, {
      path: "$.meta['ucp-agent'].profile",
    });
  }
  const agentProfile = assertProfileUrl(profile, `Tool ${name}: meta.ucp-agent.profile`);
  // The header's profile keys the request's signature and the meta's is negotiated: two different agents in
  // one call would validate one profile and act for the other.
  if (headerProfile && agentProfile !== headerProfile) {
    throw new AppError(
      "invalid_ucp_agent",
      `Tool ${name}: meta.ucp-agent.profile "${agentProfile}" differs from the UCP-Agent header's profile "${headerProfile}"; send the same profile in both`,
      { path: "$.meta['ucp-agent'].profile" },
    );
  }
  const rawKey = meta["idempotency-key"];
  if (!op.mutates) return { agentProfile, idempotencyKey: null };
  if (typeof rawKey !== "string" || rawKey.trim() === "") {
    throw new AppError("missing_idempotency_key", `Tool ${name} requires meta[idempotency-key]`, {
      path: "$.meta['idempotency-key']",
    });
  }
  return { agentProfile, idempotencyKey: assertIdempotencyKey(rawKey, "$.meta['idempotency-key']") };
};

/** MCP arguments → operation input: the namespace object plus the top-level `id` (seed §4: never flat). */
/** The payload field names of an operation (its input schema's properties), computed once per operation. */
const payloadFields = new WeakMap<AnyOperation, ReadonlySet<string>>();
const payloadFieldsOf = (op: AnyOperation): ReadonlySet<string> => {
  let fields = payloadFields.get(op);
  if (!fields) {
    const schema = z.toJSONSchema(op.input, { io: "input", unrepresentable: "any" }) as {
      properties?: object;
    };
    fields = new Set(Object.keys(schema.properties ?? {}));
    payloadFields.set(op, fields);
  }
  return fields;
};

const toolInput = (op: AnyOperation, args: Record<string, unknown>): unknown => {
  const { namespace, takesId, flat } = op.mcp;
  if (flat) {
    const { meta: _meta, ...rest } = args;
    return rest;
  }
  // a payload field sent beside the namespace instead of inside it would be silently ignored: say where it goes
  const misplaced = namespace
    ? Object.keys(args).find(
        (k) => k !== namespace && k !== "meta" && k !== "id" && payloadFieldsOf(op).has(k),
      )
    : undefined;
  if (misplaced && namespace) {
    throw new AppError(
      "invalid_request",
      `Tool ${op.name}: ${misplaced} belongs inside ${namespace} — send { "${namespace}": { "${misplaced}": … } }`,
      { path: `$.${misplaced}` },
    );
  }
  const payload = namespace ? (args[namespace] ?? {}) : {};
  if (!isRecord(payload)) {
    throw new AppError("invalid_request", `Tool ${op.name}: ${namespace} must be an object`, {
      path: `$.${namespace}`,
    });
  }
  return takesId && args.id !== undefined ? { ...payload, id: args.id } : payload;
};

export const createMcpServer = ({
  name,
  instructions,
  tools,
  context,
  onProtocolError,
  headerProfile,
  requiresAgentMeta = true,
}: McpServerOptions) => {
  const server = new Server({ name, version: "1.0.0" }, { capabilities: { tools: {} }, instructions });
  const byName = new Map(tools.map((op) => [op.name, op]));

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((op) => ({
      name: op.name,
      title: op.title,
      description: toolDescription(op),
      inputSchema: toolInputSchema(op, requiresAgentMeta) as { type: "object" },
      outputSchema: toolOutputSchema(op) as { type: "object" },
      annotations: { title: op.title, ...op.mcp.annotations },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name: toolName } = request.params;
    const op = byName.get(toolName);
    if (!op) {
      throw Object.assign(new Error(`Unknown tool: ${toolName}`), { code: ErrorCode.MethodNotFound });
    }
    const args = isRecord(request.params.arguments) ? request.params.arguments : {};
    try {
      const { agentProfile, idempotencyKey } = requiresAgentMeta
        ? readMeta(toolName, op, args, headerProfile)
        : { agentProfile: "", idempotencyKey: null };
      // An anonymous caller never makes the service fetch the profile it names; a tool above its tier, or a
      // buyer-bound one, is refused before anything is fetched (as on REST, lib/http/resolve-caller.ts).
      const isAnonymous = context.tier === "anonymous";
      if (isAnonymous) assertCanCall(context.principal, context.tier, op);
      // UCP MCP binding: the profile in meta is the one negotiated for this call.
      const ucpVersion =
        agentProfile && !isAnonymous
          ? await negotiateWithAgent(agentProfile, context.store, "mcp")
          : context.ucpVersion;
      const outcome = await executeOperation(
        op,
        { ...context, agentProfile, idempotencyKey, ucpVersion, now: new Date() },
        toolInput(op, args),
      );
      const stored = outcomeError(outcome);
      if (stored) throw stored;
      return toolResult(outcome.bodyText);
    } catch (thrown) {
      const appError = toAppError(thrown);
      const error = toMcpProtocolError(appError, context.requestId);
      onProtocolError(error.httpStatus, errorHeaders(appError));
      throw error;
    }
  });

  return server;
};
