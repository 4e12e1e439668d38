import { FlaskConical } from "lucide-react";

// Stripe's documented test card numbers, shown only where a test-mode key collects the card (any future expiry,
// any CVC). A live key never shows them.

export const STRIPE_TEST_CARDS = [
  { number: "4242 4242 4242 4242", outcome: "Succeeds" },
  { number: "4000 0027 6000 3184", outcome: "Asks for 3-D Secure" },
  { number: "4000 0000 0000 0002", outcome: "Declined" },
] as const;

export function TestCards({ title = "Test cards" }: { title?: string }) {
  return (
    <aside
      aria-label={title}
      className="bg-info-soft text-info-soft-foreground grid gap-2 rounded-lg p-3 text-sm"
      data-testid="test-cards"
    >
      <p className="flex items-center gap-2 font-semibold">
        <FlaskConical aria-hidden className="size-4" /> {title}
      </p>
      <ul className="grid gap-1">
        {STRIPE_TEST_CARDS.map((c) => (
          <li key={c.number} className="flex flex-wrap justify-between gap-x-4">
            <code className="font-mono">{c.number}</code>
            <span>{c.outcome}</span>
          </li>
        ))}
      </ul>
      <p className="text-xs">Any future expiry date and any 3-digit security code. No real money moves.</p>
    </aside>
  );
}
