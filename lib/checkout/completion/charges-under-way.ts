// The card charges this process has under way, by checkout: from the provider call of a completion to the end of
// its finisher. Stripe sends payment_intent.succeeded as it answers the confirmation, so the event usually arrives
// while the completion that caused it is still finishing. The event carries no card (brand, last four), so a
// webhook that finished first would ask the provider for it while the completion, which has the card in hand,
// waited for that finisher. The webhook waits instead (at most CHARGE_WAIT_MS); when the charge it waited for
// placed the order with the event's own payment, it stops there (the finisher would find that order and do
// nothing), else it finishes the payment itself, reading afresh.
//
// This only orders work within one process, and skips only what the finisher would find done. A webhook that lands
// on another instance, or waits past the bound, finishes the payment itself as before, and the database keeps it to
// one order.

/** How long a webhook waits for this process's charge of its checkout before finishing the payment itself. */
export const CHARGE_WAIT_MS = 5_000;

/** A payment a charge under way placed the checkout's order with (its finisher answered `order_placed`). */
export type PlacedPayment = { storeId: string; paymentRef: string };

const underWay = new Map<string, Promise<readonly PlacedPayment[]>>();

/**
 * Runs `charge` (a completion's provider call and its finisher) as the charge under way for `checkoutId`. The
 * charge calls `placed` when its finisher placed (or found) the order paid with its payment.
 */
export const whileCharging = <T>(
  checkoutId: string,
  charge: (placed: (payment: PlacedPayment) => void) => Promise<T>,
): Promise<T> => {
  const payments: PlacedPayment[] = [];
  const mine = charge((payment) => payments.push(payment));
  const settled = mine.then(
    () => payments,
    () => payments,
  );
  const before = underWay.get(checkoutId);
  // two completions of one checkout at once: a webhook waits for both
  const entry = before ? Promise.all([before, settled]).then(([a, b]) => [...a, ...b]) : settled;
  underWay.set(checkoutId, entry);
  const forget = () => {
    if (underWay.get(checkoutId) === entry) underWay.delete(checkoutId);
  };
  void entry.then(forget);
  return mine;
};

export type ChargeWait = {
  /** It waited for a charge (a read made before the wait is then older than what that charge wrote). */
  waited: boolean;
  /** The payments the charges it waited for placed the order with (none when it gave up at the bound). */
  placed: readonly PlacedPayment[];
};

/** Waits until this process has no charge of `checkoutId` under way, or `boundMs` passed. */
export const chargeSettled = async (checkoutId: string, boundMs = CHARGE_WAIT_MS): Promise<ChargeWait> => {
  const pending = underWay.get(checkoutId);
  if (!pending) return { waited: false, placed: [] };
  let timer: NodeJS.Timeout | undefined;
  const placed = await Promise.race([
    pending,
    new Promise<readonly PlacedPayment[]>((resolve) => (timer = setTimeout(() => resolve([]), boundMs))),
  ]);
  clearTimeout(timer);
  return { waited: true, placed };
};
