import { Bot, Lock, ShieldX, TriangleAlert } from "lucide-react";

import { WalletSignIn } from "@/components/oauth/wallet-sign-in";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import type { WalletPage, WalletPageActions } from "@/lib/checkout/crypto/wallet-page";

import { CryptoAllowance } from "./crypto-allowance";
import { CryptoPayPanel, CryptoSignOut } from "./crypto-pay-panel";
import { OrderSummary } from "./order-summary";

// The wallet page (the payment link of a checkout paying with svc.crypto): the store, the order, then — once the
// buyer signed in with their wallet — the quote, the coin switch, the payment and the allowance for the agent.

export function CryptoWalletView({
  page,
  locale,
  slug,
  token,
  sandboxSignIn,
  actions,
}: {
  page: WalletPage;
  locale: string;
  slug: string;
  token: string;
  sandboxSignIn: boolean;
  actions: WalletPageActions;
}) {
  const { access } = page;
  return (
    <div className="grid gap-6">
      <div className="grid gap-1.5">
        <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Pay {page.storeName}</h1>
        <p className="text-muted-foreground flex items-start gap-1.5 text-sm">
          <Lock aria-hidden className="mt-0.5 size-4 shrink-0" /> Crypto payment for the order your agent
          prepared
          {page.mode === "test" ? " (test mode: sandbox coins, no real money)" : ""}.
        </p>
      </div>
      {page.owedBack.length > 0 ? (
        <div
          role="status"
          data-testid="crypto-owed-back"
          className="bg-warning-soft text-warning-soft-foreground grid gap-1 rounded-lg p-3 text-sm"
        >
          <p className="flex items-center gap-2 font-medium">
            <TriangleAlert aria-hidden className="size-4 shrink-0" /> Money owed back to you
          </p>
          {page.owedBack.map((o, i) => (
            <p key={i} className="break-words">
              {o.amounts.join(" + ")}: {o.reason}. The merchant sends it back to your wallet.
            </p>
          ))}
        </div>
      ) : null}
      <div className="grid items-start gap-6 lg:grid-cols-[1fr_28rem]">
        <OrderSummary page={page} locale={locale} />
        <div className="grid gap-6">
          {access.kind === "signed_out" ? (
            <WalletSignIn sandbox={sandboxSignIn} />
          ) : access.kind === "refused" ? (
            <Card aria-labelledby="refused-title" data-testid="crypto-refused">
              <CardHeader>
                <CardTitle id="refused-title" className="flex items-center gap-2 text-base">
                  <ShieldX aria-hidden className="text-destructive size-5" /> This checkout is not yours
                </CardTitle>
                <CardDescription>
                  It was made for another buyer&apos;s wallet, so this wallet cannot pay it. Sign out and sign
                  in with the wallet your agent acts for.
                </CardDescription>
              </CardHeader>
              <CardContent>
                <CryptoSignOut />
              </CardContent>
            </Card>
          ) : page.group ? (
            <Card aria-labelledby="group-title" data-testid="crypto-group-link">
              <CardHeader>
                <CardTitle id="group-title" className="text-base">
                  Paid together with other stores
                </CardTitle>
                <CardDescription>
                  Your agent prepared one payment for this checkout and checkouts in other stores. Sign it
                  once on the combined payment page.
                </CardDescription>
              </CardHeader>
              <CardContent>
                <a className="text-primary font-medium underline" href={page.group.url}>
                  Open the combined payment
                </a>
              </CardContent>
            </Card>
          ) : (
            <>
              <CryptoPayPanel
                actions={actions}
                slug={slug}
                token={token}
                currency={page.currency}
                totalMinor={page.totalMinor}
                locale={locale}
                renderedAt={page.asOf}
                network={page.network}
                address={access.address}
                testWallet={page.testWallet}
                coins={page.coins}
                quote={page.quote}
                quoteError={page.quoteError}
                pending={page.pending}
              />
              {page.allowance ? (
                <CryptoAllowance
                  actions={actions}
                  slug={slug}
                  token={token}
                  agent={page.allowance.agent}
                  currency={page.currency}
                  address={access.address}
                  network={page.network}
                  testWallet={page.testWallet}
                  suggestedMaxMinor={page.allowance.current?.perOrderMax ?? page.totalMinor}
                  current={page.allowance.current}
                />
              ) : null}
            </>
          )}
          <section
            aria-labelledby="agent-next-title"
            className="text-muted-foreground grid gap-1 rounded-lg border border-dashed p-4 text-sm"
          >
            <h2 id="agent-next-title" className="text-foreground flex items-center gap-2 font-medium">
              <Bot aria-hidden className="size-4" /> After you pay
            </h2>
            <p>
              Your order is placed at once and you get a receipt here. Your agent sees the order too, so it
              won&apos;t ask you to pay again.
              {page.allowance
                ? " With an allowance, your agent can pay for your next crypto orders on its own, up to the limit you set."
                : ""}
            </p>
          </section>
        </div>
      </div>
    </div>
  );
}
