import { AppError } from "@/lib/core/errors";
import type { CheckoutStatus } from "@/lib/generated/prisma/client";

// The checkout status machine (UCP checkout, CONTRACT §7.2; exact spellings). This issue moves sessions between
// `incomplete` and `ready_for_complete` (by the preflight) and to `canceled`; `complete_in_progress`,
// `completed` and `requires_escalation` are entered by completion (issue #5).

export const TERMINAL_STATUSES: readonly CheckoutStatus[] = ["completed", "canceled"];

export const isTerminal = (status: CheckoutStatus): boolean => TERMINAL_STATUSES.includes(status);

/** An open session's status from its blocking messages: any error blocks completion. */
export const openStatusFor = (messages: readonly { type: string }[]): CheckoutStatus =>
  messages.some((m) => m.type === "error") ? "incomplete" : "ready_for_complete";

/**
 * Update and cancel refuse sessions that are terminal, or whose completion is running (UCP: completed is
 * immutable; cancel on completed/canceled is not allowed; an update during complete_in_progress is rejected).
 * @throws AppError checkout_not_modifiable
 */
export const assertModifiable = (id: string, status: CheckoutStatus, action: "update" | "cancel"): void => {
  if (!isTerminal(status) && status !== "complete_in_progress") return;
  throw new AppError(
    "checkout_not_modifiable",
    `Checkout ${id} is ${status}: it cannot be ${action === "update" ? "updated" : "canceled"}`,
    { path: "$.status" },
  );
};
