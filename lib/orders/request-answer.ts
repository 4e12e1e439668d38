import "server-only";

import type { Prisma } from "@/lib/generated/prisma/client";

// Marks an agent's pending request approved inside the transaction that carries it out (the cancellation or the
// refund adjustment), so the order event that transaction appends already shows the request answered.

export type RequestAnswer = { requestId: string; decidedBy: string };

export const approveRequest = async (
  tx: Prisma.TransactionClient,
  answer: RequestAnswer,
  outcome: { amountMinor: number; adjustmentId: string; now: Date },
): Promise<void> => {
  await tx.orderRequest.update({
    where: { id: answer.requestId },
    data: {
      status: "approved",
      decidedAt: outcome.now,
      decidedBy: answer.decidedBy,
      amountMinor: outcome.amountMinor,
      adjustmentId: outcome.adjustmentId,
    },
  });
};
