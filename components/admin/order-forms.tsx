"use client";

import { useActionState } from "react";

import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";

import { FormError, Notice } from "./form-messages";
import type { FormState } from "./form-state";

// The order actions' forms: each posts to its server action, which validates on the server and answers the message
// of the field it refused (shown beside it) or a notice.

type Action = (previous: FormState, data: FormData) => Promise<FormState>;
const EMPTY: FormState = { ok: false, errors: {} };

const value = (state: FormState, name: string) => (state.ok ? undefined : state.values?.[name]);

function Outcome({ state }: { state: FormState }) {
  return (
    <>
      <FormError message={state.errors.form} />
      {state.ok && state.message ? <Notice>{state.message}</Notice> : null}
    </>
  );
}

export function FulfilForm({ action }: { action: Action }) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  return (
    <form action={formAction} className="grid gap-3" noValidate aria-label="Fulfil the order">
      <Outcome state={state} />
      <Field id="carrier" label="Carrier" error={state.errors.carrier}>
        {(c) => <Input {...c} name="carrier" defaultValue={value(state, "carrier")} required />}
      </Field>
      <Field id="trackingNumber" label="Tracking number" error={state.errors.trackingNumber}>
        {(c) => <Input {...c} name="trackingNumber" defaultValue={value(state, "trackingNumber")} required />}
      </Field>
      <Field
        id="trackingUrl"
        label="Tracking link (optional)"
        hint="An https link the buyer can follow."
        error={state.errors.trackingUrl ?? state.errors.tracking_url}
      >
        {(c) => <Input {...c} name="trackingUrl" type="url" defaultValue={value(state, "trackingUrl")} />}
      </Field>
      <Button type="submit" disabled={pending}>
        {pending ? "Shipping…" : "Mark as shipped"}
      </Button>
    </form>
  );
}

export function RefundForm({
  action,
  currency,
  refundable,
}: {
  action: Action;
  currency: string;
  /** What can still be refunded, for a person to read. */
  refundable: string;
}) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  return (
    <form action={formAction} className="grid gap-3" noValidate aria-label="Refund the order">
      <Outcome state={state} />
      <Field
        id="amount"
        label={`Amount (${currency})`}
        hint={`Up to ${refundable}. Leave blank to refund everything left.`}
        error={state.errors.amount}
      >
        {(c) => <Input {...c} name="amount" inputMode="decimal" defaultValue={value(state, "amount")} />}
      </Field>
      <Field id="refund-reason" label="Reason (optional)" error={state.errors.reason}>
        {(c) => <Input {...c} name="reason" defaultValue={value(state, "reason")} />}
      </Field>
      <Button type="submit" variant="secondary" disabled={pending}>
        {pending ? "Refunding…" : "Refund"}
      </Button>
    </form>
  );
}

export function CancelForm({ action }: { action: Action }) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  return (
    <form action={formAction} className="grid gap-3" noValidate aria-label="Cancel the order">
      <Outcome state={state} />
      <Field id="cancel-reason" label="Reason (optional)" error={state.errors.reason}>
        {(c) => <Input {...c} name="reason" defaultValue={value(state, "reason")} />}
      </Field>
      <Button type="submit" variant="destructive" disabled={pending}>
        {pending ? "Canceling…" : "Cancel the order"}
      </Button>
    </form>
  );
}
