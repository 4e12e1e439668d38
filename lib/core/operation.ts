import type { z } from "zod";

import type { Statement } from "@/lib/config/sql";
import type { Principal, TrustTier } from "@/lib/credentials/principal";
import type { Store } from "@/lib/generated/prisma/client";

import type { ErrorCode } from "./error-codes";

// The operation model (STYLE.md §5): every operation is `(ctx, input) => result`, described once by a descriptor
// that the REST wrapper and the MCP tool registry both read. Domain folders export descriptors; surfaces never
// hold business rules.

export type OperationContext = {
  requestId: string;
  principal: Principal;
  tier: TrustTier;
  /** The store of a per-store surface (`/s/<slug>/…`); null on global surfaces. */
  store: Store | null;
  idempotencyKey: string | null;
  agentProfile: string;
  ucpVersion: string;
  /** Public base URL for links (`{base_url}`). */
  baseUrl: string;
  now: Date;
  /**
   * Set while an operation whose descriptor says `idempotency: "in-write"` runs: its one write stores its answer
   * too (lib/idempotency/with-idempotency.ts, withIdempotentWrite).
   */
  idempotency?: IdempotentWrite;
};

/**
 * Appends the answer's record to a write: `head` is the write's text up to a CTE named `written` that returns a
 * row when the write happened; the result is one statement that inserts the record only then.
 */
export type RecordAnswer = (head: Statement, written: string) => Statement;

/** How an operation writes under withIdempotentWrite. */
export type IdempotentWrite = {
  /**
   * Takes the key first, as an in-progress record, before a write that cannot carry the answer (a transaction of
   * its own); from then on the answer is written after the operation, as withIdempotency does.
   */
  claim: () => Promise<void>;
  /**
   * Sends a write that claims the key with it (an in-progress record in the same statement), before work that
   * cannot be undone (a charge); from then on as `claim()`. Answers the rows the statement changed: 0 when the
   * write did not happen (and nothing was claimed). Once the key is claimed, the write alone.
   */
  claimWith: (build: (record: RecordAnswer | null) => Statement) => Promise<number>;
  /**
   * Sends the operation's one write, built by `build` (with `record` appended, or as the write alone once the key
   * was claimed), storing `result` as the call's answer in the same statement. Answers the rows the statement
   * changed: 0 when the write did not happen (nothing stored then). The answer must be the one the operation
   * returns.
   */
  write: (build: (record: RecordAnswer | null) => Statement, result: OperationResult) => Promise<number>;
};

/** A wire body (snake_case UCP JSON) and the REST status for success (201 on create). */
export type OperationResult = { body: Record<string, unknown>; status?: 200 | 201 };

/**
 * MCP tool annotations, stated for every tool (MCP 2025-06-18 ToolAnnotations). Hints a client shows its user
 * before a call: readOnly (changes nothing), destructive (may remove or finalise something: cancel, pay),
 * idempotent (the same arguments, idempotency key included, have no further effect), openWorld (reaches a
 * party outside this service: a payment provider, a webhook receiver).
 */
export type ToolAnnotations = {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
};

/** UCP namespaces (`catalog`, `cart`, `checkout`) and ours for the order-event tools and order requests. */
export type McpNamespace = "catalog" | "cart" | "checkout" | "events" | "deliveries" | "request";

export type OperationDescriptor<S extends z.ZodType = z.ZodType> = {
  /** Operation id = MCP tool name (`create_cart`). */
  name: string;
  title: string;
  /** For a model: what to call first, what it returns, what to do next. The tool list appends `errors`. */
  description: string;
  /**
   * The error codes this operation itself answers (beyond the request checks every tool shares), each explained
   * to the model from the one error table (lib/core/error-codes.ts) in its tool description.
   */
  errors?: readonly ErrorCode[];
  /** Where it is exposed: global surfaces, per-store surfaces, or both. */
  scope: "global" | "store" | "both";
  /** Internal input (namespace unwrapped, resource id merged in, minor units). */
  input: S;
  /** The success body on the wire (lib/ucp/output-schemas.ts): the MCP outputSchema, beside the error envelope. */
  output: z.ZodType;
  /** State-changing: goes through withIdempotency and needs an idempotency key. */
  mutates: boolean;
  /**
   * How a state-changing call's key is held (lib/idempotency/with-idempotency.ts): "claim-first" (default) claims it
   * before the operation runs and records the answer after; "in-write" stores the answer with the operation's one
   * write (ctx.idempotency), for an operation whose every write goes through `ctx.idempotency.write` or follows
   * `ctx.idempotency.claim()`.
   */
  idempotency?: "claim-first" | "in-write";
  /**
   * A state-changing call that moves no money (it charges, refunds and cancels no payment) may take its store
   * from the row cache, as a read does (lib/stores/get-store-or-throw.ts): the call that pays reads it fresh and
   * prices again. So may a call that pays when its run reads the store fresh itself before it chooses anything
   * that moves money, and uses only that one from then on (complete_checkout reads it with its session). Default
   * false: a mutating call reads its store fresh before it runs.
   */
  storeFromCache?: boolean;
  tier: TrustTier;
  /** What a platform key needs (its permissions: purchase:complete, orders:read). */
  permission?: string;
  /**
   * The OAuth scope a buyer's bearer token needs (seed §5 rule 6), checked in one place (assertAllowed, from
   * executeOperation, for REST and MCP alike). null: buyer tokens cannot call it (the platform-only feeds). A token
   * with offline_access alone calls nothing: that scope only lets the agent refresh at the token endpoint.
   */
  buyerScope: "purchase:complete" | null;
  /**
   * Buyer-bound (seed §5 rule 1, DECISIONS B7): only the buyer's bearer, sent alone, calls it; a platform key (which
   * wins when both arrive) or no credential is refused before anything runs or is stored.
   */
  buyerOnly?: boolean;
  mcp: {
    /** Namespace object holding the payload in MCP arguments (seed §4: never flat). */
    namespace?: McpNamespace;
    /** The resource id travels as a top-level `id` argument (UCP MCP binding). */
    takesId?: boolean;
    /** Arguments sit flat beside `meta` (the buyer-account tools, as seed §4 shows prepare_combined_payment). */
    flat?: boolean;
    annotations: ToolAnnotations;
  };
  run: (ctx: OperationContext, input: z.output<S>) => Promise<OperationResult>;
};

/** Erased descriptor type for registries (each descriptor stays fully typed where it is declared). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- variance: a registry holds descriptors of any input schema
export type AnyOperation = OperationDescriptor<any>;

export const defineOperation = <S extends z.ZodType>(
  descriptor: OperationDescriptor<S>,
): OperationDescriptor<S> => descriptor;

/** The store of a per-store operation; a registry wiring error if absent (never a client error). */
export const storeOf = (ctx: OperationContext): Store => {
  if (!ctx.store) throw new Error("per-store operation called without a store");
  return ctx.store;
};
