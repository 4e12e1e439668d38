import { handleStripeWebhook } from "@/lib/checkout/completion/stripe-webhook";
import { readBodyText } from "@/lib/http/parse-body";
import { routeMethods, type RouteContext } from "@/lib/http/prelude";

export const dynamic = "force-dynamic";

// Inbound Stripe webhook events of one store: raw body + Stripe-Signature, verified first. The body
// is read under the prelude's size limit (Stripe events are far below 1 MiB).
const receive = async (request: Request, { params }: RouteContext) => {
  const { store_slug } = await params;
  const answer = await handleStripeWebhook(
    String(store_slug),
    await readBodyText(request),
    request.headers.get("stripe-signature"),
  );
  return Response.json(answer.body, { status: answer.status });
};

export const { GET, POST, PUT, PATCH, DELETE } = routeMethods("webhook", { POST: receive });
