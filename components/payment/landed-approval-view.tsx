import { ShieldAlert } from "lucide-react";
import Link from "next/link";

import { Money } from "@/components/cart/money";
import { WalletSignIn } from "@/components/oauth/wallet-sign-in";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardHeader, CardTitle } from "@/components/ui/card";
import { DataItem, DataList } from "@/components/ui/data-list";
import { LocalTime } from "@/components/ui/local-time";

// The payment link of a checkout whose crypto payment landed without room on the buyer's allowance for the agent
// (DECISIONS B20): the buyer, signed in with the wallet that owns the account, approves it (the order is placed
// and counted on the allowance) or declines it (the money is owed back to them). Plain forms posting to server
// actions: it works before any script runs.

export type LandedApprovalProps = {
  storeName: string;
  agentName: string;
  amountMinor: number;
  currency: string;
  /** The viewer's locale for the amount. */
  locale?: string;
  decideBy: Date;
  /** The viewer is the buyer of this purchase. */
  viewer: "buyer" | "other" | "signed-out";
  sandboxSignIn: boolean;
  approve: () => Promise<void>;
  decline: () => Promise<void>;
};

export function LandedApprovalView(props: LandedApprovalProps) {
  return (
    <Card>
      <CardHeader className="items-center text-center">
        <div
          aria-hidden
          className="text-warning-soft-foreground bg-warning-soft mx-auto grid size-14 place-items-center rounded-full"
        >
          <ShieldAlert className="size-7" />
        </div>
        <CardTitle as="h1" className="text-2xl">
          Approve this payment?
        </CardTitle>
      </CardHeader>
      <CardContent className="grid gap-4">
        <p data-testid="landed-approval-text">
          Your payment to <strong>{props.storeName}</strong> arrived, but the allowance you signed for{" "}
          <strong>{props.agentName}</strong> no longer covered it (its limit was reached, or you paused or
          revoked it). No order has been placed. Approve it to place the order, or decline it and the money is
          owed back to you.
        </p>
        <DataList>
          <DataItem label="Store">{props.storeName}</DataItem>
          <DataItem label="Agent">{props.agentName}</DataItem>
          <DataItem label="Amount">
            <Money amountMinor={props.amountMinor} currency={props.currency} locale={props.locale} />
          </DataItem>
          <DataItem label="Decide by">
            <LocalTime at={props.decideBy} />
          </DataItem>
        </DataList>
        {props.viewer === "buyer" ? (
          <div className="flex flex-col gap-3 sm:flex-row">
            <form action={props.approve} className="sm:flex-1">
              <Button type="submit" className="w-full" data-testid="landed-approve">
                Approve and place the order
              </Button>
            </form>
            <form action={props.decline} className="sm:flex-1">
              <Button type="submit" variant="outline" className="w-full" data-testid="landed-decline">
                Decline: owe it back to me
              </Button>
            </form>
          </div>
        ) : (
          <div className="grid gap-3">
            <p className="text-muted-foreground text-sm" role="status">
              {props.viewer === "other"
                ? "You are signed in with another wallet. Sign in with the wallet of the account this agent buys for."
                : "Sign in with your wallet to approve or decline this payment."}
            </p>
            <WalletSignIn sandbox={props.sandboxSignIn} />
          </div>
        )}
        <p className="text-muted-foreground text-sm">
          Left undecided, the payment is owed back to you after 24 hours. You can raise the limit on{" "}
          <Link href="/account/spend-caps">Spend caps</Link>.
        </p>
      </CardContent>
    </Card>
  );
}
