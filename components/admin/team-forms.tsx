"use client";

import { useActionState } from "react";

import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/select";

import { FormError, Notice } from "./form-messages";
import type { FormState } from "./form-state";

type Action = (state: FormState, data: FormData) => Promise<FormState>;

const EMPTY: FormState = { ok: false, errors: {} };

/** An owner invites an email address to the team, as owner or staff; the link goes out by mail. */
export function InviteMemberForm({ action }: { action: Action }) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  return (
    <form action={formAction} className="grid gap-4" noValidate>
      <FormError message={state.errors.form} />
      {state.ok && state.message ? <Notice>{state.message}</Notice> : null}
      <div className="grid items-start gap-4 sm:grid-cols-[1fr_10rem]">
        <Field
          id="member-email"
          label="Email address"
          hint="They accept the mailed link with a verified account of this address."
          error={state.errors.email}
        >
          {(control) => (
            <Input
              {...control}
              name="email"
              type="email"
              autoComplete="off"
              defaultValue={state.ok ? "" : state.values?.email}
              required
            />
          )}
        </Field>
        <Field id="member-role" label="Role" error={state.errors.role}>
          {(control) => (
            <NativeSelect {...control} name="role" defaultValue={state.values?.role ?? "staff"}>
              <option value="staff">Staff</option>
              <option value="owner">Owner</option>
            </NativeSelect>
          )}
        </Field>
      </div>
      <Button type="submit" disabled={pending} className="justify-self-start">
        {pending ? "Sending…" : "Send invitation"}
      </Button>
    </form>
  );
}

/** Removes one member; a refusal (the last owner) is said beside the button. */
export function RemoveMemberForm({
  action,
  accountId,
  name,
}: {
  action: Action;
  accountId: string;
  name: string;
}) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  return (
    <form action={formAction} className="grid justify-items-end gap-1">
      <input type="hidden" name="account_id" value={accountId} />
      <Button type="submit" variant="outline" size="sm" disabled={pending} aria-label={`Remove ${name}`}>
        Remove
      </Button>
      {state.errors.form ? (
        <p role="alert" className="text-destructive max-w-56 text-right text-xs">
          {state.errors.form}
        </p>
      ) : null}
    </form>
  );
}

/** Withdraws an open invitation: its link stops working. */
export function RevokeInvitationForm({
  action,
  invitationId,
  email,
}: {
  action: Action;
  invitationId: string;
  email: string;
}) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  return (
    <form action={formAction} className="grid justify-items-end gap-1">
      <input type="hidden" name="invitation_id" value={invitationId} />
      <Button
        type="submit"
        variant="outline"
        size="sm"
        disabled={pending}
        aria-label={`Withdraw the invitation of ${email}`}
      >
        Withdraw
      </Button>
      {state.errors.form ? (
        <p role="alert" className="text-destructive max-w-56 text-right text-xs">
          {state.errors.form}
        </p>
      ) : null}
    </form>
  );
}
