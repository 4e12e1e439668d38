import { Badge } from "@/components/ui/badge";

// A service-coupon payable's status (lib/coupons/operator.ts) as a badge, on the operator's page and a store's
// Payments page.

const PAYABLE = {
  open: { label: "Open", tone: "warning" },
  settled: { label: "Settled", tone: "success" },
  void: { label: "Void", tone: "neutral" },
} as const;

export function PayableBadge({ status }: { status: string }) {
  const known = PAYABLE[status as keyof typeof PAYABLE];
  return <Badge tone={known?.tone ?? "neutral"}>{known?.label ?? status}</Badge>;
}
