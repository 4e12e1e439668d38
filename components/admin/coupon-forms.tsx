"use client";

import { useActionState } from "react";

import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";

import { CurrencySelect, type CurrencyOptions } from "./currency-select";
import { FormError, Notice } from "./form-messages";
import type { FormState } from "./form-state";

type Action = (state: FormState, data: FormData) => Promise<FormState>;

const EMPTY: FormState = { ok: false, errors: {} };
const textarea =
  "border-input bg-background min-h-24 w-full rounded-md border px-3 py-2 font-mono text-xs break-all";

/** The operator issues a service coupon: an amount in major units of a currency, an expiry day, the buyers. */
export function IssueCouponForm({
  action,
  minDay,
  currencies,
}: {
  action: Action;
  minDay: string;
  currencies: CurrencyOptions;
}) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  const v = state.ok ? {} : (state.values ?? {});
  return (
    <form action={formAction} className="grid gap-4" noValidate aria-label="Issue a coupon">
      <FormError message={state.errors.form} />
      {state.ok && state.message ? <Notice>{state.message}</Notice> : null}
      <div className="grid items-start gap-4 sm:grid-cols-3">
        <Field
          id="coupon-amount"
          label="Amount off"
          hint="In major units, such as 5.00"
          error={state.errors.amount}
        >
          {(c) => <Input {...c} name="amount" inputMode="decimal" defaultValue={v.amount} required />}
        </Field>
        <Field id="coupon-currency" label="Currency" error={state.errors.currency}>
          {(c) => (
            <CurrencySelect
              {...c}
              options={currencies}
              name="currency"
              defaultValue={v.currency ?? "USD"}
              required
            />
          )}
        </Field>
        <Field
          id="coupon-expires"
          label="Good until"
          hint="The end of that day, UTC"
          error={state.errors.expires_on}
        >
          {(c) => (
            <Input {...c} name="expires_on" type="date" min={minDay} defaultValue={v.expires_on} required />
          )}
        </Field>
      </div>
      <Field
        id="coupon-buyers"
        label="Buyers' Sui addresses"
        hint="One per line; each buyer has signed in once. Each gets the coupon once."
        error={state.errors.buyer_addresses}
      >
        {(c) => (
          <textarea
            {...c}
            name="buyer_addresses"
            defaultValue={v.buyer_addresses}
            className={textarea}
            required
          />
        )}
      </Field>
      <Field
        id="coupon-description"
        label="Description (optional)"
        hint="What the buyer's agent reads, such as “Welcome: 5 USD off”"
        error={state.errors.description}
      >
        {(c) => <Input {...c} name="description" maxLength={200} defaultValue={v.description} />}
      </Field>
      <Button type="submit" disabled={pending} className="justify-self-start">
        {pending ? "Issuing…" : "Issue coupon"}
      </Button>
    </form>
  );
}

/** Marks the open payables shown for one store as settled (paid to the merchant outside the rails). */
export function SettlePayablesForm({
  action,
  storeSlug,
  storeName,
  payableIds,
  label,
}: {
  action: Action;
  storeSlug: string;
  storeName: string;
  payableIds: string[];
  label: string;
}) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  return (
    <form action={formAction} className="grid justify-items-start gap-1">
      <input type="hidden" name="store_slug" value={storeSlug} />
      {payableIds.map((id) => (
        <input key={id} type="hidden" name="payable_id" value={id} />
      ))}
      <Button
        type="submit"
        variant="outline"
        size="sm"
        disabled={pending}
        aria-label={`Mark settled: ${label} owed to ${storeName}`}
      >
        Mark settled: {label}
      </Button>
      {state.errors.form ? (
        <p role="alert" className="text-destructive text-xs">
          {state.errors.form}
        </p>
      ) : state.ok && state.message ? (
        <p role="status" className="text-muted-foreground text-xs">
          {state.message}
        </p>
      ) : null}
    </form>
  );
}
