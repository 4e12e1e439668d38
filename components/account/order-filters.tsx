import Link from "next/link";

import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { NativeSelect } from "@/components/ui/select";
import { ORDER_STATUSES } from "@/lib/orders/list-buyer-orders";

import { orderStatusLabel } from "./order-status-badge";

// Filters by store and status as a plain GET form: the filter is in the URL (shareable, back button works) and it
// works before any script has loaded.

export function OrderFilters({
  stores,
  store,
  status,
}: {
  stores: { slug: string; name: string }[];
  store: string;
  status: string;
}) {
  return (
    <form
      method="get"
      action="/account/orders"
      aria-label="Filter orders"
      className="bg-card mb-6 grid gap-4 rounded-xl border p-4 sm:grid-cols-[1fr_1fr_auto] sm:items-end"
    >
      <Field id="filter-store" label="Store">
        {(control) => (
          <NativeSelect name="store" defaultValue={store} {...control}>
            <option value="">All stores</option>
            {stores.map((s) => (
              <option key={s.slug} value={s.slug}>
                {s.name}
              </option>
            ))}
          </NativeSelect>
        )}
      </Field>
      <Field id="filter-status" label="Status">
        {(control) => (
          <NativeSelect name="status" defaultValue={status} {...control}>
            <option value="">Any status</option>
            {ORDER_STATUSES.map((s) => (
              <option key={s} value={s}>
                {orderStatusLabel(s)}
              </option>
            ))}
          </NativeSelect>
        )}
      </Field>
      <div className="flex gap-2">
        <Button type="submit">Apply</Button>
        {store || status ? (
          <Button asChild variant="ghost">
            <Link href="/account/orders">Clear</Link>
          </Button>
        ) : null}
      </div>
    </form>
  );
}
