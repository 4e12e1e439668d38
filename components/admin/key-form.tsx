"use client";

import { Check, Copy, KeyRound } from "lucide-react";
import { useActionState, useState } from "react";

import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";

import { FormError } from "./form-messages";
import type { FormState } from "./form-state";

// Creates a key (a developer's platform key, a store's merchant key) and shows it once, with a copy button: only
// its hash is kept, so this is the only time anyone sees it.

export type CreatedKeyState = FormState & { key?: string; name?: string };
const EMPTY: CreatedKeyState = { ok: false, errors: {} };

export function KeyForm({
  action,
  permissions,
  id,
  nameHint,
  submitLabel,
}: {
  action: (s: CreatedKeyState, d: FormData) => Promise<CreatedKeyState>;
  /** Offered as checkboxes, all ticked: the permission and what it allows. */
  permissions: readonly { value: string; label: string }[];
  /** Prefix of the form's element ids (and the test id of the new key). */
  id: string;
  nameHint: string;
  submitLabel: string;
}) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  const [copied, setCopied] = useState(false);
  return (
    <div className="grid gap-4">
      {state.ok && state.key ? (
        <div
          role="status"
          className="border-success bg-success-soft grid gap-2 rounded-md border p-3 text-sm"
        >
          <p className="font-medium">Key “{state.name}” created. Copy it now: it is shown only this once.</p>
          <div className="flex items-center gap-2">
            <code
              data-testid={`new-${id}`}
              className="bg-background min-w-0 flex-1 rounded px-2 py-1 font-mono text-xs break-all"
            >
              {state.key}
            </code>
            <Button
              type="button"
              variant="outline"
              size="sm"
              onClick={async () => {
                await navigator.clipboard?.writeText(state.key ?? "").catch(() => undefined);
                setCopied(true);
              }}
            >
              {copied ? <Check aria-hidden /> : <Copy aria-hidden />}
              {copied ? "Copied" : "Copy"}
            </Button>
          </div>
        </div>
      ) : null}
      <form action={formAction} className="grid gap-4" noValidate>
        <FormError message={state.errors.form} />
        <Field id={`${id}-name`} label="Key name" hint={nameHint} error={state.errors.name}>
          {(control) => (
            <Input {...control} name="name" defaultValue={state.values?.name} maxLength={100} required />
          )}
        </Field>
        <fieldset
          className="grid gap-2"
          aria-describedby={state.errors.permissions ? `${id}-perm-error` : undefined}
        >
          <legend className="mb-1 text-sm font-medium">Permissions</legend>
          {permissions.map((p) => (
            <label key={p.value} className="flex items-start gap-2 text-sm">
              <input
                type="checkbox"
                name="permissions"
                value={p.value}
                defaultChecked
                className="mt-1 size-4"
              />
              <span>
                <code className="text-xs">{p.value}</code> — {p.label}
              </span>
            </label>
          ))}
          {state.errors.permissions ? (
            <p id={`${id}-perm-error`} className="text-destructive text-sm">
              {state.errors.permissions}
            </p>
          ) : null}
        </fieldset>
        <Button type="submit" disabled={pending} className="justify-self-start">
          <KeyRound aria-hidden />
          {pending ? "Creating…" : submitLabel}
        </Button>
      </form>
    </div>
  );
}
