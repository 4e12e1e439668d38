import { Store } from "lucide-react";

import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import type { StoreSummary } from "@/lib/stores/list-stores";

// The stores on this service, each linking to its UCP business profile.

const RAIL_NAMES: Record<string, string> = { "svc.card": "Card", "svc.crypto": "Crypto (Sui)" };

export function StoreList({ stores }: { stores: readonly StoreSummary[] }) {
  if (stores.length === 0) {
    return (
      <EmptyState icon={<Store />} title="No stores yet">
        Run <code>npm run db:seed</code> to create the demo stores.
      </EmptyState>
    );
  }
  return (
    <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3" aria-label="Stores">
      {stores.map((s) => (
        <li key={s.slug} data-testid="store-row">
          <Card className="flex h-full flex-col">
            <CardHeader>
              <div className="flex items-start justify-between gap-2">
                <CardTitle as="h3">{s.name}</CardTitle>
                <Badge tone={s.mode === "live" ? "success" : "warning"}>
                  {s.mode === "live" ? "Live" : "Test mode"}
                </Badge>
              </div>
              {s.description ? (
                <CardDescription className="line-clamp-2">{s.description}</CardDescription>
              ) : null}
            </CardHeader>
            <CardContent className="mt-auto grid gap-3 text-sm">
              <div className="flex flex-wrap gap-1.5">
                {s.rails.map((r) => (
                  <Badge key={r} tone="outline">
                    {RAIL_NAMES[r] ?? r}
                  </Badge>
                ))}
                <Badge tone="outline">{s.currency}</Badge>
              </div>
              <p className="text-muted-foreground">
                {s.productCount.toLocaleString("en-US")} products · <code>{s.slug}</code>
              </p>
              <a href={`/s/${s.slug}/.well-known/ucp`} className="font-mono text-xs break-all">
                /s/{s.slug}/.well-known/ucp
              </a>
            </CardContent>
          </Card>
        </li>
      ))}
    </ul>
  );
}
