import { AppError } from "@/lib/core/errors";
import type { CheckoutStatus, Prisma } from "@/lib/generated/prisma/client";

// The checkout status machine (UCP checkout, CONTRACT §7.2; exact spellings) and THE ONLY code that writes a
// checkout's `status` (STYLE.md §7). Every write is one conditional UPDATE (or the INSERT of a new session) whose
// WHERE clause only matches a status the target may be reached from, so a transition the machine does not
// allow changes nothing (count 0), whoever races it. Enforced two ways: an ESLint rule refuses a
// checkoutSession create/update/upsert whose data carries `status` anywhere but here (eslint.config.mjs), and
// lib/checkout/state-writers.test.ts scans the source tree for raw SQL that writes checkout_sessions.

export const TERMINAL_STATUSES: readonly CheckoutStatus[] = ["completed", "canceled"];

export const isTerminal = (status: CheckoutStatus): boolean => TERMINAL_STATUSES.includes(status);

/** Where each status may be entered from (the transitions the spec allows). */
export const ALLOWED_FROM: Readonly<Record<CheckoutStatus, readonly CheckoutStatus[]>> = {
  // the preflight moves open sessions between incomplete and ready_for_complete
  incomplete: ["incomplete", "ready_for_complete"],
  // ...and a completion that did not charge (decline, provider error, refunded charge) reopens the session
  ready_for_complete: ["incomplete", "ready_for_complete", "complete_in_progress", "requires_escalation"],
  // completion holds the session while the rail charges (the agent may retry from escalation)
  complete_in_progress: ["incomplete", "ready_for_complete", "complete_in_progress", "requires_escalation"],
  // the buyer must act (3-DS, no card token): the hosted page or another completion finishes it
  requires_escalation: ["ready_for_complete", "complete_in_progress", "requires_escalation"],
  // the order is placed (placeOrder)
  completed: ["ready_for_complete", "complete_in_progress", "requires_escalation"],
  // cancel_checkout, or expiry on read (UCP §7.2: expiry cancels)
  canceled: ["incomplete", "ready_for_complete", "complete_in_progress", "requires_escalation"],
};

/** A database handle or a transaction: the transitions run inside the caller's transaction when given one. */
type CheckoutWriter = Pick<Prisma.TransactionClient, "checkoutSession">;

export type Transition = {
  id: string;
  to: CheckoutStatus;
  /** Optimistic concurrency: only if the session is still at this version. */
  version?: number;
  /** Only from these statuses (narrower than the machine allows; never wider). */
  from?: readonly CheckoutStatus[];
  /** Other columns written in the same UPDATE (never `status`). */
  data?: Omit<Prisma.CheckoutSessionUpdateManyMutationInput, "status" | "version">;
};

/**
 * Moves a checkout to `to` when its status (and version, when given) allow it, bumping the version. Returns 1
 * when it moved, 0 when a guard did not match (another writer came first, or the machine forbids it).
 */
export const moveCheckout = async (
  db: CheckoutWriter,
  { id, to, version, from, data }: Transition,
): Promise<number> => {
  const allowed = from ? from.filter((s) => ALLOWED_FROM[to].includes(s)) : ALLOWED_FROM[to];
  const { count } = await db.checkoutSession.updateMany({
    where: { id, status: { in: [...allowed] }, ...(version === undefined ? {} : { version }) },
    data: { ...data, status: to, version: { increment: 1 } },
  });
  return count;
};

/** Inserts a new session in its first status (the preflight's verdict). */
export const insertCheckout = async (
  db: CheckoutWriter,
  data: Omit<Prisma.CheckoutSessionCreateManyInput, "status">,
  status: Extract<CheckoutStatus, "incomplete" | "ready_for_complete">,
): Promise<void> => {
  // create, not createMany: Prisma reuses create's compiled plan and compiles createMany's on every call
  // (docs/decisions.md "Plans Prisma can reuse")
  await db.checkoutSession.create({ data: { ...data, status }, select: { id: true } });
};

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
