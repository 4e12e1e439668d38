import { DEFAULT_LOCALE, formatMoney } from "@/components/ui/format";

// Integer minor units as money, through the shared formatter (components/ui/format.ts).

export const formatMinor = (amountMinor: number, currency: string, locale: string = DEFAULT_LOCALE): string =>
  formatMoney(amountMinor, currency, locale);

export function Money({
  amountMinor,
  currency,
  locale,
}: {
  amountMinor: number;
  currency: string;
  locale?: string;
}) {
  return <span className="money tabular-nums">{formatMoney(amountMinor, currency, locale)}</span>;
}
