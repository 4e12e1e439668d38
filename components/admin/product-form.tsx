"use client";

import { useActionState, useState } from "react";

import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";

import { FormError } from "./form-messages";
import type { FormState } from "./form-state";

// A product and its variants in one form. Prices are typed in the store's currency in major units ("12.50"); the
// server refuses more decimals than the currency has beside the price. Variant rows: an empty new row is ignored,
// an existing one can be marked for removal; "Add a variant" adds a row.

type Action = (state: FormState, data: FormData) => Promise<FormState>;
const EMPTY: FormState = { ok: false, errors: {} };
type VariantField = "id" | "title" | "sku" | "price" | "listPrice" | "inventory";

export function ProductForm({
  action,
  currency,
  initial,
  submitLabel,
}: {
  action: Action;
  currency: string;
  /** The form's fields by name (variants.<n>.<field> for variant rows), as text. */
  initial: Record<string, string>;
  submitLabel: string;
}) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  const v = state.values ?? initial;
  const [rows, setRows] = useState(Math.max(Number(v.variantCount) || 1, 1));
  const e = state.errors;
  const textarea = "border-input bg-background min-h-20 w-full rounded-md border px-3 py-2 text-sm";
  return (
    <form action={formAction} className="grid gap-6" noValidate>
      <FormError
        message={
          e.form ??
          (Object.keys(e).length > 0 ? "Some fields need a change: see the messages below." : undefined)
        }
      />
      <div className="grid gap-4 sm:grid-cols-2">
        <Field id="product-title" label="Title" error={e.title}>
          {(c) => <Input {...c} name="title" defaultValue={v.title} maxLength={200} required />}
        </Field>
        <Field id="product-handle" label="Handle" hint="Made from the title when left empty" error={e.handle}>
          {(c) => (
            <Input {...c} name="handle" defaultValue={v.handle} maxLength={100} autoCapitalize="none" />
          )}
        </Field>
      </div>
      <Field id="product-description" label="Description" error={e.description}>
        {(c) => <textarea {...c} name="description" defaultValue={v.description} className={textarea} />}
      </Field>
      <div className="grid gap-4 sm:grid-cols-2">
        <Field
          id="product-categories"
          label="Categories"
          hint="One per line, e.g. Home > Lighting"
          error={e.categories}
        >
          {(c) => <textarea {...c} name="categories" defaultValue={v.categories} className={textarea} />}
        </Field>
        <Field id="product-tags" label="Tags" hint="Separated by commas" error={e.tags}>
          {(c) => <Input {...c} name="tags" defaultValue={v.tags} />}
        </Field>
        <Field
          id="product-attributes"
          label="Attributes"
          hint="One per line as name=value, e.g. material=leather"
          error={e.attributes}
        >
          {(c) => <textarea {...c} name="attributes" defaultValue={v.attributes} className={textarea} />}
        </Field>
        <Field
          id="product-images"
          label="Image URLs"
          hint="One https:// URL per line; buyers' clients load them from there"
          error={e.images}
        >
          {(c) => <textarea {...c} name="images" defaultValue={v.images} className={textarea} />}
        </Field>
      </div>

      <fieldset className="grid gap-4">
        <legend className="mb-2 text-lg font-semibold">Variants</legend>
        <input type="hidden" name="variantCount" value={rows} />
        {e.variants ? <p className="text-destructive text-sm font-medium">{e.variants}</p> : null}
        {Array.from({ length: rows }, (_, n) => {
          const name = (f: VariantField) => `variants.${n}.${f}`;
          const id = v[name("id")];
          return (
            <div key={n} className="grid gap-3 rounded-lg border p-3 sm:grid-cols-5">
              <input type="hidden" name={name("id")} value={id ?? ""} />
              <Field id={`variant-${n}-title`} label={`Variant ${n + 1} name`} error={e[name("title")]}>
                {(c) => (
                  <Input
                    {...c}
                    name={name("title")}
                    defaultValue={v[name("title")] ?? (n === 0 ? "Default" : "")}
                  />
                )}
              </Field>
              <Field
                id={`variant-${n}-sku`}
                label={
                  <>
                    <span className="sr-only">{`Variant ${n + 1} `}</span>SKU
                  </>
                }
                error={e[name("sku")]}
              >
                {(c) => <Input {...c} name={name("sku")} defaultValue={v[name("sku")]} />}
              </Field>
              <Field
                id={`variant-${n}-price`}
                label={
                  <>
                    <span className="sr-only">{`Variant ${n + 1} `}</span>
                    {`Price (${currency})`}
                  </>
                }
                error={e[name("price")]}
              >
                {(c) => (
                  <Input {...c} name={name("price")} defaultValue={v[name("price")]} inputMode="decimal" />
                )}
              </Field>
              <Field
                id={`variant-${n}-list`}
                label={
                  <>
                    <span className="sr-only">{`Variant ${n + 1} `}</span>Compare-at price
                  </>
                }
                error={e[name("listPrice")]}
              >
                {(c) => (
                  <Input
                    {...c}
                    name={name("listPrice")}
                    defaultValue={v[name("listPrice")]}
                    inputMode="decimal"
                  />
                )}
              </Field>
              <Field
                id={`variant-${n}-inventory`}
                label={
                  <>
                    <span className="sr-only">{`Variant ${n + 1} `}</span>Inventory
                  </>
                }
                error={e[name("inventory")]}
              >
                {(c) => (
                  <Input
                    {...c}
                    name={name("inventory")}
                    defaultValue={v[name("inventory")] ?? "0"}
                    inputMode="numeric"
                  />
                )}
              </Field>
              {id ? (
                <label className="flex items-center gap-2 text-sm sm:col-span-5">
                  <input
                    type="checkbox"
                    name={`variants.${n}.remove`}
                    defaultChecked={v[`variants.${n}.remove`] === "on"}
                    className="size-4"
                  />
                  Remove this variant
                </label>
              ) : null}
            </div>
          );
        })}
        <Button
          type="button"
          variant="outline"
          className="justify-self-start"
          onClick={() => setRows((r) => Math.min(r + 1, 100))}
        >
          Add a variant
        </Button>
      </fieldset>
      <Button type="submit" disabled={pending} className="justify-self-start">
        {pending ? "Saving…" : submitLabel}
      </Button>
    </form>
  );
}

export function DeleteProductButton({ action }: { action: (state: FormState) => Promise<FormState> }) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  return (
    <form action={formAction} className="grid gap-1">
      <Button type="submit" variant="destructive" disabled={pending} className="justify-self-start">
        {pending ? "Deleting…" : "Delete product"}
      </Button>
      <FormError message={state.errors.form ?? state.errors.productId} />
    </form>
  );
}
