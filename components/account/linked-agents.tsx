"use client";

import { Coins, CreditCard, Gauge, Plug, Trash2 } from "lucide-react";
import Link from "next/link";
import { useState, useTransition } from "react";

import { agentSectionId } from "@/components/account/spend-caps";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { DataItem, DataList } from "@/components/ui/data-list";
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
import { formatMoney } from "@/components/ui/format";
import { LocalTime } from "@/components/ui/local-time";
import { useToast } from "@/components/ui/toast";
import type { Purchase } from "@/lib/buyers/agent-purchases";
import type { LinkedAgent } from "@/lib/buyers/consents";
import { describeScope, scopeTitle } from "@/lib/oauth/scope-descriptions";

// The consent centre's list: every linked agent with its scopes in plain words, when granted, when it
// last acted, what it bought for the buyer lately and what that cost (the spend-caps page's own query,
// lib/buyers/agent-purchases.ts), a link to its limits, and revoke — behind a confirmation dialog, since the agent
// loses access at once.

/** What an agent did for the buyer within the purchase window (30 days), newest first. */
export type AgentActivity = {
  /** The newest few purchases. */
  recent: Purchase[];
  /** How many purchases in the window (recent may show fewer). */
  count: number;
  /** Per currency, net of refunds paid back. */
  spent: { currency: string; amountMinor: number }[];
  /** It has an active allowance, so it can pay for the buyer now. */
  canPay: boolean;
};

const NO_ACTIVITY: AgentActivity = { recent: [], count: 0, spent: [], canPay: false };

function RevokeButton({
  agent,
  revoke,
}: {
  agent: LinkedAgent;
  revoke: (formData: FormData) => Promise<void>;
}) {
  const [open, setOpen] = useState(false);
  const [pending, startTransition] = useTransition();
  const toast = useToast();
  const confirm = () =>
    startTransition(async () => {
      const form = new FormData();
      form.set("client_id", agent.clientId);
      await revoke(form);
      setOpen(false);
      toast({
        title: `${agent.clientName} was unlinked`,
        description: "Its access stopped at once.",
        tone: "success",
      });
    });
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button variant="outline" size="sm" className="text-destructive">
          <Trash2 aria-hidden />
          Revoke
        </Button>
      </DialogTrigger>
      <DialogContent>
        <DialogTitle>Revoke {agent.clientName}?</DialogTitle>
        <DialogDescription>
          The agent loses access to your account at once: its tokens stop working and it cannot complete
          purchases for you. To use it again you would approve it again.
        </DialogDescription>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="outline">Keep it</Button>
          </DialogClose>
          <Button variant="destructive" onClick={confirm} disabled={pending}>
            {pending ? "Revoking…" : "Revoke access"}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}

function Activity({
  agent,
  activity,
  locale,
}: {
  agent: LinkedAgent;
  activity: AgentActivity;
  locale: string;
}) {
  return (
    <section aria-label={`What ${agent.clientName} bought for you`} className="grid gap-2">
      <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
        <h3 className="text-sm font-medium">
          Spent for you in the last 30 days:{" "}
          <span data-testid="agent-spent">
            {activity.spent.length === 0
              ? "nothing"
              : activity.spent.map((s) => formatMoney(s.amountMinor, s.currency, locale)).join(" + ")}
          </span>
        </h3>
        <Link
          href={`/account/spend-caps#${agentSectionId(agent.clientId)}`}
          className="inline-flex items-center gap-1 text-sm"
        >
          <Gauge aria-hidden className="size-4" />
          Spending limits<span className="sr-only"> of {agent.clientName}</span>
        </Link>
      </div>
      <p className="text-muted-foreground text-xs" data-testid="agent-can-pay">
        {activity.canPay
          ? "It can pay for you within the allowance you signed."
          : "It has no active allowance, so it cannot pay for you."}
      </p>
      {activity.recent.length > 0 ? (
        <ul className="divide-border grid divide-y rounded-md border text-sm" aria-label="Recent purchases">
          {activity.recent.map((p) => {
            const Icon = p.paidWith?.startsWith("Crypto") ? Coins : CreditCard;
            return (
              <li
                key={p.orderId}
                data-testid="agent-purchase"
                className="flex flex-wrap items-center justify-between gap-x-4 gap-y-1 px-3 py-2"
              >
                <span className="grid min-w-0 gap-0.5">
                  <span className="font-medium">{p.store.name}</span>
                  <span className="text-muted-foreground flex flex-wrap items-center gap-x-1.5 text-xs">
                    <LocalTime at={p.placedAt} />
                    <span aria-hidden>·</span>
                    <span className="inline-flex items-center gap-1">
                      <Icon aria-hidden className="size-3.5" />
                      {p.paidWith ?? "Not paid"}
                    </span>
                  </span>
                </span>
                <span className="font-medium tabular-nums" data-testid="purchase-amount">
                  {formatMoney(p.amountMinor, p.currency, locale)}
                </span>
              </li>
            );
          })}
        </ul>
      ) : (
        <p className="text-muted-foreground text-sm">No purchases in the last 30 days.</p>
      )}
      {activity.count > activity.recent.length ? (
        <p className="text-muted-foreground text-xs">
          {activity.count - activity.recent.length} more on <Link href="/account/orders">your orders</Link>.
        </p>
      ) : null}
    </section>
  );
}

export function LinkedAgents({
  agents,
  activity,
  locale,
  revoke,
}: {
  agents: LinkedAgent[];
  /** By client id. */
  activity: Record<string, AgentActivity>;
  locale: string;
  revoke: (formData: FormData) => Promise<void>;
}) {
  if (agents.length === 0) {
    return (
      <EmptyState icon={<Plug />} title="No agents are linked to your account">
        When you allow an AI agent to act for you, it appears here, and you can revoke it at any time.
      </EmptyState>
    );
  }
  return (
    <ul className="grid gap-4" aria-label="Linked agents">
      {agents.map((agent) => (
        <li key={agent.clientId} data-testid="linked-agent">
          <Card className="grid gap-4 p-5 sm:p-6">
            <div className="flex flex-wrap items-start justify-between gap-3">
              <div className="grid min-w-0 gap-1">
                <h2 className="text-lg font-semibold">{agent.clientName}</h2>
                <code className="text-muted-foreground text-xs break-all">{agent.clientId}</code>
              </div>
              <RevokeButton agent={agent} revoke={revoke} />
            </div>
            <DataList>
              <DataItem label="May">
                <ul className="grid gap-2">
                  {agent.scopes.map((scope) => (
                    <li key={scope} className="grid gap-0.5">
                      <Badge tone="info" className="w-fit" title={scope}>
                        {scopeTitle(scope)}
                      </Badge>
                      <span className="text-muted-foreground text-xs">{describeScope(scope)}</span>
                    </li>
                  ))}
                </ul>
              </DataItem>
              <DataItem label="Granted">
                <LocalTime at={agent.grantedAt} />
              </DataItem>
              <DataItem label="Last acted">
                {agent.lastUsedAt ? <LocalTime at={agent.lastUsedAt} /> : "never"}
              </DataItem>
            </DataList>
            <Activity agent={agent} activity={activity[agent.clientId] ?? NO_ACTIVITY} locale={locale} />
          </Card>
        </li>
      ))}
    </ul>
  );
}
