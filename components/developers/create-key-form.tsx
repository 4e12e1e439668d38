"use client";

import { Check, Copy, KeyRound } from "lucide-react";
import { useActionState, useState } from "react";

import type { CreatedKeyState } from "@/app/developers/actions";
import { FormError } from "@/components/admin/form-messages";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";

// Creates a platform key and shows it once, with a copy button: only its hash is kept, so this is the only time
// anyone sees it.

const PERMISSIONS = [
  { value: "purchase:complete", label: "purchase:complete", hint: "complete checkouts (card payments)" },
  { value: "orders:read", label: "orders:read", hint: "read the orders your agent placed" },
] as const;

const EMPTY: CreatedKeyState = { ok: false, errors: {} };

export function CreateKeyForm({
  action,
}: {
  action: (s: CreatedKeyState, d: FormData) => Promise<CreatedKeyState>;
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
              data-testid="new-key"
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
        <Field
          id="key-name"
          label="Key name"
          hint="The agent or environment that uses it."
          error={state.errors.name}
        >
          {(control) => (
            <Input {...control} name="name" defaultValue={state.values?.name} maxLength={100} required />
          )}
        </Field>
        <fieldset className="grid gap-2">
          <legend className="mb-1 text-sm font-medium">Permissions</legend>
          {PERMISSIONS.map((p) => (
            <label key={p.value} className="flex items-start gap-2 text-sm">
              <input
                type="checkbox"
                name="permissions"
                value={p.value}
                defaultChecked
                className="mt-1 size-4"
              />
              <span>
                <code className="text-xs">{p.label}</code> — {p.hint}
              </span>
            </label>
          ))}
        </fieldset>
        <Button type="submit" disabled={pending} className="justify-self-start">
          <KeyRound aria-hidden />
          {pending ? "Creating…" : "Create key"}
        </Button>
      </form>
    </div>
  );
}
