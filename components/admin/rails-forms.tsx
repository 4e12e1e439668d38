"use client";

import { ArrowDown, ArrowUp } from "lucide-react";
import { useActionState, useState } from "react";

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

type LiveNetwork = "mainnet" | "testnet";
/** A coin of our table as the form offers it. */
export type CoinOption = { symbol: string; kind: "stable" | "native" };

export function CryptoSettingsForm({
  action,
  enabled,
  coins,
  coinsByNetwork,
  payoutAddress,
  network,
}: {
  action: Action;
  enabled: boolean;
  /** The accepted coins' symbols in the store's order of preference. */
  coins: string[];
  /** Our coin table per live network (SUI.md §1): the only coins a store can accept there. */
  coinsByNetwork: Record<LiveNetwork, CoinOption[]>;
  payoutAddress: string | null;
  network: LiveNetwork;
}) {
  const [state, formAction, pending] = useActionState(action, EMPTY);
  const [chosen, setNetwork] = useState<LiveNetwork | null>(null);
  const sent = state.values?.network;
  const chosenNetwork: LiveNetwork = chosen ?? (sent === "mainnet" || sent === "testnet" ? sent : network);
  return (
    <form action={formAction} className="grid gap-4" noValidate>
      <FormError message={state.errors.form ?? state.errors.enabled} />
      {state.ok && state.message ? <Notice>{state.message}</Notice> : null}
      <label className="flex items-center gap-2 text-sm font-medium">
        <input
          type="checkbox"
          name="enabled"
          defaultChecked={state.values ? state.values.enabled === "on" : enabled}
          className="size-4"
        />
        Accept crypto payments
      </label>
      <CoinChoice
        coinsByNetwork={coinsByNetwork}
        network={chosenNetwork}
        accepted={state.values?.accepted_coins?.split(",").filter(Boolean) ?? coins}
        error={state.errors.accepted_coins}
      />
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
          <NativeSelect
            {...control}
            name="network"
            value={chosenNetwork}
            onChange={(event) => setNetwork(event.target.value as LiveNetwork)}
          >
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

/**
 * The accepted coins as checkboxes of our coin table on the chosen network, in the store's order of preference
 * (checked coins first); the arrows move a coin up or down that order. The form sends the checked symbols in
 * that order as repeated accepted_coins fields; the server resolves each through the same table.
 */
function CoinChoice({
  coinsByNetwork,
  network,
  accepted,
  error,
}: {
  coinsByNetwork: Record<LiveNetwork, CoinOption[]>;
  network: LiveNetwork;
  accepted: string[];
  error?: string;
}) {
  const all = [
    ...new Map([...coinsByNetwork.mainnet, ...coinsByNetwork.testnet].map((c) => [c.symbol, c])).values(),
  ];
  const rank = (symbol: string) => accepted.findIndex((a) => a.toUpperCase() === symbol.toUpperCase());
  const isAccepted = (symbol: string) => accepted.some((a) => a.toUpperCase() === symbol.toUpperCase());
  const [order, setOrder] = useState<string[]>(() => [
    ...all
      .filter((c) => isAccepted(c.symbol))
      .sort((a, b) => rank(a.symbol) - rank(b.symbol))
      .map((c) => c.symbol),
    ...all.filter((c) => !isAccepted(c.symbol)).map((c) => c.symbol),
  ]);
  const [checked, setChecked] = useState<Set<string>>(
    () => new Set(all.filter((c) => isAccepted(c.symbol)).map((c) => c.symbol)),
  );
  const offered = new Set(coinsByNetwork[network].map((c) => c.symbol));
  const shown = order.filter((symbol) => offered.has(symbol));
  const kindOf = new Map(all.map((c) => [c.symbol, c.kind]));
  const move = (symbol: string, by: -1 | 1) => {
    const at = shown.indexOf(symbol);
    const other = shown[at + by];
    if (other === undefined) return;
    const next = [...order];
    const i = next.indexOf(symbol);
    const j = next.indexOf(other);
    [next[i], next[j]] = [other, symbol];
    setOrder(next);
  };
  const errorId = error ? "crypto-coins-error" : undefined;
  return (
    <fieldset
      className="grid gap-2"
      aria-describedby={errorId ? `crypto-coins-hint ${errorId}` : "crypto-coins-hint"}
    >
      <legend className="text-sm font-medium">Accepted coins, in order of preference</legend>
      <p id="crypto-coins-hint" className="text-muted-foreground text-xs">
        Agents paying &ldquo;auto&rdquo; use the stablecoins first, in this order, then SUI.
      </p>
      <ul className="grid gap-1">
        {shown.map((symbol, n) => (
          <li key={symbol} className="flex items-center gap-2 rounded-md border px-3 py-1.5">
            <label className="flex min-w-0 flex-1 flex-wrap items-center gap-x-2 text-sm">
              <input
                type="checkbox"
                name="accepted_coins"
                value={symbol}
                checked={checked.has(symbol)}
                onChange={(event) => {
                  const next = new Set(checked);
                  if (event.target.checked) next.add(symbol);
                  else next.delete(symbol);
                  setChecked(next);
                }}
                className="size-4"
                aria-describedby={`coin-${symbol}-kind`}
                {...(error ? { "aria-invalid": true } : {})}
              />
              <span className="font-medium">{symbol}</span>
            </label>
            <span id={`coin-${symbol}-kind`} className="text-muted-foreground hidden text-xs sm:inline">
              {kindOf.get(symbol) === "native" ? "Sui's own coin" : "USD stablecoin"}
            </span>
            <Button
              type="button"
              variant="ghost"
              size="icon"
              className="size-8"
              aria-label={`Move ${symbol} up`}
              disabled={n === 0}
              onClick={() => move(symbol, -1)}
            >
              <ArrowUp aria-hidden />
            </Button>
            <Button
              type="button"
              variant="ghost"
              size="icon"
              className="size-8"
              aria-label={`Move ${symbol} down`}
              disabled={n === shown.length - 1}
              onClick={() => move(symbol, 1)}
            >
              <ArrowDown aria-hidden />
            </Button>
          </li>
        ))}
      </ul>
      {error ? (
        <p id={errorId} className="text-destructive text-sm font-medium">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
