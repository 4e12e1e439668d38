import { payHostedCheckout, type PaymentAction } from "@/lib/checkout/hosted-payment";
import { checkoutOfPaymentLink, getReceiptOfPaidLink, sealReceipt } from "@/lib/checkout/payment-receipt";
import { getBaseUrl } from "@/lib/config/env";
import { readBodyText } from "@/lib/http/parse-body";
import { routeMethods, type RouteContext } from "@/lib/http/prelude";

export const dynamic = "force-dynamic";

// The hosted payment page's form target: runs the buyer's step, then 303 back to the page.
// Test mode: approve | fail (sandbox 3-DS) and card (a sandbox payment method). Live mode: refresh, posted by
// the page after Stripe.js confirmed the payment in the browser — the server then reads the provider's state.
// The form is small and urlencoded (the page's own <form>): read under a small limit, never as multipart.
const FORM_LIMIT_BYTES = 16 * 1024;

const submit = async (request: Request, { params }: RouteContext) => {
  const { store_slug, token } = (await params) as { store_slug: string; token: string };
  const form = new URLSearchParams(await readBodyText(request, FORM_LIMIT_BYTES));
  const action = form?.get("action");
  const paymentMethod = form?.get("payment_method");
  const step: PaymentAction | null =
    action === "approve" || action === "fail" || action === "refresh"
      ? { action }
      : action === "card" &&
          typeof paymentMethod === "string" &&
          /^pm_[A-Za-z0-9_]{1,100}$/.test(paymentMethod)
        ? { action: "card", paymentMethod }
        : null;
  const page = `${getBaseUrl()}/s/${encodeURIComponent(store_slug)}/pay/${encodeURIComponent(token)}`;
  if (!step) return Response.redirect(`${page}?result=invalid`, 303);
  // read before paying: a paid link no longer names its checkout, and the receipt needs it
  const checkoutId = await checkoutOfPaymentLink(store_slug, token);
  const result = await payHostedCheckout(store_slug, token, step);
  // the link was paid meanwhile (a second post of a double click): the bare link shows the receipt
  if (result === "gone" && (await getReceiptOfPaidLink(store_slug, token))) {
    return Response.redirect(page, 303);
  }
  const receipt =
    result === "paid" && checkoutId ? `&receipt=${await sealReceipt(store_slug, checkoutId)}` : "";
  return Response.redirect(`${page}?result=${result}${receipt}`, 303);
};

export const { GET, POST, PUT, PATCH, DELETE } = routeMethods("page-api", { POST: submit });
