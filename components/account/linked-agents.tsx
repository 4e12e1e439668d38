"use client";

import { Plug, Trash2 } from "lucide-react";
import { useState, useTransition } from "react";

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
import { useToast } from "@/components/ui/toast";
import type { LinkedAgent } from "@/lib/buyers/consents";
import { describeScope } from "@/lib/oauth/scope-descriptions";

// The consent centre's list (issue #6 §7): every linked agent with its scopes in plain words, when granted, when it
// last acted, and revoke — behind a confirmation dialog, since the agent loses access at once.

const when = (date: Date | null): string =>
  date ? date.toISOString().replace("T", " ").slice(0, 16) + " UTC" : "never";

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

export function LinkedAgents({
  agents,
  revoke,
}: {
  agents: LinkedAgent[];
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
                      <Badge tone="info" className="w-fit font-mono">
                        {scope}
                      </Badge>
                      <span className="text-muted-foreground text-xs">{describeScope(scope)}</span>
                    </li>
                  ))}
                </ul>
              </DataItem>
              <DataItem label="Granted">{when(agent.grantedAt)}</DataItem>
              <DataItem label="Last acted">{when(agent.lastUsedAt)}</DataItem>
            </DataList>
          </Card>
        </li>
      ))}
    </ul>
  );
}
