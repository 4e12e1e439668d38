"use client";

import { toBase64 } from "@mysten/sui/utils";
import { Coins, CreditCard, Pause, Pencil, Play, Plus, Trash2, Wallet } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";

import { formatMinor } from "@/components/cart/money";
import { signerFor } from "@/components/payment/crypto-signers";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogTitle,
  DialogTrigger,
} from "@/components/ui/dialog";
import { EmptyState } from "@/components/ui/empty-state";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { LocalTime } from "@/components/ui/local-time";
import { NativeSelect } from "@/components/ui/select";
import { useToast } from "@/components/ui/toast";
import type { Purchase } from "@/lib/buyers/agent-purchases";
import { intentSigningBytes, type IntentPayload } from "@/lib/mandates/intent-mandate";
import type { AgentAllowances, AllowanceView } from "@/lib/mandates/spend-caps-page";
import type { StoreChoice } from "@/lib/stores/list-stores";

// The spend-cap page's body (DECISIONS B6, B20): per agent, what it bought for the buyer in the last 30 days on
// every rail (from the orders), each allowance with spent / reserved / remaining per rolling window (from the
// ledger), and the buyer's controls. A purchase the ledger did not count (paid without an allowance) is listed and
// says so, so the page never shows nothing spent beside money an agent really spent. Creating and editing build the allowance payload here and have the
// buyer's wallet sign its JCS bytes (`sui:signPersonalMessage`; test mode's sandbox wallet signs in the page); an
// edit keeps the allowance's id, so what the agent spent under it still counts. Amounts are typed in major units
// and converted to minor units with integer arithmetic.

type Result = { ok: true } | { ok: false; code: string; message: string };
type Actions = {
  save: (clientId: string, envelope: string) => Promise<Result>;
  change: (id: string, action: "pause" | "resume" | "revoke") => Promise<Result>;
};

const CURRENCIES = ["USD", "EUR", "GBP"];
const WINDOW_LABEL = { day: "Per day", week: "Per week", month: "Per month" } as const;
const DAY_MS = 86_400_000;

const fractionDigits = (currency: string): number =>
  new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;

/** "12.5" → 1250; "" → null (no limit); undefined when it is not an amount. */
const toMinor = (text: string, currency: string): number | null | undefined => {
  if (text.trim() === "") return null;
  const digits = fractionDigits(currency);
  const match = /^(\d{1,9})(?:\.(\d*))?$/.exec(text.trim().replace(/,/g, ""));
  if (!match || (match[2]?.length ?? 0) > digits) return undefined;
  const minor = Number(
    BigInt(match[1]!) * 10n ** BigInt(digits) + BigInt((match[2] ?? "").padEnd(digits, "0") || "0"),
  );
  return minor > 0 ? minor : undefined;
};

const toMajorText = (minor: number | null, currency: string): string => {
  if (minor === null) return "";
  const digits = fractionDigits(currency);
  const padded = String(minor).padStart(digits + 1, "0");
  return digits === 0 ? padded : `${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
};

const randomHex = (bytes: number) =>
  Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");

/** The id of an agent's section on this page: other pages link to `/account/spend-caps#<id>`. */
export const agentSectionId = (clientId: string): string =>
  `agent-${clientId}`.replace(/[^a-zA-Z0-9_-]/g, "_");

const STATUS_TONE = { active: "success", paused: "warning", revoked: "danger", expired: "neutral" } as const;
const STATUS_WORD = { active: "Active", paused: "Paused", revoked: "Revoked", expired: "Expired" } as const;

/** The allowance form and its wallet signing; also the consent page's limit step (app/oauth/consent/limit). */
export function AllowanceForm({
  agent,
  address,
  testWallet,
  actions,
  editing,
  stores,
  onDone,
  onCancel = onDone,
  cancelLabel = "Cancel",
}: {
  agent: Pick<AgentAllowances, "clientId" | "clientName">;
  /** The stores the buyer may limit the allowance to, by name. */
  stores: readonly StoreChoice[];
  address: string;
  testWallet: boolean;
  actions: Pick<Actions, "save">;
  editing: AllowanceView | null;
  onDone: () => void;
  onCancel?: () => void;
  cancelLabel?: string;
}) {
  const limitOf = (name: "day" | "week" | "month") =>
    toMajorText(editing?.windows.find((w) => w.name === name)?.limit ?? null, editing?.currency ?? "USD");
  const [currency, setCurrency] = useState(editing?.currency ?? "USD");
  const [perOrder, setPerOrder] = useState(toMajorText(editing?.perOrderMax ?? null, currency));
  const [day, setDay] = useState(editing ? limitOf("day") : "100.00");
  const [week, setWeek] = useState(limitOf("week"));
  const [month, setMonth] = useState(limitOf("month"));
  // any store, or only the ones ticked (named by their slugs in the signed allowance)
  const [onlySome, setOnlySome] = useState(Boolean(editing && editing.merchants !== "*"));
  const [picked, setPicked] = useState<string[]>(
    editing && editing.merchants !== "*" ? editing.merchants : [],
  );
  // a store the allowance names that no longer exists stays listed (by its slug), so saving keeps it or drops it
  const choices = [
    ...stores,
    ...picked.filter((slug) => !stores.some((s) => s.slug === slug)).map((slug) => ({ slug, name: slug })),
  ];
  const [days, setDays] = useState("30");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const toast = useToast();
  const amounts = { perOrder, day, week, month };
  const minor = Object.fromEntries(
    Object.entries(amounts).map(([k, v]) => [k, toMinor(v, currency)]),
  ) as Record<keyof typeof amounts, number | null | undefined>;
  const noStore = onlySome && picked.length === 0;
  const invalid = Object.values(minor).some((v) => v === undefined) || noStore;
  const prefix = `${editing?.id ?? "new"}-${agent.clientId}`.replace(/[^a-zA-Z0-9_-]/g, "_");

  const sign = async () => {
    if (invalid) return;
    setBusy(true);
    setError(null);
    try {
      const slugs = onlySome ? picked : [];
      const payload: IntentPayload = {
        v: 2,
        id: editing?.id ?? `alw_${randomHex(12)}`,
        buyer_address: address,
        agent: agent.clientId,
        currency,
        ...(minor.perOrder ? { per_order_max: minor.perOrder } : {}),
        limits: {
          ...(minor.day ? { day: minor.day } : {}),
          ...(minor.week ? { week: minor.week } : {}),
          ...(minor.month ? { month: minor.month } : {}),
        },
        merchants: slugs.length > 0 ? slugs : "*",
        expires_at: new Date(Date.now() + Number(days) * DAY_MS).toISOString(),
        nonce: randomHex(16),
      };
      const signer = await signerFor(address, "mainnet", testWallet);
      const signature = await signer.signPersonalMessage(intentSigningBytes(payload));
      const envelope = toBase64(new TextEncoder().encode(JSON.stringify({ payload, signature })));
      const answer = await actions.save(agent.clientId, envelope);
      if (!answer.ok) {
        setError(answer.message);
        return;
      }
      toast({
        title: editing ? "Allowance updated" : "Allowance signed",
        description: `${agent.clientName} can spend within it from now on.`,
        tone: "success",
      });
      onDone();
    } catch (e) {
      setError(e instanceof Error ? e.message : "The wallet did not sign");
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="border-border grid gap-4 rounded-md border p-4"
      aria-label={editing ? `Edit allowance ${editing.id}` : `New allowance for ${agent.clientName}`}
      onSubmit={(e) => {
        e.preventDefault();
        void sign();
      }}
    >
      <div className="grid items-start gap-4 sm:grid-cols-3">
        <Field id={`${prefix}-currency`} label="Currency">
          {(control) => (
            <NativeSelect
              {...control}
              value={currency}
              disabled={editing !== null}
              onChange={(e) => setCurrency(e.target.value)}
            >
              {CURRENCIES.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </NativeSelect>
          )}
        </Field>
        {(
          [
            ["perOrder", "Per order", perOrder, setPerOrder],
            ["day", "Per day", day, setDay],
            ["week", "Per week", week, setWeek],
            ["month", "Per month", month, setMonth],
          ] as const
        ).map(([key, label, value, set]) => (
          <Field
            key={key}
            id={`${prefix}-${key}`}
            label={`${label} (${currency})`}
            hint="Empty: no limit"
            error={minor[key] === undefined ? "Enter an amount, e.g. 50.00" : undefined}
          >
            {(control) => (
              <Input {...control} inputMode="decimal" value={value} onChange={(e) => set(e.target.value)} />
            )}
          </Field>
        ))}
        <Field id={`${prefix}-days`} label="Valid for">
          {(control) => (
            <NativeSelect {...control} value={days} onChange={(e) => setDays(e.target.value)}>
              <option value="7">7 days</option>
              <option value="30">30 days</option>
              <option value="90">90 days</option>
              <option value="365">1 year</option>
            </NativeSelect>
          )}
        </Field>
      </div>
      <fieldset className="grid gap-2" aria-describedby={noStore ? `${prefix}-stores-error` : undefined}>
        <legend className="mb-1 text-sm font-medium">Stores</legend>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="radio"
            name={`${prefix}-stores`}
            checked={!onlySome}
            onChange={() => setOnlySome(false)}
            className="accent-primary size-4"
          />
          Any store
        </label>
        <label className="flex items-center gap-2 text-sm">
          <input
            type="radio"
            name={`${prefix}-stores`}
            checked={onlySome}
            onChange={() => setOnlySome(true)}
            className="accent-primary size-4"
          />
          Only the stores I tick
        </label>
        {onlySome ? (
          <ul
            className="grid max-h-48 gap-1.5 overflow-y-auto rounded-md border p-3 sm:grid-cols-2"
            aria-label="Stores it may buy from"
          >
            {choices.map((store) => (
              <li key={store.slug}>
                <label className="flex items-center gap-2 text-sm">
                  <input
                    type="checkbox"
                    checked={picked.includes(store.slug)}
                    onChange={(e) =>
                      setPicked((now) =>
                        e.target.checked ? [...now, store.slug] : now.filter((slug) => slug !== store.slug),
                      )
                    }
                    className="accent-primary size-4"
                  />
                  {store.name}
                </label>
              </li>
            ))}
          </ul>
        ) : null}
        {noStore ? (
          <p id={`${prefix}-stores-error`} className="text-destructive text-sm font-medium">
            Tick at least one store, or choose any store.
          </p>
        ) : null}
      </fieldset>
      {error ? (
        <p role="alert" className="text-destructive text-sm font-medium break-words">
          {error}
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={busy || invalid}>
          <Wallet aria-hidden />
          {busy ? "Waiting for your wallet…" : "Sign with your wallet"}
        </Button>
        <Button type="button" variant="outline" onClick={onCancel}>
          {cancelLabel}
        </Button>
      </div>
    </form>
  );
}

function RevokeAllowance({ allowance, actions }: { allowance: AllowanceView; actions: Actions }) {
  const [open, setOpen] = useState(false);
  const [pending, startTransition] = useTransition();
  const router = useRouter();
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="outline" size="sm" className="text-destructive">
          <Trash2 aria-hidden />
          Revoke
        </Button>
      </DialogTrigger>
      <DialogContent>
        <DialogTitle>Revoke this allowance?</DialogTitle>
        <DialogDescription>
          The agent cannot start a payment under it any more, from now on. A payment your wallet already
          signed still completes. Revoking cannot be undone: you would sign a new allowance.
        </DialogDescription>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="outline">Keep it</Button>
          </DialogClose>
          <Button
            variant="destructive"
            disabled={pending}
            onClick={() =>
              startTransition(async () => {
                await actions.change(allowance.id, "revoke");
                setOpen(false);
                router.refresh();
              })
            }
          >
            {pending ? "Revoking…" : "Revoke allowance"}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

function AllowanceCard({
  allowance,
  actions,
  stores,
  onEdit,
}: {
  allowance: AllowanceView;
  actions: Actions;
  stores: readonly StoreChoice[];
  onEdit: () => void;
}) {
  const [pending, startTransition] = useTransition();
  const router = useRouter();
  const { currency } = allowance;
  const live = allowance.status === "active" || allowance.status === "paused";
  const money = (minor: number) => formatMinor(minor, currency);
  return (
    <li data-testid="allowance" className="border-border grid gap-3 rounded-md border p-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div className="flex flex-wrap items-center gap-2">
          <Badge tone={STATUS_TONE[allowance.status]} data-testid="allowance-status">
            {STATUS_WORD[allowance.status]}
          </Badge>
          <span className="text-sm">
            {allowance.perOrderMax !== null
              ? `Up to ${money(allowance.perOrderMax)} per order`
              : "Any order size"}
            {" · "}
            {allowance.merchants === "*"
              ? "any store"
              : allowance.merchants
                  .map((slug) => stores.find((s) => s.slug === slug)?.name ?? slug)
                  .join(", ")}
          </span>
        </div>
        <span className="text-muted-foreground text-xs" data-testid="allowance-expires">
          until <LocalTime at={allowance.expiresAt} />
        </span>
      </div>
      <table className="w-full text-sm">
        <caption className="sr-only">Spending against each limit</caption>
        <thead className="text-muted-foreground text-left text-xs">
          <tr>
            <th scope="col" className="py-1 pr-3 font-medium">
              Window
            </th>
            <th scope="col" className="py-1 pr-3 font-medium">
              Limit
            </th>
            <th scope="col" className="py-1 pr-3 font-medium">
              Spent
            </th>
            <th scope="col" className="py-1 pr-3 font-medium">
              Left
            </th>
          </tr>
        </thead>
        <tbody>
          {allowance.windows.map((w) => (
            <tr key={w.name} data-testid={`window-${w.name}`} className="border-border border-t">
              <th scope="row" className="py-1.5 pr-3 text-left font-normal">
                {WINDOW_LABEL[w.name]}
              </th>
              <td className="py-1.5 pr-3">{w.limit === null ? "no limit" : money(w.limit)}</td>
              <td className="py-1.5 pr-3">{money(w.spent)}</td>
              <td className="py-1.5">{!live || w.remaining === null ? "—" : money(w.remaining)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="text-muted-foreground text-xs" data-testid="allowance-reserved">
        Reserved now for payments in progress: {money(allowance.reserved)}
      </p>
      {live ? (
        <div className="flex flex-wrap gap-2">
          <Button variant="outline" size="sm" onClick={onEdit}>
            <Pencil aria-hidden />
            Edit
          </Button>
          <Button
            variant="outline"
            size="sm"
            disabled={pending}
            onClick={() =>
              startTransition(async () => {
                await actions.change(allowance.id, allowance.status === "paused" ? "resume" : "pause");
                router.refresh();
              })
            }
          >
            {allowance.status === "paused" ? <Play aria-hidden /> : <Pause aria-hidden />}
            {allowance.status === "paused" ? "Resume" : "Pause"}
          </Button>
          <RevokeAllowance allowance={allowance} actions={actions} />
        </div>
      ) : null}
    </li>
  );
}

const hostOf = (clientId: string): string => {
  try {
    return new URL(clientId).host;
  } catch {
    return clientId;
  }
};

function Purchases({ agent }: { agent: AgentAllowances }) {
  const uncounted = agent.purchases.filter((p) => p.allowanceId === null).length;
  return (
    <section aria-label={`Purchases by ${agent.clientName}`} className="grid gap-2">
      <h3 className="text-sm font-medium">
        Bought for you in the last 30 days:{" "}
        <span data-testid="agent-spent">
          {agent.spent.length === 0
            ? formatMinor(0, agent.allowances[0]?.currency ?? "USD")
            : agent.spent.map((s) => formatMinor(s.amountMinor, s.currency)).join(" + ")}
        </span>
      </h3>
      {agent.purchases.length === 0 ? (
        <p className="text-muted-foreground text-sm">No purchases in the last 30 days.</p>
      ) : (
        <ul className="divide-border grid divide-y rounded-md border text-sm">
          {agent.purchases.map((p) => (
            <PurchaseRow key={p.orderId} purchase={p} />
          ))}
        </ul>
      )}
      {uncounted > 0 ? (
        <p className="text-muted-foreground text-xs" data-testid="agent-uncounted">
          {uncounted === 1 ? "1 purchase was" : `${uncounted} purchases were`} paid without an allowance, so{" "}
          {uncounted === 1 ? "it counts" : "they count"} against none.
        </p>
      ) : null}
    </section>
  );
}

function PurchaseRow({ purchase: p }: { purchase: Purchase }) {
  const Icon = p.paidWith?.startsWith("Crypto") ? Coins : CreditCard;
  return (
    <li
      data-testid="agent-purchase"
      className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1 px-3 py-2"
    >
      <span className="grid min-w-0 gap-0.5">
        <span className="font-medium">{p.store.name}</span>
        <span className="text-muted-foreground flex flex-wrap items-center gap-x-1.5 text-xs">
          <LocalTime at={p.placedAt} />
          <span aria-hidden>·</span>
          <span className="inline-flex items-center gap-1" data-testid="purchase-rail">
            <Icon aria-hidden className="size-3.5" />
            {p.paidWith ?? "Not paid"}
          </span>
        </span>
      </span>
      <span className="flex flex-wrap items-center gap-2">
        {p.allowanceId ? <Badge tone="neutral">Counted</Badge> : <Badge tone="warning">No allowance</Badge>}
        <span className="font-medium tabular-nums" data-testid="purchase-amount">
          {formatMinor(p.amountMinor, p.currency)}
        </span>
        {p.refundedMinor > 0 ? (
          <span className="text-muted-foreground text-xs">
            ({formatMinor(p.refundedMinor, p.currency)} refunded)
          </span>
        ) : null}
      </span>
    </li>
  );
}

function AgentSection({
  agent,
  address,
  testWallet,
  actions,
  stores,
}: {
  agent: AgentAllowances;
  address: string;
  testWallet: boolean;
  actions: Actions;
  stores: readonly StoreChoice[];
}) {
  const [form, setForm] = useState<AllowanceView | "new" | null>(null);
  const router = useRouter();
  const headingId = agentSectionId(agent.clientId);
  const done = () => {
    setForm(null);
    router.refresh();
  };
  return (
    <li data-testid="agent-caps">
      <Card className="grid gap-4 p-5 sm:p-6" aria-labelledby={headingId}>
        <div className="flex flex-wrap items-start justify-between gap-3">
          <div className="grid min-w-0 gap-1">
            <h2 id={headingId} className="flex flex-wrap items-center gap-2 text-lg font-semibold">
              {agent.clientName}
              {agent.linked ? null : <Badge tone="neutral">Unlinked</Badge>}
            </h2>
            <span className="text-muted-foreground text-xs break-all">{hostOf(agent.clientId)}</span>
          </div>
          {form === null && agent.linked ? (
            <Button size="sm" onClick={() => setForm("new")}>
              <Plus aria-hidden />
              New allowance
            </Button>
          ) : null}
        </div>
        {form !== null ? (
          <AllowanceForm
            key={form === "new" ? "new" : form.id}
            agent={agent}
            address={address}
            testWallet={testWallet}
            actions={actions}
            editing={form === "new" ? null : form}
            stores={stores}
            onDone={done}
          />
        ) : null}
        {agent.allowances.length === 0 ? (
          <p className="text-muted-foreground text-sm" data-testid="agent-no-allowance">
            {agent.linked
              ? "No allowance yet: this agent cannot pay for you until you sign one."
              : "No allowance: this agent is no longer linked and cannot pay for you."}
          </p>
        ) : (
          <ul className="grid gap-3" aria-label={`Allowances of ${agent.clientName}`}>
            {agent.allowances.map((a) => (
              <AllowanceCard
                key={a.id}
                allowance={a}
                actions={actions}
                stores={stores}
                onEdit={() => setForm(a)}
              />
            ))}
          </ul>
        )}
        <Purchases agent={agent} />
      </Card>
    </li>
  );
}

export function SpendCaps({
  agents,
  address,
  testWallet,
  actions,
  stores,
}: {
  agents: AgentAllowances[];
  address: string;
  testWallet: boolean;
  actions: Actions;
  stores: readonly StoreChoice[];
}) {
  if (agents.length === 0) {
    return (
      <EmptyState icon={<Wallet />} title="No agents are linked to your account">
        When you allow an AI agent to act for you, you can set here what it may spend.
      </EmptyState>
    );
  }
  return (
    <ul className="grid gap-4" aria-label="Spend caps per agent">
      {agents.map((agent) => (
        <AgentSection
          key={agent.clientId}
          agent={agent}
          address={address}
          testWallet={testWallet}
          actions={actions}
          stores={stores}
        />
      ))}
    </ul>
  );
}
