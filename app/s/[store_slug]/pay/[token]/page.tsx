import type { Metadata } from "next";
import { redirect } from "next/navigation";

import { PageShell } from "@/components/layout/page-shell";
import { CryptoWalletView } from "@/components/payment/crypto-wallet-view";
import { LandedApprovalView } from "@/components/payment/landed-approval-view";
import { PaymentDone } from "@/components/payment/payment-done";
import { PaymentView } from "@/components/payment/payment-view";
import { viewerLocale } from "@/components/ui/viewer-locale";
import { getBuyerSession } from "@/lib/auth/get-buyer-session";
import { landedPaymentAt } from "@/lib/checkout/crypto/landed-approval";
import {
  getWalletPage,
  isWalletPageLink,
  recheckWalletPayment,
  withPaidUrl,
} from "@/lib/checkout/crypto/wallet-page";
import { getPaymentPage, payHostedCheckout, returnFromProvider } from "@/lib/checkout/hosted-payment";
import {
  checkoutOfPaymentLink,
  getPaymentReceipt,
  getReceiptOfPaidLink,
  sealReceipt,
} from "@/lib/checkout/payment-receipt";
import { getBaseUrl, isOAuthTestMode } from "@/lib/config/env";

import {
  decideLandedPaymentAction,
  payWithWallet,
  prepareWalletQuote,
  recheckWalletPaymentAction,
  saveWalletAllowance,
  settleWalletDigest,
} from "./actions";

// The hosted payment link in a checkout's continue_url while it is requires_escalation. Not framable
// (proxy.ts: frame-ancestors 'none'); its CSP allows Stripe.js and Stripe's frames and API. A checkout paying with
// svc.crypto gets the wallet page at the same link instead (the wallet signs, our server executes: no new origins).
export const dynamic = "force-dynamic";

export const metadata: Metadata = { title: "Payment — Agent Commerce Service", robots: { index: false } };

type Props = {
  params: Promise<{ store_slug: string; token: string }>;
  searchParams: Promise<{ result?: string; payment_intent?: string | string[]; receipt?: string | string[] }>;
};

export default async function PaymentPageRoute({ params, searchParams }: Props) {
  const { store_slug, token } = await params;
  const { result, payment_intent, receipt } = await searchParams;
  const here = `/s/${encodeURIComponent(store_slug)}/pay/${encodeURIComponent(token)}`;
  // a paid link no longer names its checkout: remember it first, for the receipt
  const checkoutId = result === undefined ? await checkoutOfPaymentLink(store_slug, token) : null;
  const paidUrl = async () =>
    `${here}?result=paid${checkoutId ? `&receipt=${await sealReceipt(store_slug, checkoutId)}` : ""}`;
  if (result === undefined && checkoutId === null) {
    // a paid link opened again: its token is gone from the checkout, its hash found the order
    const reopened = await getReceiptOfPaidLink(store_slug, token);
    if (reopened) {
      return (
        <PageShell width="narrow">
          <PaymentDone result="paid" receipt={reopened} locale={await viewerLocale(reopened.storeCountry)} />
        </PageShell>
      );
    }
  }
  if (payment_intent !== undefined) {
    // Stripe's return_url after a redirect (3-DS): finish from the provider's state, then drop the query string
    const returned = await returnFromProvider(
      store_slug,
      token,
      typeof payment_intent === "string" ? payment_intent : "",
    );
    redirect(returned === "paid" ? await paidUrl() : `${here}?result=${returned}`);
  }
  // a buyer's payment that landed over their agent's allowance waits here for the buyer's word (DECISIONS B20)
  const landed = result === undefined ? await landedPaymentAt(store_slug, token) : null;
  if (landed) {
    const viewer = await getBuyerSession();
    return (
      <PageShell width="narrow">
        <LandedApprovalView
          storeName={landed.store.name}
          agentName={landed.agentName}
          amountMinor={landed.amount}
          currency={landed.currency}
          locale={await viewerLocale()}
          decideBy={landed.decideBy}
          viewer={!viewer ? "signed-out" : viewer.id === landed.buyerId ? "buyer" : "other"}
          sandboxSignIn={isOAuthTestMode()}
          approve={decideLandedPaymentAction.bind(null, store_slug, token, "approve")}
          decline={decideLandedPaymentAction.bind(null, store_slug, token, "decline")}
        />
      </PageShell>
    );
  }
  if (result === undefined && (await isWalletPageLink(store_slug, token))) {
    // a payment sent earlier that is final by now finishes on sight (the finisher places the order)
    const seen = await recheckWalletPayment({ slug: store_slug, token });
    if (seen.kind === "order_placed") redirect((await withPaidUrl(store_slug, token, seen)).paidUrl!);
    const wallet = await getWalletPage({
      slug: store_slug,
      token,
      viewer: await getBuyerSession(),
      baseUrl: getBaseUrl(),
    });
    if (wallet) {
      return (
        <PageShell>
          <CryptoWalletView
            page={wallet}
            locale={await viewerLocale(wallet.storeCountry)}
            slug={store_slug}
            token={token}
            sandboxSignIn={isOAuthTestMode()}
            actions={{
              prepare: prepareWalletQuote,
              pay: payWithWallet,
              settleDigest: settleWalletDigest,
              recheck: recheckWalletPaymentAction,
              saveAllowance: saveWalletAllowance,
            }}
          />
        </PageShell>
      );
    }
  }
  if (result === undefined) {
    // a payment the provider already took (the browser's refresh was lost, a webhook is late) finishes on sight
    const state = await payHostedCheckout(store_slug, token, { action: "refresh" });
    if (state === "paid") redirect(await paidUrl());
  }
  const page = await getPaymentPage(store_slug, token);
  if (!page) {
    const paid =
      result === "paid" && typeof receipt === "string" ? await getPaymentReceipt(store_slug, receipt) : null;
    return (
      <PageShell width="narrow">
        <PaymentDone result={result ?? null} receipt={paid} locale={await viewerLocale(paid?.storeCountry)} />
      </PageShell>
    );
  }
  return (
    <PageShell>
      <PaymentView
        page={page}
        action={`${here}/submit`}
        notice={result ?? null}
        locale={await viewerLocale(page.storeCountry)}
      />
    </PageShell>
  );
}
