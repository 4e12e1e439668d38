// Integer money arithmetic (STYLE.md §1.4: minor units end to end). Products are computed in BigInt so that a
// large subtotal times a rate in basis points never leaves the safe-integer range before the division.

const BPS = 10_000n;

/** floor(amount × bps / 10 000): percentage discounts round down, never giving more than the rate says. */
export const percentOfFloor = (amount: number, bps: number): number =>
  Number((BigInt(amount) * BigInt(bps)) / BPS);

/** amount × bps / 10 000 rounded half up (tax): 0.5 minor units and above round up. amount ≥ 0. */
export const percentOfHalfUp = (amount: number, bps: number): number =>
  Number((BigInt(amount) * BigInt(bps) + BPS / 2n) / BPS);

/**
 * Splits `amount` over `weights` proportionally with the largest-remainder method, so the parts are integers
 * that always sum to `amount` (UCP discount allocations must sum to the applied amount). Ties go to the earlier
 * weight. All-zero weights put everything on the first part.
 */
export const allocateProportionally = (amount: number, weights: readonly number[]): number[] => {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (weights.length === 0) return [];
  if (sum === 0) return weights.map((_, i) => (i === 0 ? amount : 0));
  const exact = weights.map((w) => {
    const num = BigInt(amount) * BigInt(w);
    return { floor: Number(num / BigInt(sum)), rem: num % BigInt(sum) };
  });
  let left = amount - exact.reduce((a, e) => a + e.floor, 0);
  const order = exact
    .map((e, i) => ({ i, rem: e.rem }))
    .sort((a, b) => (a.rem === b.rem ? a.i - b.i : a.rem > b.rem ? -1 : 1));
  const parts = exact.map((e) => e.floor);
  for (const { i } of order) {
    if (left <= 0) break;
    parts[i] = (parts[i] ?? 0) + 1;
    left--;
  }
  return parts;
};
