import { ArrowRight, Code2, Store } from "lucide-react";
import Link from "next/link";

// The two other doors of the service, for a visitor who is not a buyer: merchants run their stores in the admin,
// developers of agents get platform keys and the sandbox. Each card is one link (its whole area opens it).

const AREAS = [
  {
    href: "/admin",
    Icon: Store,
    title: "Sell through agents",
    text: "Open a store, import your catalog, take card and crypto payments and ship the orders agents place.",
    cta: "Merchant admin",
  },
  {
    href: "/developers",
    Icon: Code2,
    title: "Build an agent",
    text: "Get a platform key, try the sandbox and connect your agent over MCP or REST.",
    cta: "Developer area",
  },
] as const;

export function AreaLinks() {
  return (
    <ul className="grid gap-4 sm:grid-cols-2">
      {AREAS.map(({ href, Icon, title, text, cta }) => (
        <li
          key={href}
          className="bg-card hover:border-primary relative rounded-xl border p-5 transition-colors"
        >
          <Icon aria-hidden className="text-primary mb-3 size-6" />
          <p className="font-semibold">{title}</p>
          <p className="text-muted-foreground mt-1 text-sm">{text}</p>
          <Link
            href={href}
            className="text-link mt-3 inline-flex items-center gap-1 text-sm font-medium after:absolute after:inset-0"
          >
            {cta}
            <ArrowRight aria-hidden className="size-4" />
          </Link>
        </li>
      ))}
    </ul>
  );
}
