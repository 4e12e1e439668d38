import { Lock, ShieldCheck, TriangleAlert } from "lucide-react";

import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { formatMoney } from "@/components/ui/format";
import type { PaymentPage } from "@/lib/checkout/hosted-payment";

import { LiveCardForm } from "./live-card-form";
import { OrderSummary } from "./order-summary";
import { TestCards } from "./test-cards";

// The hosted payment page's view: the store, everything paid for and the total, then the card step
// with the amount on its button. Test mode: the sandbox 3-DS challenge or the sandbox card choices (plain HTML
// forms, no client script; no card-number box, since no number is typed there). Live mode: Stripe's Payment
// Element (LiveCardForm, a client component), or why it cannot run. A notice about the card (declined, none
// chosen) is shown in the card step, next to what caused it.

const NOTICES: Record<string, { text: string; tone: "warning" | "danger" }> = {
  declined: { text: "The card was declined. Try another card.", tone: "danger" },
  challenge: { text: "Your bank asks you to confirm this payment.", tone: "warning" },
  /** Live: the page was reloaded (or reopened) while the bank's confirmation was open; Stripe's state says so. */
  bank_waiting: {
    text: "Your bank is still waiting for you to confirm this payment, so nothing has been charged yet. Pay again to return to your bank's confirmation.",
    tone: "warning",
  },
  mismatch: {
    text: "That payment does not belong to this checkout: nothing was charged here. Pay below.",
    tone: "warning",
  },
  provider_error: {
    text: "The card payment service could not be reached. Please try again in a moment.",
    tone: "danger",
  },
  invalid: { text: "Choose a card, then pay.", tone: "warning" },
};

const TONE = {
  warning: "bg-warning-soft text-warning-soft-foreground",
  danger: "bg-danger-soft text-danger-soft-foreground",
} as const;

const Notice = ({ text, tone }: { text: string; tone: keyof typeof TONE }) => (
  <p
    role={tone === "danger" ? "alert" : "status"}
    data-testid="pay-notice"
    className={`flex items-start gap-2 rounded-md p-3 text-sm font-medium ${TONE[tone]}`}
  >
    <TriangleAlert aria-hidden className="mt-0.5 size-4 shrink-0" />
    {text}
  </p>
);

export function PaymentView({
  page,
  action,
  notice,
  locale,
}: {
  page: PaymentPage;
  action: string;
  notice: string | null;
  locale: string;
}) {
  const shown = notice ? NOTICES[notice] : undefined;
  const amount = formatMoney(page.totalMinor, page.currency, locale);
  // one notice at a time beside the card: the page's answer to the last step, else the card's recorded decline
  const problem = shown ? (
    <Notice text={shown.text} tone={shown.tone} />
  ) : page.lastError ? (
    <Notice text={page.lastError} tone="danger" />
  ) : page.live && page.step === "challenge" ? (
    <Notice {...NOTICES.bank_waiting!} />
  ) : null;
  return (
    <div className="grid gap-6">
      <div className="grid gap-1.5">
        <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">Pay {page.storeName}</h1>
        <p className="text-muted-foreground flex items-center gap-1.5 text-sm">
          <Lock aria-hidden className="size-4 shrink-0" /> Secure card payment for the order your agent
          prepared.
        </p>
      </div>
      <div className="grid items-start gap-6 lg:grid-cols-[1fr_26rem]">
        <OrderSummary page={page} locale={locale} />
        {page.live ? (
          <Card aria-labelledby="card-title">
            <CardHeader>
              <CardTitle id="card-title" className="text-base">
                Card
              </CardTitle>
            </CardHeader>
            <CardContent className="grid gap-4">
              {page.live.status === "ready" ? (
                <>
                  {problem}
                  {page.live.publishableKey.startsWith("pk_test_") ? <TestCards /> : null}
                  <LiveCardForm
                    publishableKey={page.live.publishableKey}
                    clientSecret={page.live.clientSecret}
                    returnUrl={page.live.returnUrl}
                    action={action}
                    amountText={amount}
                  />
                </>
              ) : (
                <p
                  role="status"
                  data-testid="pay-unavailable"
                  className="bg-warning-soft text-warning-soft-foreground rounded-md p-3 text-sm"
                >
                  {page.live.message}
                </p>
              )}
            </CardContent>
          </Card>
        ) : page.step === "challenge" ? (
          <Card aria-labelledby="challenge-title">
            <CardHeader>
              <CardTitle id="challenge-title" className="flex items-center gap-2 text-base">
                <ShieldCheck aria-hidden className="text-primary size-5" /> 3-D Secure (sandbox)
              </CardTitle>
              <CardDescription>
                This is the sandbox bank challenge. Confirm or refuse the payment.
              </CardDescription>
            </CardHeader>
            <CardContent className="grid gap-4">
              {problem}
              <form method="post" action={action} className="flex flex-col gap-2 sm:flex-row">
                <Button type="submit" name="action" value="approve">
                  Complete authentication
                </Button>
                <Button type="submit" name="action" value="fail" variant="outline">
                  Fail authentication
                </Button>
              </form>
            </CardContent>
          </Card>
        ) : (
          <Card aria-labelledby="card-title">
            <CardHeader>
              <CardTitle id="card-title" className="text-base">
                Card (sandbox)
              </CardTitle>
              <CardDescription>
                This store is in test mode: pick a sandbox card. No real money moves.
              </CardDescription>
            </CardHeader>
            <CardContent className="grid gap-4">
              {problem}
              <form method="post" action={action} className="grid gap-4">
                <input type="hidden" name="action" value="card" />
                <fieldset className="grid gap-2">
                  <legend className="mb-2 text-sm font-medium">Sandbox card</legend>
                  {page.testCards.map((card, i) => (
                    <label
                      key={card.id}
                      className="has-[:checked]:border-primary has-[:checked]:bg-accent flex cursor-pointer items-center gap-3 rounded-lg border p-3 text-sm"
                    >
                      <input
                        type="radio"
                        name="payment_method"
                        value={card.id}
                        defaultChecked={i === 0}
                        className="accent-primary size-4"
                      />
                      <span className="flex min-w-0 flex-1 flex-wrap items-baseline justify-between gap-x-3">
                        <span>{card.label}</span>
                        {/* the token an agent sends as its credential (payment.instruments[].credential) */}
                        <code className="text-muted-foreground text-xs break-all">{card.id}</code>
                      </span>
                    </label>
                  ))}
                </fieldset>
                <Button type="submit" size="lg" className="w-full">
                  <Lock aria-hidden /> Pay {amount}
                </Button>
              </form>
            </CardContent>
          </Card>
        )}
      </div>
    </div>
  );
}
