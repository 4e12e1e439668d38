// Major units at the bridge's edge (STYLE.md §1 rule 4, DECISIONS.md B3): a model writes 12.5 or "12.50" for a
// price; the service speaks integer minor units. The conversion is integer arithmetic on the amount's shortest
// decimal form with the currency's ISO 4217 exponent, never a float multiplication (0.29 * 100 is 28.999…).

/** ISO 4217 minor-unit exponents that are not 2 (every other active code has 2). */
const EXPONENT_NOT_2: Readonly<Record<string, number>> = {
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  CLF: 4,
  UYW: 4,
};

/** The largest amount accepted, in minor units: the service's int4 money columns (2^31 − 1). */
export const MAX_MINOR = 2_147_483_647;

/** A refusal the bridge returns to the model as a tool error: code, message and the JSONPath of the argument. */
export class BridgeInputError extends Error {
  readonly code: string;
  readonly path: string;
  /** More the model can act on, beside code/message/path (e.g. `missing`: what a checkout still needs). */
  readonly details: Record<string, unknown> | undefined;
  constructor(code: string, message: string, path: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "BridgeInputError";
    this.code = code;
    this.path = path;
    this.details = details;
  }
}

const KNOWN_CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf("currency"));

/** The currency code upper-cased, or a refusal when it is not an ISO 4217 code. */
export const currencyOrThrow = (currency: string, path: string): string => {
  const code = currency.trim().toUpperCase();
  if (!/^[A-Z]{3}$/.test(code) || !KNOWN_CURRENCIES.has(code)) {
    throw new BridgeInputError(
      "invalid_currency",
      `${JSON.stringify(currency)} is not an ISO 4217 currency code (such as USD or EUR)`,
      path,
    );
  }
  return code;
};

/** The currency's minor-unit exponent (ISO 4217). */
export const currencyExponent = (currency: string): number => EXPONENT_NOT_2[currency.toUpperCase()] ?? 2;

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * A major-unit amount (a number, or a decimal string such as "12.50") in minor units of `currency`. Refused:
 * exponents (1e3), signs, more decimals than the currency has, amounts over MAX_MINOR, anything not a plain
 * decimal. A number is read from its shortest decimal form (JavaScript's own: 0.1 is "0.1").
 */
export const toMinorUnits = (amount: number | string, currency: string, path: string): number => {
  let text: string;
  if (typeof amount === "number") {
    if (!Number.isFinite(amount)) {
      throw new BridgeInputError("invalid_amount", "the amount must be a finite number", path);
    }
    text = String(amount);
  } else {
    text = amount.trim();
  }
  if (/^-/.test(text)) {
    throw new BridgeInputError("invalid_amount", `the amount must not be negative (got ${text})`, path);
  }
  if (/[eE]/.test(text)) {
    throw new BridgeInputError(
      "invalid_amount",
      `write the amount as a plain decimal in major units, without an exponent (got ${text})`,
      path,
    );
  }
  const match = DECIMAL.exec(text);
  if (!match) {
    throw new BridgeInputError(
      "invalid_amount",
      `the amount must be a decimal number in major units such as 12.50 (got ${JSON.stringify(amount)})`,
      path,
    );
  }
  const exponent = currencyExponent(currency);
  const whole = match[1] ?? "0";
  const fraction = match[2] ?? "";
  if (fraction.length > exponent) {
    throw new BridgeInputError(
      "invalid_amount",
      exponent === 0
        ? `${currency} has no minor unit: send a whole number (got ${text})`
        : `${currency} has ${exponent} decimals: ${text} has ${fraction.length}`,
      path,
    );
  }
  const minor = BigInt(whole) * 10n ** BigInt(exponent) + BigInt(fraction.padEnd(exponent, "0") || "0");
  if (minor > BigInt(MAX_MINOR)) {
    const max = formatMajor(MAX_MINOR, currency);
    throw new BridgeInputError(
      "invalid_amount",
      `the amount is too large (at most ${max} ${currency})`,
      path,
    );
  }
  return Number(minor);
};

/** Minor units as a plain major-unit decimal string ("12.50"), by integer arithmetic. */
export const formatMajor = (minor: number, currency: string): string => {
  const exponent = currencyExponent(currency);
  const negative = minor < 0;
  const digits = String(Math.abs(Math.trunc(minor))).padStart(exponent + 1, "0");
  const whole = digits.slice(0, digits.length - exponent);
  const fraction = digits.slice(digits.length - exponent);
  return `${negative ? "-" : ""}${whole}${exponent > 0 ? `.${fraction}` : ""}`;
};

/**
 * Formatters by currency: building an Intl.NumberFormat costs about a millisecond (ICU loads the locale's data),
 * using one a few microseconds, and every bridge answer formats its amounts. Bounded by what callers send: a code
 * Intl refuses is not kept, and past the bound the cache starts again.
 */
const formatters = new Map<string, Intl.NumberFormat>();
const MAX_FORMATTERS = 256;

const formatterOf = (currency: string): Intl.NumberFormat => {
  let formatter = formatters.get(currency);
  if (formatter === undefined) {
    const exponent = currencyExponent(currency);
    formatter = new Intl.NumberFormat("en-US", {
      style: "currency",
      currency,
      minimumFractionDigits: exponent,
      maximumFractionDigits: exponent,
    });
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    formatters.set(currency, formatter);
  }
  return formatter;
};

/** Minor units for a person to read: "$12.50", "¥1,200", "KWD 1.250" (en-US conventions, exact digits). */
export const formatMoney = (minor: number, currency: string): string => {
  try {
    return (
      formatterOf(currency)
        // a decimal string keeps every digit exact (Intl.NumberFormat v3)
        .format(formatMajor(minor, currency) as Intl.StringNumericLiteral)
        // a plain space: a model copies this text, and a no-break space is an invisible difference
        .replace(/\u00a0/g, " ")
    );
  } catch {
    return `${formatMajor(minor, currency)} ${currency}`;
  }
};

/**
 * A coin amount in base units (a decimal string, as the service sends it: u64 does not fit a double) as an exact
 * decimal in whole coins, by string arithmetic on `decimals`; trailing zeros dropped ("25000000", 6 → "25";
 * "1500000001", 9 → "1.500000001"). Refused: anything but digits, or a decimals count outside 0–30.
 */
export const formatBaseUnits = (baseUnits: string, decimals: number): string => {
  if (!/^\d+$/.test(baseUnits) || !Number.isInteger(decimals) || decimals < 0 || decimals > 30) {
    throw new Error(`not a coin amount: ${JSON.stringify(baseUnits)} with ${decimals} decimals`);
  }
  const digits = baseUnits.replace(/^0+(?=\d)/, "").padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole;
};
