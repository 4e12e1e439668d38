"use client";

import { KeyRound } from "lucide-react";
import { useActionState, useState } from "react";

import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";

import { FormError } from "./form-messages";
import type { FormState } from "./form-state";

// Creates a key (a developer's platform key, a store's merchant key) and shows it once, with a copy button: only
// its hash is kept, so this is the only time anyone sees it. Least privilege: no permission starts ticked, each
// says in plain words what it allows, and the person ticks what the key's user needs (the server checks the set).

export type CreatedKeyState = FormState & { key?: string; name?: string };
const EMPTY: CreatedKeyState = { ok: false, errors: {} };

export function KeyForm({
  action,
  permissions,
  id,
  nameHint,
  withoutPermissions,
  submitLabel,
}: {
  action: (s: CreatedKeyState, d: FormData) => Promise<CreatedKeyState>;
  /** Offered as checkboxes, none ticked: the permission and what it allows, in plain words. */
  permissions: readonly { value: string; label: string }[];
  /** What a key can do with no permission ticked (or that it needs one), under the permissions' legend. */
  withoutPermissions: string;
  /** Prefix of the form's element ids (and the test id of the new key). */
  id: string;
  nameHint: string;
  submitLabel: string;
}) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  // controlled: the ticks survive a refused submission (React resets an uncontrolled form after its action)
  const [ticked, setTicked] = useState<ReadonlySet<string>>(new Set());
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
            <CopyButton value={state.key} what={`the key “${state.name}”`} variant="outline" />
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
          aria-describedby={[`${id}-perm-hint`, state.errors.permissions ? `${id}-perm-error` : null]
            .filter(Boolean)
            .join(" ")}
        >
          <legend className="mb-1 text-sm font-medium">Permissions</legend>
          <p id={`${id}-perm-hint`} className="text-muted-foreground text-sm">
            Tick only what it needs. {withoutPermissions}
          </p>
          {permissions.map((p) => (
            <label key={p.value} className="flex items-start gap-2 text-sm">
              <input
                type="checkbox"
                name="permissions"
                value={p.value}
                checked={ticked.has(p.value)}
                onChange={(e) => {
                  const next = new Set(ticked);
                  if (e.target.checked) next.add(p.value);
                  else next.delete(p.value);
                  setTicked(next);
                }}
                className="mt-1 size-4 shrink-0"
              />
              <span className="grid min-w-0">
                <span>{p.label}</span>
                <code className="text-muted-foreground text-xs">{p.value}</code>
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
