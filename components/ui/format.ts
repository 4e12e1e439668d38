// People's formats, one set for the buyer's pages and the merchant's admin: money in the store's currency and the
// viewer's locale, coin amounts beside their fiat value, moments in a readable form. Pure functions: they run on
// the server and in the browser alike. Money arrives as integer minor units and is turned into a decimal string
// with integer arithmetic; Intl.NumberFormat formats decimal strings exactly, so no float ever touches an amount.

export const DEFAULT_LOCALE = "en-US";

const numberFormats = new Map<string, Intl.NumberFormat>();

const currencyFormat = (locale: string, currency: string): Intl.NumberFormat => {
  const key = `${locale}|${currency}`;
  let format = numberFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, { style: "currency", currency });
    numberFormats.set(key, format);
  }
  return format;
};

/** The digits after the decimal point of a currency's minor unit (2 for USD, 0 for JPY). */
export const currencyDigits = (currency: string): number =>
  currencyFormat(DEFAULT_LOCALE, currency).resolvedOptions().maximumFractionDigits ?? 2;

/** Integer minor units (or base units of a coin) as an exact decimal string: 123456, 2 → "1234.56". */
export const minorToDecimal = (amount: number | bigint | string, digits: number): string => {
  const text = String(amount);
  const negative = text.startsWith("-");
  const abs = (negative ? text.slice(1) : text).padStart(digits + 1, "0");
  const whole = digits === 0 ? abs : `${abs.slice(0, -digits)}.${abs.slice(-digits)}`;
  return `${negative ? "-" : ""}${whole}`;
};

type DecimalFormat = (value: string) => string;
type DecimalRangeFormat = (start: string, end: string) => string;

/** Money for people: `formatMoney(62598, "EUR", "de-DE")` → "625,98 €"; `(2699, "USD")` → "$26.99". */
export const formatMoney = (amountMinor: number, currency: string, locale: string = DEFAULT_LOCALE): string =>
  (currencyFormat(locale, currency).format as unknown as DecimalFormat)(
    minorToDecimal(amountMinor, currencyDigits(currency)),
  );

/** A price range in the locale's form ("$26.99 – $36.99", "26,99–36,99 €"); one price when both ends agree. */
export const formatMoneyRange = (
  minMinor: number,
  maxMinor: number,
  currency: string,
  locale: string = DEFAULT_LOCALE,
): string => {
  if (minMinor === maxMinor) return formatMoney(minMinor, currency, locale);
  const digits = currencyDigits(currency);
  return (currencyFormat(locale, currency).formatRange as unknown as DecimalRangeFormat)(
    minorToDecimal(minMinor, digits),
    minorToDecimal(maxMinor, digits),
  );
};

/**
 * A coin amount from its base units, trailing zeros past the second decimal dropped and at most `maxDigits` after the
 * point (rounded down, so a shown amount is never more than what moves): (434260000n, 6, "USDC") → "434.26 USDC",
 * (444100000n, 6, "USDC") → "444.10 USDC".
 */
export const formatCoin = (
  baseUnits: bigint | number | string,
  decimals: number,
  symbol: string,
  locale: string = DEFAULT_LOCALE,
  maxDigits = 6,
): string => {
  const exact = minorToDecimal(baseUnits, decimals);
  const [whole, fraction = ""] = exact.split(".");
  const digits = Math.min(maxDigits, decimals);
  const kept = fraction.slice(0, digits).replace(/0+$/, "");
  const decimal = kept ? `${whole}.${kept}` : whole!;
  // at least two decimals, as the money beside it is written ("444.10 USDC ≈ $444.10", not "444.1 USDC")
  const format = new Intl.NumberFormat(locale, {
    minimumFractionDigits: Math.min(2, digits),
    maximumFractionDigits: digits,
  }).format as unknown as DecimalFormat;
  return `${format(decimal)} ${symbol}`;
};

/** A count for people: 100000 → "100,000" in en-US. */
export const formatCount = (n: number, locale: string = DEFAULT_LOCALE): string =>
  new Intl.NumberFormat(locale).format(n);

/**
 * A whole UTC day (a date "2026-12-02", or a moment whose UTC day it names) as people write it: "Dec 2, 2026". For
 * days the service counts in UTC (the dashboard's range, a coupon good until the end of its day).
 */
export const formatDay = (day: Date | string, locale: string = DEFAULT_LOCALE): string =>
  new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" }).format(new Date(day));

/** A range of whole UTC days: "Nov 3 – Dec 2, 2026". */
export const formatDayRange = (from: string, to: string, locale: string = DEFAULT_LOCALE): string =>
  new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" }).formatRange(
    new Date(from),
    new Date(to),
  );

/**
 * A moment in a readable form: "Dec 1, 2026, 9:43 PM". Without a time zone it is the runtime's own (the viewer's,
 * in a browser); on the server pass one, and the zone's name is appended so nobody mistakes it for local time.
 */
export const formatDateTime = (
  at: Date | string,
  locale: string = DEFAULT_LOCALE,
  timeZone?: string,
): string => {
  const date = typeof at === "string" ? new Date(at) : at;
  const text = new Intl.DateTimeFormat(locale, {
    dateStyle: "medium",
    timeStyle: "short",
    ...(timeZone ? { timeZone } : {}),
  }).format(date);
  return timeZone ? `${text} ${timeZone}` : text;
};

/** The locale people in a country most likely read: "DE" → "de-DE", "US" → "en-US"; unknown → the default. */
export const localeForCountry = (country: string | null | undefined): string => {
  if (!country || !/^[A-Za-z]{2}$/.test(country)) return DEFAULT_LOCALE;
  try {
    const likely = new Intl.Locale("und", { region: country.toUpperCase() }).maximize();
    if (!likely.language || likely.language === "und") return DEFAULT_LOCALE;
    return `${likely.language}-${likely.region ?? country.toUpperCase()}`;
  } catch {
    return DEFAULT_LOCALE;
  }
};

/**
 * The viewer's locale from an Accept-Language header (its first tag this runtime can format, by q order), else the
 * one derived from the store's country, else the default. Never throws on a malformed header.
 */
export const pickLocale = (
  acceptLanguage: string | null | undefined,
  fallbackCountry?: string | null,
): string => {
  const tags = (acceptLanguage ?? "")
    .split(",")
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const weight = q ? Number(q.slice(2)) : 1;
      return { tag: tag.trim(), weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((t) => t.tag && t.tag !== "*" && t.weight > 0 && t.tag.length <= 35)
    .sort((a, b) => b.weight - a.weight || a.index - b.index);
  for (const { tag } of tags) {
    try {
      const [supported] = Intl.NumberFormat.supportedLocalesOf([tag]);
      if (supported) return supported;
    } catch {
      // a malformed tag: try the next one
    }
  }
  return localeForCountry(fallbackCountry);
};
