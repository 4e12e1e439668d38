import "server-only";

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { z } from "zod";

import { negotiateWithAgent } from "@/lib/agents/negotiate-agent";
import { errorBody } from "@/lib/core/envelope";
import { ERROR_CODES, type ErrorCode as UcpErrorCode } from "@/lib/core/error-codes";
import { AppError, toAppError } from "@/lib/core/errors";
import { logError } from "@/lib/core/log";
import type { AnyOperation, OperationContext } from "@/lib/core/operation";
import { assertCanCall } from "@/lib/credentials/principal";
import { errorHeaders } from "@/lib/http/auth-challenge";
import { executeOperation, outcomeError, refuseInvalidUnderUsedKey } from "@/lib/http/execute-operation";
import { assertIdempotencyKey, assertProfileUrl } from "@/lib/http/request-envelope";
import { UCP_VERSION } from "@/lib/ucp/version";
import { handlerDocsAt, isOlderVersion, type OlderVersion } from "@/lib/ucp/versions";
import { errorDown } from "@/lib/ucp/versions/envelope";
import { existsAt, translateRequest, translateResponse } from "@/lib/ucp/versions/translate";

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

/**
 * The older call forms (docs/ucp-versions.md §3.17), honoured only once the profile says an older version: the
 * 2026-01-11 doc's `params._meta.ucp.profile`, and the `idempotency_key` parameter of both older OpenRPCs.
 */
type OlderForms = { metaProfile?: unknown; idempotencyKey?: unknown };

const olderFormsOf = (params: Record<string, unknown>, args: Record<string, unknown>): OlderForms => {
  const meta = isRecord(params._meta) ? params._meta : {};
  const ucp = isRecord(meta.ucp) ? meta.ucp : {};
  return { metaProfile: ucp.profile, idempotencyKey: args.idempotency_key };
};

/** seed §4: the profile in meta is required on every tool call; the key on the seven state-changing tools. */
const readMeta = (
  name: string,
  op: AnyOperation,
  args: Record<string, unknown>,
  headerProfile?: string,
  older: OlderForms = {},
) => {
  const meta = isRecord(args.meta) ? args.meta : {};
  const agent = isRecord(meta["ucp-agent"]) ? meta["ucp-agent"] : {};
  const viaOlderMeta = agent.profile === undefined && typeof older.metaProfile === "string";
  const profile = viaOlderMeta ? older.metaProfile : agent.profile;
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
  const viaOlderKey = meta["idempotency-key"] === undefined && typeof older.idempotencyKey === "string";
  const rawKey = viaOlderKey ? older.idempotencyKey : meta["idempotency-key"];
  const olderForm = viaOlderMeta ? "profile" : viaOlderKey ? "key" : null;
  if (!op.mutates) return { agentProfile, idempotencyKey: null, olderForm };
  if (typeof rawKey !== "string" || rawKey.trim() === "") {
    throw new AppError("missing_idempotency_key", `Tool ${name} requires meta[idempotency-key]`, {
      path: "$.meta['idempotency-key']",
    });
  }
  return {
    agentProfile,
    idempotencyKey: assertIdempotencyKey(rawKey, "$.meta['idempotency-key']"),
    olderForm,
  };
};

/**
 * An older version's arguments → the request body its translation takes: the payload under the namespace
 * (`checkout`, as at 2026-01-23 and the 2026-01-11 OpenRPC) or flat beside the id (the 2026-01-11 doc's form).
 */
const olderPayload = (op: AnyOperation, args: Record<string, unknown>): unknown => {
  const { namespace } = op.mcp;
  if (namespace && isRecord(args[namespace])) return args[namespace];
  const { meta: _meta, id: _id, idempotency_key: _key, ...flat } = args;
  return flat;
};

/** An older version's arguments → our input: translated up, with the top-level `id` (as toolInput). */
const olderInput = (
  version: OlderVersion,
  op: AnyOperation,
  args: Record<string, unknown>,
  storeCurrency: string,
): unknown => {
  const body = translateRequest(version, op.name, olderPayload(op, args), {
    ...(typeof args.id === "string" ? { id: args.id } : {}),
    storeCurrency,
  });
  return op.mcp.takesId && args.id !== undefined && isRecord(body) ? { ...body, id: args.id } : body;
};

/**
 * An older-version answer that is an error (docs/ucp-versions.md §3.14): a JSON-RPC error whose `data` is the
 * version's error body, with the table's code (a business outcome has none: 409 → -32000, else -32602), except
 * capabilities_incompatible, which stays a tool result as at 2026-04-08 (§2).
 */
const olderError = (status: number, body: Record<string, unknown>) => {
  const code = String(body.code ?? "");
  const spec = Object.hasOwn(ERROR_CODES, code) ? ERROR_CODES[code as UcpErrorCode] : undefined;
  const rpc = spec && spec.mcpCode !== 0 ? spec.mcpCode : status === 409 ? -32000 : -32602;
  return Object.assign(new Error(String(body.content ?? code)), {
    code: rpc,
    data: body,
    httpStatus: status,
  });
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

// A server is made per request (stateless HTTP); each would build its own Ajv instance (meta-schemas, vocabularies:
// ~0.2 ms of CPU a request, profiled) for elicitation, which we never send. One instance serves them all.
const schemaValidator = new AjvJsonSchemaValidator();

export const createMcpServer = ({
  name,
  instructions,
  tools,
  context,
  onProtocolError,
  headerProfile,
  requiresAgentMeta = true,
}: McpServerOptions) => {
  const server = new Server(
    { name, version: "1.0.0" },
    { capabilities: { tools: {} }, instructions, jsonSchemaValidator: schemaValidator },
  );
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
    let older: OlderVersion | null = null;
    const op = byName.get(toolName);
    if (!op) {
      throw Object.assign(new Error(`Unknown tool: ${toolName}`), { code: ErrorCode.MethodNotFound });
    }
    const args = isRecord(request.params.arguments) ? request.params.arguments : {};
    try {
      const { agentProfile, idempotencyKey, olderForm } = requiresAgentMeta
        ? readMeta(toolName, op, args, headerProfile, olderFormsOf(request.params, args))
        : { agentProfile: "", idempotencyKey: null, olderForm: null };
      // An anonymous caller never makes the service fetch the profile it names; a tool above its tier, or a
      // buyer-bound one, is refused before anything is fetched (as on REST, lib/http/resolve-caller.ts).
      const isAnonymous = context.tier === "anonymous";
      if (isAnonymous) assertCanCall(context.principal, context.tier, op);
      // UCP MCP binding: the profile in meta is the one negotiated for this call.
      const ucpVersion =
        agentProfile && !isAnonymous
          ? await negotiateWithAgent(agentProfile, context.store, "mcp")
          : context.ucpVersion;
      older = isOlderVersion(ucpVersion) ? ucpVersion : null;
      if (!older && olderForm) {
        // the older call forms are those versions' only: at ours, meta is where they go (seed §4)
        throw new AppError(
          olderForm === "profile" ? "missing_ucp_agent" : "missing_idempotency_key",
          `Tool ${toolName}: _meta.ucp.profile and idempotency_key are UCP 2026-01-11/2026-01-23 forms; at ` +
            `${UCP_VERSION} send meta["ucp-agent"].profile and meta["idempotency-key"]`,
        );
      }
      if (older && !existsAt(older, op.name)) {
        // an operation the version does not define: refused before anything is read or written (§2)
        throw new AppError(
          "capabilities_incompatible",
          `${op.name} does not exist at UCP ${older}; it exists from UCP ${UCP_VERSION}: declare ` +
            `${UCP_VERSION} in your platform profile to use it`,
        );
      }
      const ctx = { ...context, agentProfile, idempotencyKey, ucpVersion, now: new Date() };
      let input: unknown;
      try {
        input = older ? olderInput(older, op, args, context.store?.currency ?? "") : toolInput(op, args);
      } catch (refusal) {
        // refused before the operation's fingerprint: a used key answers its conflict (as executeOperation does)
        await refuseInvalidUnderUsedKey(op, ctx);
        throw refusal;
      }
      const outcome = await executeOperation(op, ctx, input);
      if (older) {
        const answer = translateResponse(
          older,
          op.name,
          outcome.status,
          JSON.parse(outcome.bodyText) as unknown,
          handlerDocsAt(context.baseUrl),
        );
        const body = answer.body as Record<string, unknown>;
        if (answer.error && body.code !== "capabilities_incompatible") throw olderError(answer.status, body);
        return toolResult(JSON.stringify(answer.body));
      }
      const stored = outcomeError(outcome);
      if (stored) throw stored;
      return toolResult(outcome.bodyText);
    } catch (thrown) {
      if (
        thrown instanceof Error &&
        "httpStatus" in thrown &&
        "data" in thrown &&
        !(thrown instanceof AppError)
      ) {
        onProtocolError((thrown as { httpStatus: number }).httpStatus);
        throw thrown;
      }
      if (older) {
        // a refusal at an older version: that version's error body (§3.14)
        const appError = toAppError(thrown);
        if (appError.code === "internal_error") logError(appError, context.requestId);
        const answer = errorDown(
          older,
          errorBody(appError, older) as unknown as Record<string, unknown>,
          appError.spec.httpStatus,
        );
        if (appError.code === "capabilities_incompatible") return toolResult(JSON.stringify(answer.body));
        const error = olderError(answer.status, answer.body);
        onProtocolError(answer.status, errorHeaders(appError));
        throw error;
      }
      const appError = toAppError(thrown);
      const error = toMcpProtocolError(appError, context.requestId);
      onProtocolError(error.httpStatus, errorHeaders(appError));
      throw error;
    }
  });

  return server;
};
