"use client";

import { useActionState } from "react";

import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { NativeSelect } from "@/components/ui/select";

import { FormError, Notice } from "./form-messages";
import type { FormState } from "./form-state";

// The payments page's forms (owner only; the page shows staff the settings read-only). Each posts to its server
// action and shows the refusal beside its field.

type Action = (s: FormState, d: FormData) => Promise<FormState>;
const EMPTY: FormState = { ok: false, errors: {} };

export function StripeKeysForm({
  action,
  secretLast4,
  webhookLast4,
  publishableKey,
}: {
  action: Action;
  secretLast4: string | null;
  webhookLast4: string | null;
  publishableKey: string | null;
}) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  const stored = (last4: string | null) =>
    last4 ? `Stored, ending in ${last4}. Leave blank to keep it.` : "Not set.";
  return (
    <form action={formAction} className="grid gap-4" noValidate>
      <FormError message={state.errors.form} />
      {state.ok && state.message ? <Notice>{state.message}</Notice> : null}
      <Field
        id="stripe-secret"
        label="Secret key (live)"
        hint={<span data-testid="stripe-secret-hint">{stored(secretLast4)}</span>}
        error={state.errors.secret_key}
      >
        {(control) => (
          <Input {...control} name="secret_key" type="password" autoComplete="off" placeholder="sk_live_…" />
        )}
      </Field>
      <Field
        id="stripe-publishable"
        label="Publishable key (live)"
        hint="Public: Stripe.js uses it on the hosted payment page."
        error={state.errors.publishable_key}
      >
        {(control) => (
          <Input
            {...control}
            name="publishable_key"
            autoComplete="off"
            placeholder="pk_live_…"
            defaultValue={state.values?.publishable_key ?? publishableKey ?? ""}
          />
        )}
      </Field>
      <Field
        id="stripe-webhook"
        label="Webhook signing secret"
        hint={stored(webhookLast4)}
        error={state.errors.webhook_secret}
      >
        {(control) => (
          <Input
            {...control}
            name="webhook_secret"
            type="password"
            autoComplete="off"
            placeholder="whsec_…"
          />
        )}
      </Field>
      <Button type="submit" disabled={pending} className="justify-self-start">
        {pending ? "Saving…" : "Save Stripe keys"}
      </Button>
    </form>
  );
}

export function CryptoSettingsForm({
  action,
  enabled,
  coins,
  payoutAddress,
  network,
}: {
  action: Action;
  enabled: boolean;
  coins: string[];
  payoutAddress: string | null;
  network: string;
}) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  return (
    <form action={formAction} className="grid gap-4" noValidate>
      <FormError message={state.errors.form ?? state.errors.enabled} />
      {state.ok && state.message ? <Notice>{state.message}</Notice> : null}
      <label className="flex items-center gap-2 text-sm font-medium">
        <input type="checkbox" name="enabled" defaultChecked={enabled} className="size-4" />
        Accept crypto payments
      </label>
      <Field
        id="crypto-coins"
        label="Accepted coins, in order of preference"
        hint="Symbols separated by commas, e.g. USDC, SUI."
        error={state.errors.accepted_coins}
      >
        {(control) => (
          <Input
            {...control}
            name="accepted_coins"
            defaultValue={state.values?.accepted_coins ?? coins.join(", ")}
          />
        )}
      </Field>
      <Field
        id="crypto-address"
        label="Payout address"
        hint="Your Sui address (0x + 64 hex characters)."
        error={state.errors.payout_address}
      >
        {(control) => (
          <Input
            {...control}
            name="payout_address"
            autoComplete="off"
            className="font-mono text-xs"
            defaultValue={state.values?.payout_address ?? payoutAddress ?? ""}
          />
        )}
      </Field>
      <Field
        id="crypto-network"
        label="Network when live"
        hint="Test mode always settles on the sandbox chain."
        error={state.errors.network}
      >
        {(control) => (
          <NativeSelect {...control} name="network" defaultValue={state.values?.network ?? network}>
            <option value="mainnet">Sui mainnet</option>
            <option value="testnet">Sui testnet</option>
          </NativeSelect>
        )}
      </Field>
      <Button type="submit" disabled={pending} className="justify-self-start">
        {pending ? "Saving…" : "Save crypto settings"}
      </Button>
    </form>
  );
}

export function CloseOwedBackForm({ action, id }: { action: Action; id: string }) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  return (
    <form action={formAction} className="grid gap-2" noValidate>
      <FormError message={state.errors.form} />
      {state.ok && state.message ? <Notice>{state.message}</Notice> : null}
      <input type="hidden" name="id" value={id} />
      <Field
        id={`digest-${id}`}
        label="Refund transaction digest"
        hint="The digest of the transaction that paid the buyer back."
        error={state.errors.refund_digest}
      >
        {(control) => (
          <Input
            {...control}
            name="refund_digest"
            autoComplete="off"
            className="font-mono text-xs"
            defaultValue={state.values?.refund_digest}
          />
        )}
      </Field>
      <Button type="submit" variant="outline" size="sm" disabled={pending} className="justify-self-start">
        {pending ? "Checking on the chain…" : "Close"}
      </Button>
    </form>
  );
}
