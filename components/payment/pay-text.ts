import type { SuiNetwork } from "@/lib/payments/crypto/coins";

// What the pay pages say about a payment, as people read it: a card as "Visa •••• 4242", the rate a coin amount was
// worked out at, and where a transaction can be looked at. Pure: server pages and client components share it.

const BRANDS: Record<string, string> = {
  visa: "Visa",
  mastercard: "Mastercard",
  amex: "American Express",
  discover: "Discover",
  diners: "Diners Club",
  jcb: "JCB",
  unionpay: "UnionPay",
  cartes_bancaires: "Cartes Bancaires",
};

/** "Visa •••• 4242"; "Card" when the provider did not say which card it was. */
export const cardLabel = (brand: string | null | undefined, last4: string | null | undefined): string => {
  const name = brand
    ? (BRANDS[brand.toLowerCase()] ?? brand.charAt(0).toUpperCase() + brand.slice(1))
    : "Card";
  return last4 && /^\d{4}$/.test(last4) ? `${name} •••• ${last4}` : name;
};

/**
 * The fiat value of one whole coin (minor units, rounded to the nearest) that a quote used: what `amount` base units
 * of a coin with `decimals` cost in `fiatMinor`. Integer arithmetic only; 0 for an empty leg.
 */
export const ratePerCoinMinor = (amount: string, decimals: number, fiatMinor: number): number => {
  const units = BigInt(amount);
  if (units <= 0n) return 0;
  const scaled = BigInt(fiatMinor) * 10n ** BigInt(decimals);
  return Number((scaled * 2n + units) / (units * 2n));
};

/** A public explorer's page of a transaction; null on the sandbox, whose transactions no explorer knows. */
export const explorerUrl = (network: SuiNetwork, digest: string): string | null =>
  network === "sandbox" ? null : `https://suiscan.xyz/${network}/tx/${encodeURIComponent(digest)}`;

/** A transaction digest shortened for reading ("8Fk3…Qz9a"); the full one stays in a title or a link. */
export const shortDigest = (digest: string): string =>
  digest.length > 14 ? `${digest.slice(0, 6)}…${digest.slice(-6)}` : digest;

/** Where a quote's rate came from, for people: "Pyth price feed", "sandbox rate", "pegged 1:1". */
export const rateSourceText = (source: string): string => {
  const pegged = / \(pegged 1:1\)$/.test(source);
  const base = source.replace(/ \(pegged 1:1\)$/, "");
  const named =
    base === "pyth"
      ? "Pyth price feed"
      : base === "fixed"
        ? "sandbox rate"
        : base === "par" || base === "identity"
          ? "at par"
          : base;
  return pegged ? `${named}, pegged 1:1` : named;
};

/** Minutes and seconds left ("9:05"), never negative. */
export const countdownText = (msLeft: number): string => {
  const total = Math.max(0, Math.ceil(msLeft / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, "0")}`;
};
