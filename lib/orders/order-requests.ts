import "server-only";

import { z } from "zod";

import { requireCapability } from "@/lib/agents/negotiate-agent";
import { getDb, type Db } from "@/lib/config/db";
import { getBaseUrl } from "@/lib/config/env";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import { defineOperation, storeOf, type OperationContext } from "@/lib/core/operation";
import type { Prisma, Store } from "@/lib/generated/prisma/client";
import { OrderOutputSchema } from "@/lib/ucp/output-schemas";
import { UCP_VERSION } from "@/lib/ucp/version";
import { appendOrderEvent, type OrderEventKind } from "@/lib/webhooks/append-order-event";

import { cancelLockedOrder } from "./cancel-order";
import { refundableAmount, refundLockedOrder } from "./refund-order";
import { lockOrder, settleRefund } from "./settle-refund";
import { ORDER_INCLUDE, orderToWire, type OrderRecord } from "./to-wire";

// An agent asks for an order it placed to be canceled (nothing shipped yet) or refunded (something shipped), with a
// reason. The store's policy decides at once (`agentCancellations`, `agentRefundAutoMinor`) or leaves the request
// to the merchant, who approves or declines it in the admin or over the merchant API. An approval goes through the
// merchant's own cancel and refund (cancel-order.ts, refund-order.ts): the money goes back through the rail that
// charged, written as a pending adjustment first. Every outcome is an order event, so the agent's webhook hears it.
// One request waits per order at a time (a partial unique index), and everything happens under the order's lock,
// so a request racing a shipment, a second request or the merchant's own refund ends in one outcome.

const Reason = z
  .string({ error: "reason is required: say why, in the buyer's words (1–500 characters)" })
  .trim()
  .min(1, "reason must be 1–500 characters")
  .max(500, "reason must be 1–500 characters");

export const CancellationRequestInputSchema = z.object({
  id: z.string().min(1).max(200),
  reason: Reason,
});

export const RefundRequestInputSchema = z.object({
  id: z.string().min(1).max(200),
  reason: Reason,
  amount: z
    .number()
    .int("amount is in minor units (an integer)")
    .positive("amount must be at least 1 minor unit")
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .describe("Minor units; default: everything paid and not refunded yet."),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, "currency is an ISO 4217 code such as USD")
    .optional()
    .describe("The order's currency, to check the amount is read as meant."),
});

/** Orders a caller may ask about: the ones it placed, or (a buyer's bearer) placed for that buyer through it. */
const assertOwnOrder = (ctx: OperationContext, order: OrderRecord): void => {
  const id = ctx.principal.id;
  if (order.principalId === id || order.boundPrincipalId === id) return;
  throw new AppError("not_found", `No order "${order.id}" in this store`, { path: "$.id" });
};

const lockOwnOrder = async (tx: Prisma.TransactionClient, ctx: OperationContext, orderId: string) => {
  const store = storeOf(ctx);
  const order = await lockOrder(tx, store.id, orderId).catch((thrown: unknown) => {
    if (thrown instanceof AppError && thrown.code === "not_found") {
      throw new AppError("not_found", `No order "${orderId}" in this store`, { path: "$.id" });
    }
    throw thrown;
  });
  assertOwnOrder(ctx, order);
  return { store, order };
};

const assertNoneWaiting = (order: OrderRecord): void => {
  const waiting = order.requests?.find((r) => r.status === "pending");
  if (waiting) {
    throw new AppError(
      "conflict",
      `Order ${order.id} already has a ${waiting.type} request (${waiting.id}) waiting for the merchant: its outcome arrives as an order event`,
    );
  }
};

const appendRequestEvent = async (
  tx: Prisma.TransactionClient,
  store: Store,
  orderId: string,
  kind: OrderEventKind,
): Promise<void> => {
  const current = await tx.order.findUniqueOrThrow({ where: { id: orderId }, include: ORDER_INCLUDE });
  await appendOrderEvent(tx, {
    storeId: store.id,
    orderId,
    kind,
    payload: orderToWire(current, { store, baseUrl: getBaseUrl(), ucpVersion: UCP_VERSION }),
  });
};

const createRequest = (
  tx: Prisma.TransactionClient,
  data: { orderId: string; type: "cancellation" | "refund"; amountMinor: number; reason: string },
  ctx: OperationContext,
) =>
  tx.orderRequest.create({
    data: {
      id: newId("orderRequest"),
      status: "pending",
      principalId: ctx.principal.id,
      createdAt: ctx.now,
      ...data,
    },
  });

/**
 * Pays back what an approval reserved. A provider outage leaves the refund pending (the sweep and `admin
 * settle-refunds` finish it with the same key), which is what the answer then shows: it is true afterwards.
 */
const payBack = async (db: Db, adjustmentId: string | null): Promise<void> => {
  if (!adjustmentId) return;
  try {
    await settleRefund(db, adjustmentId);
  } catch (thrown) {
    if (!(thrown instanceof AppError && thrown.code === "payment_provider_error")) throw thrown;
  }
};

const answer = async (ctx: OperationContext, db: Db, orderId: string) => {
  const order = await db.order.findUniqueOrThrow({ where: { id: orderId }, include: ORDER_INCLUDE });
  return {
    body: orderToWire(order, { store: storeOf(ctx), baseUrl: ctx.baseUrl, ucpVersion: ctx.ucpVersion }),
    status: 201 as const,
  };
};

const REQUEST_ANNOTATIONS = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: true,
} as const;

/**
 * request_order_cancellation / POST /s/<slug>/orders/<id>/cancellation-requests
 * @throws AppError not_found (not an order this caller placed), conflict (shipped, canceled, refunded, a request
 *   waiting), rail_not_available
 */
export const requestOrderCancellation = defineOperation({
  name: "request_order_cancellation",
  title: "Request order cancellation",
  description:
    "Ask the store to cancel an order you placed, while none of it has shipped, with the buyer's reason. The answer is the order with the request under requests[]: status approved (the order is canceled, stock back, the money on its way back through the rail that paid: a cancellation adjustment), or pending (the store reviews it; the outcome arrives as an order event: order.canceled, or order.request_declined with decline_reason). Once anything shipped, use request_order_refund. Needs a platform key with orders:request, or the buyer's token with purchase:complete.",
  errors: ["not_found", "conflict", "rail_not_available"],
  scope: "store",
  input: CancellationRequestInputSchema,
  output: OrderOutputSchema,
  mutates: true,
  tier: "token",
  buyerScope: "purchase:complete",
  permission: "orders:request",
  mcp: { takesId: true, namespace: "request", annotations: REQUEST_ANNOTATIONS },
  run: requireCapability("dev.ucp.shopping.order", async (ctx, input) => {
    const db = await getDb();
    const adjustmentId = await db.$transaction(async (tx) => {
      const { store, order } = await lockOwnOrder(tx, ctx, input.id);
      if (order.status === "canceled" || order.status === "refunded") {
        throw new AppError("conflict", `Order ${order.id} is already ${order.status}`);
      }
      if (order.lineItems.some((l) => l.quantityFulfilled > 0)) {
        throw new AppError(
          "conflict",
          `Order ${order.id} has shipped units: it can no longer be canceled; ask for a refund with request_order_refund`,
        );
      }
      assertNoneWaiting(order);
      const request = await createRequest(
        tx,
        { orderId: order.id, type: "cancellation", amountMinor: 0, reason: input.reason },
        ctx,
      );
      if (store.agentCancellations !== "automatic") {
        await appendRequestEvent(tx, store, order.id, "order.cancellation_requested");
        return null;
      }
      const canceled = await cancelLockedOrder(
        tx,
        store,
        order,
        `Canceled at the buyer's request: ${input.reason}`,
        ctx.now,
        {
          requestId: request.id,
          decidedBy: "policy",
        },
      );
      return canceled.owed > 0 ? canceled.adjustmentId : null;
    });
    await payBack(db, adjustmentId);
    return answer(ctx, db, input.id);
  }),
});

/**
 * request_order_refund / POST /s/<slug>/orders/<id>/refund-requests
 * @throws AppError not_found, invalid_request (amount above what is left to refund), conflict (nothing shipped:
 *   cancel instead; canceled; nothing paid; fully refunded; a refund or a request in progress), rail_not_available
 */
export const requestOrderRefund = defineOperation({
  name: "request_order_refund",
  title: "Request order refund",
  description:
    "Ask the store to refund an order you placed once any of it has shipped (a return, a damaged item), in full (no amount) or in part (amount in minor units, at most what was paid and not yet refunded), with the buyer's reason. The answer is the order with the request under requests[]: approved (a refund adjustment, pending until the rail confirms: order.refunded follows) or pending (the store reviews it; the outcome arrives as an order event). Before anything shipped, use request_order_cancellation. Needs a platform key with orders:request, or the buyer's token with purchase:complete.",
  errors: ["not_found", "invalid_request", "conflict", "rail_not_available"],
  scope: "store",
  input: RefundRequestInputSchema,
  output: OrderOutputSchema,
  mutates: true,
  tier: "token",
  buyerScope: "purchase:complete",
  permission: "orders:request",
  mcp: { takesId: true, namespace: "request", annotations: REQUEST_ANNOTATIONS },
  run: requireCapability("dev.ucp.shopping.order", async (ctx, input) => {
    const db = await getDb();
    const adjustmentId = await db.$transaction(async (tx) => {
      const { store, order } = await lockOwnOrder(tx, ctx, input.id);
      if (order.status === "canceled") {
        throw new AppError("conflict", `Order ${order.id} is canceled: what was paid is already coming back`);
      }
      if (!order.lineItems.some((l) => l.quantityFulfilled > 0)) {
        throw new AppError(
          "conflict",
          `Nothing of order ${order.id} has shipped yet: ask for a cancellation with request_order_cancellation`,
        );
      }
      assertNoneWaiting(order);
      if (input.currency !== undefined && input.currency !== order.currency) {
        throw new AppError(
          "invalid_request",
          `The order is in ${order.currency}, not ${input.currency}: amount is in ${order.currency} minor units`,
          { path: "$.request.currency" },
        );
      }
      const amount = refundableAmount(order, input.amount, "$.request.amount");
      const request = await createRequest(
        tx,
        { orderId: order.id, type: "refund", amountMinor: amount, reason: input.reason },
        ctx,
      );
      if (amount > store.agentRefundAutoMinor) {
        await appendRequestEvent(tx, store, order.id, "order.refund_requested");
        return null;
      }
      return refundLockedOrder(
        tx,
        store,
        order,
        { amount, description: `Refunded at the buyer's request: ${input.reason}` },
        ctx.now,
        { requestId: request.id, decidedBy: "policy" },
      );
    });
    await payBack(db, adjustmentId);
    return answer(ctx, db, input.id);
  }),
});

export type RequestDecision = { approve: true } | { approve: false; reason: string };

/**
 * The merchant approves or declines a waiting request (admin, merchant API). An approval is the merchant's cancel
 * or refund of the request's amount; a decline appends `order.request_declined` with the merchant's reason.
 * @throws AppError not_found, invalid_request (decline reason), conflict (already decided; the order changed so
 *   the approval cannot be carried out: shipped since, refunded since), rail_not_available
 */
export const decideOrderRequest = async (
  store: Store,
  requestId: string,
  decision: RequestDecision,
  decidedBy: string,
  now = new Date(),
): Promise<OrderRecord> => {
  const declineReason = decision.approve ? null : decision.reason.trim();
  if (declineReason !== null && (declineReason.length === 0 || declineReason.length > 500)) {
    throw new AppError(
      "invalid_request",
      "A decline needs a reason the agent can pass on (1–500 characters)",
      {
        path: "$.reason",
      },
    );
  }
  const db = await getDb();
  const found = await db.orderRequest.findFirst({
    where: { id: requestId, order: { storeId: store.id } },
    select: { orderId: true },
  });
  if (!found) throw new AppError("not_found", `No request "${requestId}" in this store`, { path: "$.id" });
  const adjustmentId = await db.$transaction(async (tx) => {
    const order = await lockOrder(tx, store.id, found.orderId);
    const request = order.requests?.find((r) => r.id === requestId);
    if (!request || request.status !== "pending") {
      throw new AppError("conflict", `Request ${requestId} is already ${request?.status ?? "gone"}`);
    }
    if (declineReason !== null) {
      await tx.orderRequest.update({
        where: { id: request.id },
        data: { status: "declined", decidedAt: now, decidedBy, declineReason },
      });
      await appendRequestEvent(tx, store, order.id, "order.request_declined");
      return null;
    }
    const answering = { requestId: request.id, decidedBy };
    if (request.type === "cancellation") {
      const canceled = await cancelLockedOrder(
        tx,
        store,
        order,
        `Canceled at the buyer's request: ${request.reason}`,
        now,
        answering,
      );
      return canceled.owed > 0 ? canceled.adjustmentId : null;
    }
    return refundLockedOrder(
      tx,
      store,
      order,
      { amount: request.amountMinor, description: `Refunded at the buyer's request: ${request.reason}` },
      now,
      answering,
    ).catch((thrown: unknown) => {
      // refunded in part since the agent asked: the request cannot be paid as asked
      if (thrown instanceof AppError && thrown.code === "invalid_request") {
        throw new AppError(
          "conflict",
          `${thrown.message}: decline the request, or refund what is left yourself`,
        );
      }
      throw thrown;
    });
  });
  if (adjustmentId) return settleRefund(db, adjustmentId);
  return db.order.findUniqueOrThrow({ where: { id: found.orderId }, include: ORDER_INCLUDE });
};
