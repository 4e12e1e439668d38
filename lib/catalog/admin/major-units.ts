// Major units at the admin's edge (STYLE.md §1 rule 4): a merchant types "12.50" into a form or a CSV cell; the
// catalog stores integer minor units. Integer arithmetic on the decimal text with the currency's ISO 4217 exponent,
// never a float multiplication; more decimals than the currency has is refused, never rounded. (The bridge has its
// own copy at its edge, lib/bridge/money.ts: domain folders may not import the bridge.)

/** The largest amount a money column holds (int4). */
export const MAX_MINOR = 2_147_483_647;

/** Exponents already asked of ICU (a formatter costs tens of µs to build; an order's mail formats each amount). */
const exponents = new Map<string, number>();

/** The currency's minor-unit exponent (ISO 4217, as ICU knows it: JPY 0, USD 2, KWD 3). */
export const currencyExponent = (currency: string): number => {
  const known = exponents.get(currency);
  if (known !== undefined) return known;
  try {
    const exponent =
      new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ??
      2;
    // only well-formed codes get here (three letters), so the map stays small
    exponents.set(currency, exponent);
    return exponent;
  } catch {
    return 2;
  }
};

/** A major-unit decimal text in minor units, or the sentence saying why not (shown beside the field). */
export const parseMajor = (
  text: string,
  currency: string,
): { ok: true; minor: number } | { ok: false; message: string } => {
  const value = text.trim();
  const match = /^(\d+)(?:\.(\d+))?$/.exec(value);
  if (!match) {
    return {
      ok: false,
      message: /^-/.test(value)
        ? "Enter an amount of zero or more"
        : `Enter an amount in ${currency} such as ${currencyExponent(currency) === 0 ? "1200" : "12.50"}`,
    };
  }
  const exponent = currencyExponent(currency);
  const fraction = match[2] ?? "";
  if (fraction.length > exponent) {
    return {
      ok: false,
      message:
        exponent === 0
          ? `${currency} has no minor unit: enter a whole number`
          : `${currency} has ${exponent} decimals: ${value} has ${fraction.length}`,
    };
  }
  const minor = BigInt(match[1]!) * 10n ** BigInt(exponent) + BigInt(fraction.padEnd(exponent, "0") || "0");
  if (minor > BigInt(MAX_MINOR)) return { ok: false, message: "That amount is too large" };
  return { ok: true, minor: Number(minor) };
};

/** Minor units as a major-unit decimal text ("12.50"), for a form's field. */
export const formatMajor = (minor: number, currency: string): string => {
  const exponent = currencyExponent(currency);
  const digits = String(Math.abs(Math.trunc(minor))).padStart(exponent + 1, "0");
  const whole = digits.slice(0, digits.length - exponent);
  return `${minor < 0 ? "-" : ""}${whole}${exponent > 0 ? `.${digits.slice(digits.length - exponent)}` : ""}`;
};
