"use client";

import { useActionState } from "react";

import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/select";

import { FormError, Notice } from "./form-messages";
import type { FormState } from "./form-state";

// The store settings page's forms (owner only; staff see the page read-only). Each posts to its server action and
// shows the refusal beside the field; the values typed stay in the form.

type Action = (state: FormState, data: FormData) => Promise<FormState>;
const EMPTY: FormState = { ok: false, errors: {} };

export function StoreSettingsForm({
  action,
  initial,
  slug,
  canEdit,
}: {
  action: Action;
  initial: { name: string; currency: string; mode: string; taxRate: string };
  slug: string;
  canEdit: boolean;
}) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  const v = state.values ?? initial;
  return (
    <form action={formAction} className="grid gap-4" noValidate>
      <FormError message={state.errors.form} />
      {state.ok && state.message ? <Notice>{state.message}</Notice> : null}
      <fieldset disabled={!canEdit} className="grid gap-4">
        <Field id="settings-name" label="Store name" error={state.errors.name}>
          {(control) => <Input {...control} name="name" defaultValue={v.name} maxLength={100} required />}
        </Field>
        <Field
          id="settings-slug"
          label="Address"
          hint="Part of every link agents and buyers hold (/s/<address>/…), so it cannot change."
        >
          {(control) => <Input {...control} value={slug} readOnly />}
        </Field>
        <div className="grid gap-4 sm:grid-cols-3">
          <Field
            id="settings-currency"
            label="Currency"
            hint="ISO 4217; fixed once the store has an order"
            error={state.errors.currency}
          >
            {(control) => (
              <Input {...control} name="currency" defaultValue={v.currency} maxLength={3} required />
            )}
          </Field>
          <Field
            id="settings-tax"
            label="Tax rate (%)"
            hint="Applied to goods and shipping, e.g. 8.25"
            error={state.errors.taxRate}
          >
            {(control) => <Input {...control} name="taxRate" defaultValue={v.taxRate} inputMode="decimal" />}
          </Field>
          <Field
            id="settings-mode"
            label="Mode"
            hint="Live needs the live keys of each enabled rail (Payments)"
            error={state.errors.mode}
          >
            {(control) => (
              <NativeSelect {...control} name="mode" defaultValue={v.mode}>
                <option value="test">Test (sandbox payments)</option>
                <option value="live">Live (real money)</option>
              </NativeSelect>
            )}
          </Field>
        </div>
      </fieldset>
      {canEdit ? (
        <Button type="submit" disabled={pending} className="justify-self-start">
          {pending ? "Saving…" : "Save settings"}
        </Button>
      ) : null}
    </form>
  );
}

export function ShippingRateForm({ action, currency }: { action: Action; currency: string }) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  const v = state.ok ? {} : (state.values ?? {});
  return (
    <form action={formAction} className="grid gap-4" noValidate key={state.ok ? state.message : "form"}>
      <FormError message={state.errors.form} />
      {state.ok && state.message ? <Notice>{state.message}</Notice> : null}
      <div className="grid gap-4 sm:grid-cols-2">
        <Field id="rate-title" label="Name" error={state.errors.title}>
          {(control) => (
            <Input {...control} name="title" defaultValue={v.title ?? "Standard shipping"} maxLength={100} />
          )}
        </Field>
        <Field
          id="rate-code"
          label="Code"
          hint="Rates with one code are one option"
          error={state.errors.code}
        >
          {(control) => <Input {...control} name="code" defaultValue={v.code ?? "standard"} maxLength={40} />}
        </Field>
        <Field
          id="rate-country"
          label="Country"
          hint="e.g. US, or * for anywhere"
          error={state.errors.country}
        >
          {(control) => <Input {...control} name="country" defaultValue={v.country ?? ""} maxLength={2} />}
        </Field>
        <Field id="rate-region" label="Region (optional)" hint="e.g. CA" error={state.errors.region}>
          {(control) => <Input {...control} name="region" defaultValue={v.region ?? ""} maxLength={3} />}
        </Field>
        <Field id="rate-price" label={`Price (${currency})`} error={state.errors.price}>
          {(control) => <Input {...control} name="price" defaultValue={v.price ?? ""} inputMode="decimal" />}
        </Field>
        <Field
          id="rate-free"
          label={`Free over (${currency}, optional)`}
          hint="Free when the goods cost at least this"
          error={state.errors.freeOver}
        >
          {(control) => (
            <Input {...control} name="freeOver" defaultValue={v.freeOver ?? ""} inputMode="decimal" />
          )}
        </Field>
        <Field id="rate-min-days" label="Days, at least (optional)" error={state.errors.minDays}>
          {(control) => (
            <Input {...control} name="minDays" defaultValue={v.minDays ?? ""} inputMode="numeric" />
          )}
        </Field>
        <Field id="rate-max-days" label="Days, at most (optional)" error={state.errors.maxDays}>
          {(control) => (
            <Input {...control} name="maxDays" defaultValue={v.maxDays ?? ""} inputMode="numeric" />
          )}
        </Field>
      </div>
      <Button type="submit" disabled={pending} className="justify-self-start">
        {pending ? "Adding…" : "Add shipping rate"}
      </Button>
    </form>
  );
}

export function LocationForm({ action }: { action: Action }) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  const v = state.ok ? {} : (state.values ?? {});
  const text = (id: string, name: string, label: string, hint?: string) => (
    <Field id={id} label={label} hint={hint} error={state.errors[name]}>
      {(control) => <Input {...control} name={name} defaultValue={v[name] ?? ""} />}
    </Field>
  );
  return (
    <form action={formAction} className="grid gap-4" noValidate key={state.ok ? state.message : "form"}>
      <FormError message={state.errors.form} />
      {state.ok && state.message ? <Notice>{state.message}</Notice> : null}
      <div className="grid gap-4 sm:grid-cols-2">
        {text("loc-name", "name", "Name")}
        {text("loc-street", "streetAddress", "Street address")}
        {text("loc-city", "locality", "City")}
        {text("loc-region", "region", "Region (optional)")}
        {text("loc-postal", "postalCode", "Postal code (optional)")}
        {text("loc-country", "country", "Country", "e.g. US")}
        {text("loc-lat", "latitude", "Latitude", "Degrees, e.g. 37.7749")}
        {text("loc-lng", "longitude", "Longitude", "Degrees, e.g. -122.4194")}
      </div>
      <fieldset className="grid gap-2">
        <legend className="text-sm font-medium">Services</legend>
        <div className="flex flex-wrap gap-4 text-sm">
          {["pickup", "returns", "repairs"].map((service) => (
            <label key={service} className="flex items-center gap-2">
              <input type="checkbox" name="services" value={service} className="size-4" />
              {service[0]!.toUpperCase() + service.slice(1)}
            </label>
          ))}
        </div>
        {state.errors.services ? (
          <p className="text-destructive text-sm font-medium">{state.errors.services}</p>
        ) : null}
      </fieldset>
      <Button type="submit" disabled={pending} className="justify-self-start">
        {pending ? "Adding…" : "Add location"}
      </Button>
    </form>
  );
}

/** A one-button form that removes something and says so (or why not). */
export function RemoveButton({ action, label }: { action: Action; label: string }) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  return (
    <form action={formAction} className="grid justify-items-end gap-1">
      <Button type="submit" variant="outline" size="sm" disabled={pending} aria-label={label}>
        Remove
      </Button>
      {state.errors.form || state.errors.id ? (
        <p role="alert" className="text-destructive text-xs">
          {state.errors.form ?? state.errors.id}
        </p>
      ) : null}
    </form>
  );
}
