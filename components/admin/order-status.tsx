import { Badge } from "@/components/ui/badge";

const tone = (status: string) =>
  status === "canceled" || status === "refunded"
    ? ("danger" as const)
    : status === "placed"
      ? ("warning" as const)
      : status === "paid"
        ? ("info" as const)
        : ("success" as const);

/** An order's status as a badge (the word itself carries the meaning; the colour only repeats it). */
export function OrderStatusBadge({ status }: { status: string }) {
  return <Badge tone={tone(status)}>{status}</Badge>;
}

/** The host of an agent's profile URL, for a narrow column (the full URL goes in a title). */
export const agentHost = (profile: string | null): string => {
  if (!profile) return "—";
  try {
    return new URL(profile).host;
  } catch {
    return profile;
  }
};
