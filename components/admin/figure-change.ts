// A dashboard figure against the same figure over the previous period, in words (the words carry the meaning; a
// colour, if any, only repeats them). Counts and amounts change by a percentage of what they were; a rate changes by
// percentage points, since a percentage of a percentage reads as nonsense.

export type FigureChange = { text: string; direction: "up" | "down" | "same" | "new" };

const percentFormat = (locale: string) =>
  new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 0, signDisplay: "always" });

/** `current` against `previous` (both integers: minor units or counts). */
export const changeOf = (current: number, previous: number, locale: string): FigureChange => {
  if (current === previous) return { text: "no change", direction: "same" };
  if (previous === 0) return { text: "new this period", direction: "new" };
  // exact for integers far beyond any store's sales; rounded to a whole percent for people
  const ratio = (current - previous) / Math.abs(previous);
  return { text: percentFormat(locale).format(ratio), direction: current > previous ? "up" : "down" };
};

/** A rate (0…1) against the previous period's, in percentage points. */
export const rateChangeOf = (current: number, previous: number, locale: string): FigureChange => {
  const points = Math.round((current - previous) * 1000) / 10;
  if (points === 0) return { text: "no change", direction: "same" };
  const text = `${new Intl.NumberFormat(locale, { maximumFractionDigits: 1, signDisplay: "always" }).format(points)} pts`;
  return { text, direction: points > 0 ? "up" : "down" };
};
