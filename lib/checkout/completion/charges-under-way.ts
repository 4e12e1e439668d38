// The card charges this process has under way, by checkout: from the provider call of a completion to the end of
// its finisher. Stripe sends payment_intent.succeeded as it answers the confirmation, so the event usually arrives
// while the completion that caused it is still finishing. The event carries no card (brand, last four), so a
// webhook that finished first would ask the provider for it while the completion, which has the card in hand,
// waited for that finisher. The webhook waits instead (at most CHARGE_WAIT_MS), then finds the order placed.
//
// This only orders work within one process; it decides nothing. A webhook that lands on another instance, or
// waits past the bound, finishes the payment itself as before, and the database keeps it to one order.

/** How long a webhook waits for this process's charge of its checkout before finishing the payment itself. */
export const CHARGE_WAIT_MS = 5_000;

const underWay = new Map<string, Promise<unknown>>();

/** Runs `charge` (a completion's provider call and its finisher) as the charge under way for `checkoutId`. */
export const whileCharging = <T>(checkoutId: string, charge: () => Promise<T>): Promise<T> => {
  const mine = charge();
  const settled = mine.then(
    () => undefined,
    () => undefined,
  );
  const before = underWay.get(checkoutId);
  // two completions of one checkout at once: a webhook waits for both
  const entry = before ? Promise.all([before, settled]) : settled;
  underWay.set(checkoutId, entry);
  const forget = () => {
    if (underWay.get(checkoutId) === entry) underWay.delete(checkoutId);
  };
  void entry.then(forget);
  return mine;
};

/**
 * Waits until this process has no charge of `checkoutId` under way, or `boundMs` passed. True when it waited for
 * one (a read made before the wait is then older than what that charge wrote).
 */
export const chargeSettled = async (checkoutId: string, boundMs = CHARGE_WAIT_MS): Promise<boolean> => {
  const pending = underWay.get(checkoutId);
  if (!pending) return false;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([pending, new Promise((resolve) => (timer = setTimeout(resolve, boundMs)))]);
  clearTimeout(timer);
  return true;
};
