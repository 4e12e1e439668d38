// The currencies a store can sell in: every ISO 4217 code the runtime's Intl knows (it formats them and knows their
// decimals), named in English for the admin's picker. The store schemas check against the same list, so the picker
// cannot offer a code the server refuses.

export const SUPPORTED_CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf("currency"));

/** Shown first in the picker: the currencies most stores sell in. */
const COMMON = ["USD", "EUR", "GBP", "CAD", "AUD", "JPY", "CHF"];

export type CurrencyOption = { code: string; name: string };

/** The picker's options: the common ones, then all by code (names from CLDR, e.g. "USD — US Dollar"). */
export const currencyOptions = (): { common: CurrencyOption[]; all: CurrencyOption[] } => {
  const names = new Intl.DisplayNames(["en"], { type: "currency" });
  const option = (code: string) => ({ code, name: names.of(code) ?? code });
  return {
    common: COMMON.filter((c) => SUPPORTED_CURRENCIES.has(c)).map(option),
    all: [...SUPPORTED_CURRENCIES].sort().map(option),
  };
};
