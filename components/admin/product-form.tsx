"use client";

import { ImageIcon, Plus, X } from "lucide-react";
import { useActionState, useId, useState } from "react";

import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";

import { FormError } from "./form-messages";
import type { FormState } from "./form-state";

// A product and its variants in one form. Prices are typed in the store's currency in major units ("12.50"); the
// server refuses more decimals than the currency has beside the price. Variant rows: an empty new row is ignored,
// an existing one can be marked for removal; "Add a variant" adds a row. Images and attributes are rows too
// (images.<n>.url, attributes.<n>.name…): an empty row is ignored, a row's remove button takes it out.

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
      </div>

      <ImageRows values={v} errors={e} />
      <AttributeRows values={v} errors={e} />

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

type Row = { key: number; [field: string]: string | number };

/** Rows of a list held in the browser, seeded from the form's values (<list>.<n>.<field>), at least one. */
function useRows(values: Record<string, string>, list: string, fields: readonly string[], max: number) {
  const [rows, setRows] = useState<Row[]>(() => {
    const count = Math.max(Number(values[`${list}Count`]) || 0, 1);
    return Array.from({ length: count }, (_, n) => ({
      key: n,
      ...Object.fromEntries(fields.map((f) => [f, values[`${list}.${n}.${f}`] ?? ""])),
    }));
  });
  const [next, setNext] = useState(rows.length);
  const blank = () => ({ key: next, ...Object.fromEntries(fields.map((f) => [f, ""])) });
  return {
    rows,
    add: () => {
      if (rows.length >= max) return;
      setRows([...rows, blank()]);
      setNext(next + 1);
    },
    remove: (key: number) => {
      const left = rows.filter((r) => r.key !== key);
      setRows(left.length > 0 ? left : [blank()]);
      setNext(next + 1);
    },
    set: (key: number, field: string, value: string) =>
      setRows(rows.map((r) => (r.key === key ? { ...r, [field]: value } : r))),
  };
}

/** An http(s) URL the browser can try to show; anything else gets no preview (the server says what is wrong). */
const previewable = (text: string) => {
  try {
    const url = new URL(text.trim());
    return url.protocol === "https:" || url.protocol === "http:";
  } catch {
    return false;
  }
};

function Preview({ url }: { url: string }) {
  const [failed, setFailed] = useState<string | null>(null);
  const show = previewable(url) && failed !== url;
  return (
    <div
      className="bg-muted text-muted-foreground flex size-16 shrink-0 items-center justify-center overflow-hidden rounded-md border"
      data-testid="image-preview"
    >
      {show ? (
        // eslint-disable-next-line @next/next/no-img-element -- the merchant's own image URL, shown as typed
        <img
          src={url.trim()}
          alt="Preview"
          referrerPolicy="no-referrer"
          className="size-full object-cover"
          onError={() => setFailed(url)}
        />
      ) : (
        <ImageIcon aria-hidden className="size-6" />
      )}
    </div>
  );
}

function RowError({ id, message }: { id: string; message?: string }) {
  return message ? (
    <p id={id} className="text-destructive text-sm font-medium">
      {message}
    </p>
  ) : null;
}

function ImageRows({ values, errors }: { values: Record<string, string>; errors: Record<string, string> }) {
  const { rows, add, remove, set } = useRows(values, "images", ["url", "alt"], 20);
  const base = useId();
  return (
    <fieldset className="grid gap-3">
      <legend className="mb-1 text-lg font-semibold">Images</legend>
      <p className="text-muted-foreground text-sm">
        https:// URLs of your images; buyers&apos; clients load them from there. The first is the main image.
      </p>
      <input type="hidden" name="imagesCount" value={rows.length} />
      <RowError id={`${base}-list`} message={errors.images} />
      <ol className="grid gap-3">
        {rows.map((row, n) => {
          const urlError = errors[`images.${n}.url`];
          const altError = errors[`images.${n}.alt`];
          return (
            <li key={row.key} className="flex items-start gap-3 rounded-lg border p-3">
              <Preview url={String(row.url)} />
              <div className="grid min-w-0 flex-1 gap-3 sm:grid-cols-2">
                <Field id={`image-${n}-url`} label={`Image ${n + 1} URL`} error={urlError}>
                  {(c) => (
                    <Input
                      {...c}
                      name={`images.${n}.url`}
                      value={String(row.url)}
                      onChange={(ev) => set(row.key, "url", ev.target.value)}
                      inputMode="url"
                      autoCapitalize="none"
                      placeholder="https://…"
                      maxLength={2000}
                    />
                  )}
                </Field>
                <Field
                  id={`image-${n}-alt`}
                  label={
                    <>
                      <span className="sr-only">{`Image ${n + 1} `}</span>Alt text (optional)
                    </>
                  }
                  error={altError}
                >
                  {(c) => (
                    <Input
                      {...c}
                      name={`images.${n}.alt`}
                      value={String(row.alt)}
                      onChange={(ev) => set(row.key, "alt", ev.target.value)}
                      maxLength={300}
                    />
                  )}
                </Field>
              </div>
              <Button
                type="button"
                variant="ghost"
                size="icon"
                aria-label={`Remove image ${n + 1}`}
                onClick={() => remove(row.key)}
                className="mt-6"
              >
                <X aria-hidden />
              </Button>
            </li>
          );
        })}
      </ol>
      <Button type="button" variant="outline" className="justify-self-start" onClick={add}>
        <Plus aria-hidden /> Add an image
      </Button>
    </fieldset>
  );
}

function AttributeRows({
  values,
  errors,
}: {
  values: Record<string, string>;
  errors: Record<string, string>;
}) {
  const { rows, add, remove, set } = useRows(values, "attributes", ["name", "value"], 50);
  const base = useId();
  return (
    <fieldset className="grid gap-3">
      <legend className="mb-1 text-lg font-semibold">Attributes</legend>
      <p className="text-muted-foreground text-sm">Facts agents can filter on, e.g. material: leather.</p>
      <input type="hidden" name="attributesCount" value={rows.length} />
      <RowError id={`${base}-list`} message={errors.attributes} />
      <ol className="grid gap-3">
        {rows.map((row, n) => (
          <li key={row.key} className="flex items-start gap-3">
            <div className="grid min-w-0 flex-1 gap-3 sm:grid-cols-2">
              <Field
                id={`attribute-${n}-name`}
                label={`Attribute ${n + 1} name`}
                error={errors[`attributes.${n}.name`]}
              >
                {(c) => (
                  <Input
                    {...c}
                    name={`attributes.${n}.name`}
                    value={String(row.name)}
                    onChange={(ev) => set(row.key, "name", ev.target.value)}
                    placeholder="material"
                    maxLength={100}
                  />
                )}
              </Field>
              <Field
                id={`attribute-${n}-value`}
                label={
                  <>
                    <span className="sr-only">{`Attribute ${n + 1} `}</span>Value
                  </>
                }
                error={errors[`attributes.${n}.value`]}
              >
                {(c) => (
                  <Input
                    {...c}
                    name={`attributes.${n}.value`}
                    value={String(row.value)}
                    onChange={(ev) => set(row.key, "value", ev.target.value)}
                    placeholder="leather"
                    maxLength={500}
                  />
                )}
              </Field>
            </div>
            <Button
              type="button"
              variant="ghost"
              size="icon"
              aria-label={`Remove attribute ${n + 1}`}
              onClick={() => remove(row.key)}
              className="mt-6"
            >
              <X aria-hidden />
            </Button>
          </li>
        ))}
      </ol>
      <Button type="button" variant="outline" className="justify-self-start" onClick={add}>
        <Plus aria-hidden /> Add an attribute
      </Button>
    </fieldset>
  );
}
