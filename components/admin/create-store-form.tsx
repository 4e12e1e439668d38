"use client";

import { useActionState, useState } from "react";

import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { currencyDigits, minorToDecimal } from "@/components/ui/format";
import { Input } from "@/components/ui/input";
import type { CountryOption } from "@/lib/checkout/countries";

import { CountrySelect } from "./country-select";
import { CurrencySelect, type CurrencyOptions } from "./currency-select";
import { FormError } from "./form-messages";
import type { FormState } from "./form-state";

const EMPTY: FormState = { ok: false, errors: {} };

/** The prefilled flat rate: 5 in the currency's major unit, written with its decimals ("5.00", "5" for JPY, "5.000" for KWD). */
const suggestedRate = (currency: string): string => {
  try {
    const digits = currencyDigits(currency.trim().toUpperCase());
    return minorToDecimal(5 * 10 ** digits, digits);
  } catch {
    // not a currency (yet): the server says so beside the currency field
    return "5.00";
  }
};

const choiceClass =
  "has-[:checked]:border-primary has-[:checked]:bg-accent flex cursor-pointer items-start gap-3 rounded-lg border p-3 text-sm";

export function CreateStoreForm({
  action,
  currencies,
  countries,
}: {
  action: (s: FormState, d: FormData) => Promise<FormState>;
  currencies: CurrencyOptions;
  countries: readonly CountryOption[];
}) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  const [currency, setCurrency] = useState(state.values?.currency ?? "USD");
  const [shipping, setShipping] = useState(state.values?.shipping || "flat");
  // the rate follows the currency until the merchant types one
  const [rate, setRate] = useState<string | null>(state.values?.shippingRate ?? null);
  // and the countries it ships to follow the store's country until the merchant types them
  const [country, setCountry] = useState(state.values?.country ?? "US");
  const [shipsTo, setShipsTo] = useState<string | null>(state.values?.shipsTo ?? null);
  const later = shipping === "later";
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
        <Field id="store-currency" label="Currency" error={state.errors.currency}>
          {(control) => (
            <CurrencySelect
              {...control}
              options={currencies}
              name="currency"
              value={currency}
              onChange={(e) => setCurrency(e.target.value)}
              required
            />
          )}
        </Field>
        <Field
          id="store-country"
          label="Country"
          hint="Where the store is based"
          error={state.errors.country}
        >
          {(control) => (
            <CountrySelect
              {...control}
              options={countries}
              name="country"
              value={country}
              onChange={(e) => setCountry(e.target.value)}
              required
            />
          )}
        </Field>
      </div>
      <fieldset
        className="grid gap-3"
        aria-describedby={state.errors.shipping ? "shipping-error" : undefined}
      >
        <legend className="mb-1 text-sm font-medium">Shipping</legend>
        <p className="text-muted-foreground -mt-1 text-xs">
          Agents can buy only where the store ships. Add other rates later in Settings.
        </p>
        <label className={choiceClass}>
          <input
            type="radio"
            name="shipping"
            value="flat"
            checked={!later}
            onChange={() => setShipping("flat")}
            className="accent-primary mt-0.5 size-4"
          />
          <span>One flat rate to the countries below</span>
        </label>
        <div className="grid gap-4 sm:grid-cols-2">
          <Field
            id="store-ships-to"
            label="Ships to"
            hint="Two-letter country codes, separated by commas"
            error={state.errors.shipsTo}
          >
            {(control) => (
              <Input
                {...control}
                name="shipsTo"
                value={shipsTo ?? country}
                onChange={(e) => setShipsTo(e.target.value)}
                autoCapitalize="characters"
                disabled={later}
                required={!later}
              />
            )}
          </Field>
          <Field
            id="store-shipping-rate"
            label="Flat shipping rate"
            hint={`Per order, in ${currency.trim().toUpperCase() || "the store's currency"}; 0 for free shipping`}
            error={state.errors.shippingRate}
          >
            {(control) => (
              <Input
                {...control}
                name="shippingRate"
                inputMode="decimal"
                value={rate ?? suggestedRate(currency)}
                onChange={(e) => setRate(e.target.value)}
                disabled={later}
                required={!later}
              />
            )}
          </Field>
        </div>
        <label className={choiceClass}>
          <input
            type="radio"
            name="shipping"
            value="later"
            checked={later}
            onChange={() => setShipping("later")}
            className="accent-primary mt-0.5 size-4"
          />
          <span>
            Not shipping yet
            <span className="text-muted-foreground block text-xs">
              Agents cannot buy until you add a shipping rate in Settings.
            </span>
          </span>
        </label>
        {state.errors.shipping ? (
          <p id="shipping-error" className="text-destructive text-sm font-medium">
            {state.errors.shipping}
          </p>
        ) : null}
      </fieldset>
      <Button type="submit" disabled={pending} className="justify-self-start">
        {pending ? "Creating…" : "Create store"}
      </Button>
    </form>
  );
}
