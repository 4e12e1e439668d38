import { Badge } from "@/components/ui/badge";

const TONES = {
  placed: "info",
  paid: "success",
  fulfilled: "info",
  delivered: "success",
  canceled: "neutral",
  refunded: "warning",
} as const;

const LABELS: Record<string, string> = {
  placed: "Placed",
  paid: "Paid",
  fulfilled: "Shipped",
  delivered: "Delivered",
  canceled: "Canceled",
  refunded: "Refunded",
};

export const orderStatusLabel = (status: string): string => LABELS[status] ?? status;

export function OrderStatusBadge({ status }: { status: string }) {
  return (
    <Badge tone={TONES[status as keyof typeof TONES] ?? "neutral"} data-testid="order-status">
      {orderStatusLabel(status)}
    </Badge>
  );
}
