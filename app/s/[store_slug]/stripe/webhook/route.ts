import { handleStripeWebhook } from "@/lib/checkout/completion/stripe-webhook";

export const dynamic = "force-dynamic";

// Inbound Stripe webhook events of one store (issue #5): raw body + Stripe-Signature, verified first.
type Params = { params: Promise<{ store_slug: string }> };

export async function POST(request: Request, { params }: Params) {
  const { store_slug } = await params;
  const answer = await handleStripeWebhook(
    store_slug,
    await request.text(),
    request.headers.get("stripe-signature"),
  );
  return Response.json(answer.body, { status: answer.status });
}
