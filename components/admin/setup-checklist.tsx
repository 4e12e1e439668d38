import { CheckCircle2, Circle, CircleAlert } from "lucide-react";
import Link from "next/link";

import { Badge } from "@/components/ui/badge";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import type { SetupStep, SetupStepKey } from "@/lib/stores/setup-checklist";

// The overview's setup checklist: each step ticks itself from the store's state (lib/stores/setup-checklist.ts)
// and links to the page where it is done. A required step not done yet is flagged; the word beside the icon
// carries the state, the icon only repeats it.

const STEPS: Record<SetupStepKey, { label: string; action: string; path: string }> = {
  products: { label: "Products", action: "Add a product", path: "catalog/new" },
  shipping: { label: "Shipping", action: "Add a shipping rate", path: "settings#add-rate" },
  card: { label: "Card payments", action: "Card settings", path: "payments" },
  crypto: { label: "Crypto payments", action: "Crypto settings", path: "payments" },
  webhooks: { label: "Order webhooks", action: "Set an endpoint", path: "webhooks" },
  live: { label: "Go live", action: "Store mode", path: "settings" },
};

export function SetupChecklist({ slug, steps }: { slug: string; steps: SetupStep[] }) {
  const root = `/admin/stores/${encodeURIComponent(slug)}`;
  const required = steps.filter((s) => !s.optional);
  const doneCount = required.filter((s) => s.done).length;
  return (
    <Card className="min-w-0" aria-labelledby="setup-title">
      <CardHeader>
        <CardTitle id="setup-title">Setup</CardTitle>
        <CardDescription>
          {doneCount === required.length
            ? "Every required step is done."
            : `${doneCount} of ${required.length} required steps done.`}
        </CardDescription>
      </CardHeader>
      <CardContent>
        <ul className="divide-y" aria-label="Setup steps">
          {steps.map((step) => {
            const { label, action, path } = STEPS[step.key];
            const blocking = !step.done && !step.optional;
            const Icon = step.done ? CheckCircle2 : blocking ? CircleAlert : Circle;
            return (
              <li
                key={step.key}
                data-step={step.key}
                className="flex flex-wrap items-start gap-x-3 gap-y-1 py-3 first:pt-0 last:pb-0"
              >
                <Icon
                  aria-hidden="true"
                  className={
                    step.done
                      ? "text-success-soft-foreground mt-0.5 size-5 shrink-0"
                      : blocking
                        ? "text-warning-soft-foreground mt-0.5 size-5 shrink-0"
                        : "text-muted-foreground mt-0.5 size-5 shrink-0"
                  }
                />
                <div className="grid min-w-0 flex-1 gap-0.5">
                  <p className="flex flex-wrap items-center gap-2 text-sm font-medium">
                    {label}
                    <Badge tone={step.done ? "success" : blocking ? "warning" : "neutral"}>
                      {step.done ? "Done" : step.optional ? "Optional" : "To do"}
                    </Badge>
                  </p>
                  <p className="text-muted-foreground text-sm">{step.detail}</p>
                </div>
                <Link
                  href={`${root}/${path}`}
                  className="ml-8 text-sm underline underline-offset-4 sm:ml-0"
                  aria-label={`${action} (${label})`}
                >
                  {action}
                </Link>
              </li>
            );
          })}
        </ul>
      </CardContent>
    </Card>
  );
}
