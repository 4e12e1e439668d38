"use client";

import { useActionState } from "react";

import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";

import { FormError, Notice } from "./form-messages";
import type { FormState } from "./form-state";

// The webhooks page's forms; each posts to its server action and shows the refusal beside the field, or a notice.

type Action = (previous: FormState, data: FormData) => Promise<FormState>;
const EMPTY: FormState = { ok: false, errors: {} };

export function WebhookUrlForm({ action, current }: { action: Action; current: string | null }) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  return (
    <form action={formAction} className="grid gap-3" noValidate aria-label="Where deliveries go">
      <FormError message={state.errors.form} />
      {state.ok && state.message ? <Notice>{state.message}</Notice> : null}
      <Field
        id="webhook_url"
        label="Webhook URL"
        hint="An https URL on a public host. Leave blank to stop sending."
        error={state.errors.webhook_url}
      >
        {(c) => (
          <Input
            {...c}
            name="webhook_url"
            type="url"
            defaultValue={state.ok ? undefined : (state.values?.webhook_url ?? current ?? "")}
          />
        )}
      </Field>
      <Button type="submit" disabled={pending} className="justify-self-start">
        {pending ? "Saving…" : "Save URL"}
      </Button>
    </form>
  );
}

/** A one-button form (rotate, redeliver, enable) with its outcome beside it. */
export function ButtonForm({
  action,
  label,
  pendingLabel,
  variant = "secondary",
  ariaLabel,
}: {
  action: Action;
  label: string;
  /** A fuller name when the label repeats on every row (e.g. "Redeliver wh_…"). */
  ariaLabel?: string;
  pendingLabel: string;
  variant?: "secondary" | "outline" | "destructive";
}) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  return (
    <form action={formAction} className="grid gap-2">
      <Button
        type="submit"
        size="sm"
        variant={variant}
        disabled={pending}
        aria-label={ariaLabel}
        className="justify-self-start"
      >
        {pending ? pendingLabel : label}
      </Button>
      <FormError message={state.errors.form} />
      {state.ok && state.message ? <Notice>{state.message}</Notice> : null}
    </form>
  );
}
