"use client";

import { LocateFixed } from "lucide-react";
import { useActionState, useState } from "react";

import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/select";
import type { CountryOption } from "@/lib/checkout/countries";

import { CountrySelect } from "./country-select";
import { CurrencySelect, type CurrencyOptions } from "./currency-select";
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
  currencies,
}: {
  action: Action;
  initial: { name: string; currency: string; mode: string; taxRate: string };
  currencies: CurrencyOptions;
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
            hint="Fixed once the store has an order"
            error={state.errors.currency}
          >
            {(control) => (
              <CurrencySelect
                {...control}
                options={currencies}
                name="currency"
                defaultValue={v.currency}
                required
              />
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

/** What agents' cancellation and refund requests do (lib/stores/agent-request-policy.ts). */
export function AgentRequestsForm({
  action,
  initial,
  currency,
  canEdit,
}: {
  action: Action;
  initial: { agentCancellations: string; agentRefundAuto: string; rememberAddresses: string };
  currency: string;
  canEdit: boolean;
}) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  const v = state.values ?? initial;
  return (
    <form action={formAction} className="grid gap-4" noValidate aria-label="Requests from agents">
      <FormError message={state.errors.form} />
      {state.ok && state.message ? <Notice>{state.message}</Notice> : null}
      <fieldset disabled={!canEdit} className="grid gap-4 sm:grid-cols-2">
        <Field
          id="agent-cancellations"
          label="Cancellation before shipping"
          hint="Once anything has shipped, an agent can only ask for a refund"
          error={state.errors.agentCancellations}
        >
          {(control) => (
            <NativeSelect {...control} name="agentCancellations" defaultValue={v.agentCancellations}>
              <option value="automatic">Cancel at once and refund</option>
              <option value="review">Wait for my approval</option>
            </NativeSelect>
          )}
        </Field>
        <Field
          id="agent-refund-auto"
          label={`Refund at once up to (${currency})`}
          hint="Larger refund requests wait for your approval; 0: every one waits"
          error={state.errors.agentRefundAuto}
        >
          {(control) => (
            <Input {...control} name="agentRefundAuto" defaultValue={v.agentRefundAuto} inputMode="decimal" />
          )}
        </Field>
        <Field
          id="remember-addresses"
          label="Addresses agents send"
          hint="Kept per buyer e-mail and offered back only to the agent that sent them. Turning this off forgets them"
          error={state.errors.rememberAddresses}
        >
          {(control) => (
            <NativeSelect {...control} name="rememberAddresses" defaultValue={v.rememberAddresses}>
              <option value="off">Keep none</option>
              <option value="on">Keep and offer them back</option>
            </NativeSelect>
          )}
        </Field>
      </fieldset>
      {canEdit ? (
        <Button type="submit" disabled={pending} className="justify-self-start">
          {pending ? "Saving…" : "Save"}
        </Button>
      ) : null}
    </form>
  );
}

export function ForgetAddressesForm({ action }: { action: Action }) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  const v = state.ok ? {} : (state.values ?? {});
  return (
    <form
      action={formAction}
      className="grid gap-4"
      noValidate
      aria-label="Forget a buyer's addresses"
      key={state.ok ? state.message : "form"}
    >
      <FormError message={state.errors.form} />
      {state.ok && state.message ? <Notice>{state.message}</Notice> : null}
      <Field
        id="forget-email"
        label="Buyer's e-mail"
        hint="Deletes every address agents saved for this buyer here"
        error={state.errors.email}
      >
        {(control) => (
          <Input {...control} name="email" type="email" autoComplete="off" defaultValue={v.email ?? ""} />
        )}
      </Field>
      <Button type="submit" variant="outline" disabled={pending} className="justify-self-start">
        {pending ? "Forgetting…" : "Forget their addresses"}
      </Button>
    </form>
  );
}

export function ShippingRateForm({
  action,
  currency,
  countries,
}: {
  action: Action;
  currency: string;
  countries: readonly CountryOption[];
}) {
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
        <Field id="rate-country" label="Country" error={state.errors.country}>
          {(control) => (
            <CountrySelect
              {...control}
              options={countries}
              anywhere
              placeholder="Choose a country"
              name="country"
              defaultValue={v.country ?? ""}
            />
          )}
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
        <Field
          id="rate-free-tag"
          label="Free for tag (optional)"
          hint="Free when every item is a product with this tag"
          error={state.errors.freeForTag}
        >
          {(control) => (
            <Input {...control} name="freeForTag" defaultValue={v.freeForTag ?? ""} maxLength={200} />
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

export function LocationForm({
  action,
  countries,
  country,
}: {
  action: Action;
  countries: readonly CountryOption[];
  /** The store's country, the likeliest one for its locations. */
  country: string;
}) {
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
        <Field id="loc-country" label="Country" error={state.errors.country}>
          {(control) => (
            <CountrySelect
              {...control}
              options={countries}
              name="country"
              defaultValue={v.country ?? country}
            />
          )}
        </Field>
      </div>
      <PositionField error={state.errors.position} initial={v.position ?? ""} />
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

/**
 * Where the location is on the map, as "latitude, longitude": agents search locations nearest first, so it is
 * needed. There is no geocoding (the service may run without internet): the merchant pastes the pair a map app
 * copies, or lets this device say where it is (standing in the shop). The server checks the numbers.
 */
function PositionField({ error, initial }: { error?: string; initial: string }) {
  const [position, setPosition] = useState(initial);
  const [status, setStatus] = useState<string | null>(null);
  const locate = () => {
    if (!("geolocation" in navigator)) {
      setStatus("This browser cannot tell its location: paste the position from a map app.");
      return;
    }
    setStatus("Asking this device where it is…");
    navigator.geolocation.getCurrentPosition(
      ({ coords }) => {
        setPosition(`${coords.latitude.toFixed(6)}, ${coords.longitude.toFixed(6)}`);
        setStatus(`Filled in from this device (within about ${Math.round(coords.accuracy)} m).`);
      },
      () => setStatus("The device did not say where it is: paste the position from a map app."),
      { enableHighAccuracy: true, timeout: 15_000 },
    );
  };
  return (
    <div className="grid gap-2">
      <Field
        id="loc-position"
        label="Position (latitude, longitude)"
        hint="In a map app, right-click or long-press the shop and copy its coordinates, e.g. 37.7749, -122.4194"
        error={error}
      >
        {(control) => (
          <Input
            {...control}
            name="position"
            value={position}
            onChange={(event) => setPosition(event.target.value)}
            inputMode="decimal"
            autoComplete="off"
            placeholder="37.7749, -122.4194"
            maxLength={100}
          />
        )}
      </Field>
      <div className="flex flex-wrap items-center gap-3">
        <Button type="button" variant="outline" size="sm" onClick={locate}>
          <LocateFixed aria-hidden /> Use this device&apos;s location
        </Button>
        <p role="status" className="text-muted-foreground text-xs">
          {status}
        </p>
      </div>
    </div>
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
