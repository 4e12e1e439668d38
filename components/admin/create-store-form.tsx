"use client";

import { useActionState } from "react";

import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";

import { FormError } from "./form-messages";
import type { FormState } from "./form-state";

const EMPTY: FormState = { ok: false, errors: {} };

export function CreateStoreForm({ action }: { action: (s: FormState, d: FormData) => Promise<FormState> }) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  return (
    <form action={formAction} className="grid gap-4" noValidate>
      <FormError message={state.errors.form} />
      <Field id="store-name" label="Store name" error={state.errors.name}>
        {(control) => (
          <Input {...control} name="name" defaultValue={state.values?.name} maxLength={100} required />
        )}
      </Field>
      <Field
        id="store-slug"
        label="Address"
        hint="Part of every link of the store (/s/<address>/…); it cannot change later."
        error={state.errors.slug}
      >
        {(control) => (
          <Input
            {...control}
            name="slug"
            defaultValue={state.values?.slug}
            maxLength={40}
            autoCapitalize="none"
            required
          />
        )}
      </Field>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field id="store-currency" label="Currency" hint="ISO 4217, e.g. USD" error={state.errors.currency}>
          {(control) => (
            <Input
              {...control}
              name="currency"
              defaultValue={state.values?.currency ?? "USD"}
              maxLength={3}
              required
            />
          )}
        </Field>
        <Field id="store-country" label="Country" hint="ISO 3166, e.g. US" error={state.errors.country}>
          {(control) => (
            <Input
              {...control}
              name="country"
              defaultValue={state.values?.country ?? "US"}
              maxLength={2}
              required
            />
          )}
        </Field>
      </div>
      <Button type="submit" disabled={pending} className="justify-self-start">
        {pending ? "Creating…" : "Create store"}
      </Button>
    </form>
  );
}
