import { Badge } from "@/components/ui/badge";

const tone = (status: string) =>
  status === "canceled" || status === "refunded"
    ? ("danger" as const)
    : status === "placed"
      ? ("warning" as const)
      : status === "paid"
        ? ("info" as const)
        : ("success" as const);

const STATUS_WORDS: Record<string, string> = {
  placed: "Placed",
  paid: "Paid",
  fulfilled: "Shipped",
  delivered: "Delivered",
  canceled: "Canceled",
  refunded: "Refunded",
};

/** An order's status in a word people use. */
export const statusWord = (status: string): string => STATUS_WORDS[status] ?? status;

/** An order's status as a badge (the word itself carries the meaning; the colour only repeats it). */
export function OrderStatusBadge({ status }: { status: string }) {
  return <Badge tone={tone(status)}>{statusWord(status)}</Badge>;
}

const FULFILMENT_WORDS = {
  unfulfilled: { label: "Unfulfilled", tone: "warning" },
  partial: { label: "Partly shipped", tone: "info" },
  fulfilled: { label: "Shipped", tone: "success" },
  canceled: { label: "Nothing to ship", tone: "neutral" },
} as const;

/**
 * Where the order stands in shipping, as a badge; none when the order's status already says it ("Shipped" twice
 * would read as two things).
 */
export function FulfilmentBadge({
  state,
  status,
}: {
  state: keyof typeof FULFILMENT_WORDS;
  /** The order's status, shown beside it. */
  status?: string;
}) {
  const { label, tone: t } = FULFILMENT_WORDS[state];
  if (status !== undefined && statusWord(status) === label) return null;
  return <Badge tone={t}>{label}</Badge>;
}

/**
 * The order's number for people: the first eight characters of its id after the prefix ("#Xk3m9QaT"), as they are
 * (ids are case-sensitive), so the orders list's search finds the order by it. A reading aid beside the full id,
 * which the order page shows and copies; links and the API use the id.
 */
export const orderNumber = (id: string): string => `#${id.replace(/^ord_/, "").slice(0, 8)}`;

/** The rail an order was paid on, in a word. */
export const railWord = (handlerId: string | null): string =>
  handlerId === "svc.card" ? "Card" : handlerId === "svc.crypto" ? "Crypto" : "—";

const BRANDS: Record<string, string> = {
  visa: "Visa",
  mastercard: "Mastercard",
  amex: "American Express",
  discover: "Discover",
  diners: "Diners Club",
  jcb: "JCB",
  unionpay: "UnionPay",
};

/** "Visa •••• 4242" from the brand and last four the card rail recorded. */
export const cardLabel = (brand: string | null, last4: string | null): string => {
  const name = brand
    ? (BRANDS[brand.toLowerCase()] ?? brand.charAt(0).toUpperCase() + brand.slice(1))
    : "Card";
  return last4 ? `${name} •••• ${last4}` : name;
};

/** The host of an agent's profile URL, for a narrow column (the full URL goes in a title). */
export const agentHost = (profile: string | null): string => {
  if (!profile) return "—";
  try {
    return new URL(profile).host;
  } catch {
    return profile;
  }
};

/** An agent's request waiting for the store, beside the order's status in the list. */
export function RequestBadge({ waiting }: { waiting: "cancellation" | "refund" | null }) {
  if (!waiting) return null;
  return (
    <Badge tone="warning">{waiting === "cancellation" ? "Cancellation requested" : "Refund requested"}</Badge>
  );
}
