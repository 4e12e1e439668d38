// Renders integer minor units as money without floats: the decimal string is built with integer arithmetic and
// handed to Intl.NumberFormat, which formats decimal strings exactly.

const fractionDigits = (currency: string): number =>
  new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;

export const formatMinor = (amountMinor: number, currency: string): string => {
  const digits = fractionDigits(currency);
  const sign = amountMinor < 0 ? "-" : "";
  const abs = String(Math.abs(amountMinor)).padStart(digits + 1, "0");
  const decimal = digits === 0 ? abs : `${abs.slice(0, -digits)}.${abs.slice(-digits)}`;
  const format = new Intl.NumberFormat("en", { style: "currency", currency }).format as (v: string) => string;
  return format(`${sign}${decimal}`);
};

export function Money({ amountMinor, currency }: { amountMinor: number; currency: string }) {
  return <span className="money tabular-nums">{formatMinor(amountMinor, currency)}</span>;
}
