import "server-only";

import { errorBody, type ErrorBody } from "@/lib/core/envelope";
import { isErrorCode } from "@/lib/core/error-codes";
import { AppError, toAppError } from "@/lib/core/errors";
import type { AnyOperation, OperationContext } from "@/lib/core/operation";
import { assertAllowed, assertCanCall } from "@/lib/credentials/principal";
import { requestHash } from "@/lib/idempotency/request-hash";
import {
  outcomeOf,
  refuseReusedKey,
  withIdempotency,
  withIdempotentWrite,
  type StoredOutcome,
} from "@/lib/idempotency/with-idempotency";
import { timeStage } from "@/lib/ops/server-timing";

// The single path from a surface to an operation: trust and scope checks, input validation, idempotency,
// and the conversion of the operation's outcome into stored bytes. REST and MCP both call this.

const runToOutcome = async (
  op: AnyOperation,
  ctx: OperationContext,
  input: unknown,
): Promise<StoredOutcome> => {
  try {
    return outcomeOf(await timeStage("app", () => op.run(ctx, input)));
  } catch (thrown) {
    const error = toAppError(thrown);
    if (error.code === "internal_error") throw thrown;
    // UCP: business outcomes are 200 + envelope; protocol errors keep their status. Both are stored so a retry
    // with the same key sees the same answer (STYLE.md §7).
    return { status: error.spec.httpStatus, bodyText: JSON.stringify(errorBody(error, ctx.ucpVersion)) };
  }
};

/** The scope an operation's idempotency key is held in: one definition, so the refused path checks the same key. */
const keyScope = (
  op: Pick<AnyOperation, "name">,
  ctx: Pick<OperationContext, "principal" | "store" | "now">,
  key: string,
) => ({
  principalId: ctx.principal.id,
  storeSlug: ctx.store?.slug ?? "",
  operation: op.name,
  key,
  now: ctx.now,
});

/**
 * A mutating call whose arguments are refused before they are fingerprinted: under a key already used, the key's
 * conflict (409 idempotency_key_reused) is the answer, as it is for any other arguments (refuseReusedKey).
 * @throws AppError idempotency_key_reused
 */
export const refuseInvalidUnderUsedKey = async (
  op: Pick<AnyOperation, "name" | "mutates">,
  ctx: Pick<OperationContext, "principal" | "store" | "idempotencyKey" | "now">,
): Promise<void> => {
  if (!op.mutates || !ctx.idempotencyKey) return;
  await refuseReusedKey(keyScope(op, ctx, ctx.idempotencyKey));
};

/**
 * Validates `rawInput` against the operation, checks tier and permission, and runs it (through withIdempotency
 * when it changes state).
 * @throws AppError identity_required, insufficient_trust, insufficient_scope, invalid_request, idempotency_* (never
 *   stored)
 */
export const executeOperation = async (
  op: AnyOperation,
  ctx: OperationContext,
  rawInput: unknown,
): Promise<StoredOutcome & { replayed: boolean }> => {
  assertCanCall(ctx.principal, ctx.tier, op);
  assertAllowed(ctx.principal, op);
  const parsed = op.input.safeParse(rawInput);
  if (!parsed.success) {
    await refuseInvalidUnderUsedKey(op, ctx);
    throw toAppError(parsed.error);
  }
  const input: unknown = parsed.data;

  if (!op.mutates) return { ...(await runToOutcome(op, ctx, input)), replayed: false };
  if (!ctx.idempotencyKey) {
    // surfaces check this first with their own wording; this guards a surface that forgot
    throw new AppError(
      "missing_idempotency_key",
      `${op.name} is state-changing and needs an idempotency key`,
    );
  }
  const scope = { ...keyScope(op, ctx, ctx.idempotencyKey), requestHash: requestHash(op.name, input) };
  if (op.idempotency === "in-write") {
    return withIdempotentWrite(scope, (idempotency) => runToOutcome(op, { ...ctx, idempotency }, input));
  }
  return withIdempotency(scope, () => runToOutcome(op, ctx, input));
};

/** Rebuilds the AppError of a stored non-2xx outcome (MCP renders those as JSON-RPC errors). */
export const outcomeError = (outcome: StoredOutcome): AppError | null => {
  if (outcome.status < 400) return null;
  const body = JSON.parse(outcome.bodyText) as Partial<ErrorBody>;
  const first = body.messages?.[0];
  const code =
    first && "code" in first && first.code && isErrorCode(first.code) ? first.code : "internal_error";
  return new AppError(code, first?.content ?? "Error", first?.path ? { path: first.path } : {});
};
