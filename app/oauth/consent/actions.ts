"use server";

import { redirect } from "next/navigation";

import { getBuyerSession } from "@/lib/auth/get-buyer-session";
import { getBaseUrl } from "@/lib/config/env";
import { decideAuthorization, getPendingAuthorization } from "@/lib/oauth/decide-authorization";

import { saveContinuation, takeContinuation } from "./continuation";

/**
 * The consent form's action. Deny: straight back to the client with access_denied (RFC 6749 §4.1.2.1). Approve:
 * the consent and the code are made now, then the browser stops at the limit step (/oauth/consent/limit) before
 * it goes on to the client with code, state and iss.
 */
export async function decideConsent(formData: FormData): Promise<void> {
  const buyer = await getBuyerSession();
  const requestId = formData.get("request");
  if (!buyer || typeof requestId !== "string") redirect("/oauth/consent");
  const approve = formData.get("decision") === "approve";
  const pending = approve ? await getPendingAuthorization(requestId) : null;
  const { location } = await decideAuthorization({
    requestId,
    buyerId: buyer.id,
    approve,
    baseUrl: getBaseUrl(),
  });
  if (!pending) redirect(location);
  await saveContinuation(buyer.id, { clientId: pending.clientId, location });
  redirect("/oauth/consent/limit");
}

/** The limit step's way out (after signing, or "Skip"): on to the client's redirect_uri, once. */
export async function continueToAgent(): Promise<void> {
  const buyer = await getBuyerSession();
  const continuation = buyer ? await takeContinuation(buyer.id) : null;
  redirect(continuation?.location ?? "/account/agents");
}
