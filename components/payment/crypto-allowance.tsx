"use client";

import { toBase64 } from "@mysten/sui/utils";
import { BadgeCheck, KeyRound } from "lucide-react";
import { useState } from "react";

import { formatMinor } from "@/components/cart/money";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { LocalTime } from "@/components/ui/local-time";
import { NativeSelect } from "@/components/ui/select";
import type { AllowanceSaved, WalletPageActions } from "@/lib/checkout/crypto/wallet-page";
import { intentSigningBytes, type IntentPayload } from "@/lib/mandates/intent-mandate";

import { signerFor } from "./crypto-signers";

// A simple spend allowance (AP2 intent mandate v2, DECISIONS B6) for the agent this checkout is bound to: a maximum
// per order in the store's currency, which stores, and how long. The buyer's wallet signs its JCS bytes as a
// personal message; the server checks and keeps it, and the agent fetches it (get_intent_mandate) to complete
// crypto checkouts over the API without sending the buyer here.

type Props = {
  actions: Pick<WalletPageActions, "saveAllowance">;
  slug: string;
  token: string;
  agent: string;
  currency: string;
  address: string;
  network: string;
  testWallet: boolean;
  suggestedMaxMinor: number;
  current: AllowanceSaved | null;
};

const fractionDigits = (currency: string): number =>
  new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;

/** "12.5" → 1250 (minor units) with integer arithmetic; null when it is not a positive amount. */
const toMinor = (text: string, currency: string): number | null => {
  const digits = fractionDigits(currency);
  const match = /^(\d{1,9})(?:\.(\d*))?$/.exec(text.trim().replace(/,/g, ""));
  if (!match || (match[2]?.length ?? 0) > digits) return null;
  const minor = Number(
    BigInt(match[1]!) * 10n ** BigInt(digits) + BigInt((match[2] ?? "").padEnd(digits, "0") || "0"),
  );
  return minor > 0 ? minor : null;
};

const toMajorText = (minor: number, currency: string): string => {
  const digits = fractionDigits(currency);
  const padded = String(minor).padStart(digits + 1, "0");
  return digits === 0 ? padded : `${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
};

const randomHex = (bytes: number) =>
  Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");

const DAY_MS = 86_400_000;

export function CryptoAllowance(props: Props) {
  const { currency } = props;
  const [max, setMax] = useState(toMajorText(props.suggestedMaxMinor, currency));
  const [days, setDays] = useState("7");
  const [scope, setScope] = useState<"store" | "any">("store");
  const [saved, setSaved] = useState(props.current);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const maxMinor = toMinor(max, currency);

  const sign = async () => {
    if (maxMinor === null) return;
    setBusy(true);
    setError(null);
    try {
      const payload: IntentPayload = {
        v: 2,
        id: `im_${randomHex(12)}`,
        buyer_address: props.address,
        agent: props.agent,
        currency,
        per_order_max: maxMinor,
        limits: {},
        merchants: scope === "store" ? [props.slug] : "*",
        expires_at: new Date(Date.now() + Number(days) * DAY_MS).toISOString(),
        nonce: randomHex(16),
      };
      const signer = await signerFor(props.address, props.network, props.testWallet);
      const signature = await signer.signPersonalMessage(intentSigningBytes(payload));
      const envelope = toBase64(new TextEncoder().encode(JSON.stringify({ payload, signature })));
      const answer = await props.actions.saveAllowance(props.slug, props.token, envelope);
      if (answer.ok) setSaved(answer.value);
      else setError(answer.message);
    } catch (e) {
      setError(e instanceof Error ? e.message : "The wallet did not sign");
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card aria-labelledby="allowance-title">
      <CardHeader>
        <CardTitle id="allowance-title" className="flex items-center gap-2 text-base">
          <KeyRound aria-hidden className="text-primary size-5" /> Let your agent pay next time
        </CardTitle>
        <CardDescription>
          Sign an allowance so your agent can complete crypto checkouts for you without this page. It moves no
          funds.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <p className="text-muted-foreground text-xs break-all">
          Agent: <code>{props.agent}</code>
        </p>
        {saved ? (
          <p
            role="status"
            data-testid="allowance-saved"
            className="bg-success-soft text-success-soft-foreground flex gap-2 rounded-md p-3 text-sm"
          >
            <BadgeCheck aria-hidden className="mt-0.5 size-4 shrink-0" />
            <span>
              Allowance saved
              {saved.perOrderMax !== null
                ? `: up to ${formatMinor(saved.perOrderMax, currency)} per order`
                : ""}
              , until <LocalTime at={saved.expiresAt} />. Your agent can pay within it from now on.
            </span>
          </p>
        ) : null}
        <form
          className="grid gap-4"
          onSubmit={(e) => {
            e.preventDefault();
            void sign();
          }}
        >
          <div className="grid gap-4 sm:grid-cols-2">
            <Field
              id="allowance-max"
              label={`Maximum per order (${currency})`}
              error={maxMinor === null ? "Enter an amount, e.g. 50.00" : undefined}
            >
              {(control) => (
                <Input
                  {...control}
                  inputMode="decimal"
                  value={max}
                  onChange={(e) => setMax(e.target.value)}
                />
              )}
            </Field>
            <Field id="allowance-days" label="Valid for">
              {(control) => (
                <NativeSelect {...control} value={days} onChange={(e) => setDays(e.target.value)}>
                  <option value="1">1 day</option>
                  <option value="7">7 days</option>
                  <option value="30">30 days</option>
                </NativeSelect>
              )}
            </Field>
          </div>
          <fieldset className="grid gap-2 text-sm">
            <legend className="mb-1 font-medium">Stores</legend>
            <label className="flex items-center gap-2">
              <input
                type="radio"
                name="allowance-scope"
                checked={scope === "store"}
                onChange={() => setScope("store")}
                className="accent-primary size-4"
              />
              Only this store
            </label>
            <label className="flex items-center gap-2">
              <input
                type="radio"
                name="allowance-scope"
                checked={scope === "any"}
                onChange={() => setScope("any")}
                className="accent-primary size-4"
              />
              Any store
            </label>
          </fieldset>
          {error ? (
            <p role="alert" className="text-destructive text-sm font-medium break-words">
              {error}
            </p>
          ) : null}
          <Button
            type="submit"
            variant="secondary"
            disabled={busy || maxMinor === null}
            className="justify-self-start"
          >
            {saved ? "Sign a new allowance" : "Sign allowance"}
          </Button>
        </form>
      </CardContent>
    </Card>
  );
}
