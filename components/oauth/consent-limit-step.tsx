"use client";

import { useTransition } from "react";

import { AllowanceForm } from "@/components/account/spend-caps";
import type { StoreChoice } from "@/lib/stores/list-stores";

// The consent page's second step (DECISIONS B20): linking the agent did not let it pay. Here the buyer may sign it
// an allowance at once — the spend-caps page's own form and wallet signing — or skip; either way the browser then
// goes on to the agent with the answer made at "Allow".

type SaveResult = { ok: true } | { ok: false; code: string; message: string };

export function ConsentLimitStep({
  agent,
  address,
  testWallet,
  save,
  proceed,
  stores,
}: {
  agent: { clientId: string; clientName: string };
  stores: readonly StoreChoice[];
  address: string;
  testWallet: boolean;
  save: (clientId: string, envelope: string) => Promise<SaveResult>;
  proceed: () => Promise<void>;
}) {
  const [leaving, startLeaving] = useTransition();
  const goOn = () => startLeaving(proceed);
  return (
    <div className="grid gap-4" aria-busy={leaving}>
      <AllowanceForm
        agent={agent}
        address={address}
        testWallet={testWallet}
        actions={{ save }}
        editing={null}
        stores={stores}
        onDone={goOn}
        onCancel={goOn}
        cancelLabel="Skip"
      />
      {leaving ? (
        <p role="status" className="text-muted-foreground text-sm">
          Taking you back to {agent.clientName}…
        </p>
      ) : null}
    </div>
  );
}
