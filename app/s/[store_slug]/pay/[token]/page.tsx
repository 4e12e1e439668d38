import type { Metadata } from "next";
import { redirect } from "next/navigation";

import { PageShell } from "@/components/layout/page-shell";
import { PaymentDone } from "@/components/payment/payment-done";
import { PaymentView } from "@/components/payment/payment-view";
import { getPaymentPage, payHostedCheckout, returnFromProvider } from "@/lib/checkout/hosted-payment";

// The hosted payment link in a checkout's continue_url while it is requires_escalation (issue #5 §3). Not framable
// (proxy.ts: frame-ancestors 'none'); its CSP allows Stripe.js and Stripe's frames and API.
export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Payment — Agent Commerce Service", robots: { index: false } };

type Props = {
  params: Promise<{ store_slug: string; token: string }>;
  searchParams: Promise<{ result?: string; payment_intent?: string | string[] }>;
};

export default async function PaymentPageRoute({ params, searchParams }: Props) {
  const { store_slug, token } = await params;
  const { result, payment_intent } = await searchParams;
  if (payment_intent !== undefined) {
    // Stripe's return_url after a redirect (3-DS): finish from the provider's state, then drop the query string
    const returned = await returnFromProvider(
      store_slug,
      token,
      typeof payment_intent === "string" ? payment_intent : "",
    );
    redirect(`/s/${encodeURIComponent(store_slug)}/pay/${encodeURIComponent(token)}?result=${returned}`);
  }
  if (result === undefined) {
    // a payment the provider already took (the browser's refresh was lost, a webhook is late) finishes on sight
    const state = await payHostedCheckout(store_slug, token, { action: "refresh" });
    if (state === "paid") {
      redirect(`/s/${encodeURIComponent(store_slug)}/pay/${encodeURIComponent(token)}?result=paid`);
    }
  }
  const page = await getPaymentPage(store_slug, token);
  if (!page) {
    return (
      <PageShell width="narrow">
        <PaymentDone result={result ?? null} />
      </PageShell>
    );
  }
  return (
    <PageShell>
      <PaymentView
        page={page}
        action={`/s/${encodeURIComponent(store_slug)}/pay/${encodeURIComponent(token)}/submit`}
        notice={result ?? null}
      />
    </PageShell>
  );
}
