import type { Metadata } from "next";
import { redirect } from "next/navigation";

import { PaymentView } from "@/components/payment/payment-view";
import { getPaymentPage, payHostedCheckout, returnFromProvider } from "@/lib/checkout/hosted-payment";

// The hosted payment link in a checkout's continue_url while it is requires_escalation (issue #5 §3).
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
      <main>
        <h1>{result === "paid" ? "Payment received" : "Payment link"}</h1>
        <p role="status" data-testid="pay-gone">
          {result === "paid"
            ? "Thank you: your order is placed. This payment link is no longer active."
            : result === "refunded"
              ? "The items sold out while you were paying, so no order was placed and your payment was refunded in full. This payment link is no longer active."
              : "This payment link is no longer active: the checkout is completed, canceled or unknown."}
        </p>
      </main>
    );
  }
  return (
    <main>
      <PaymentView
        page={page}
        action={`/s/${encodeURIComponent(store_slug)}/pay/${encodeURIComponent(token)}/submit`}
        notice={result ?? null}
      />
    </main>
  );
}
