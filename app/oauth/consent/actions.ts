"use server";

import { redirect } from "next/navigation";

import { getBuyerSession } from "@/lib/auth/get-buyer-session";
import { getBaseUrl } from "@/lib/config/env";
import { decideAuthorization } from "@/lib/oauth/decide-authorization";

/** The consent form's action: approve or deny, then send the browser back to the client (RFC 6749 §4.1.2). */
export async function decideConsent(formData: FormData): Promise<void> {
  const buyer = await getBuyerSession();
  const requestId = formData.get("request");
  if (!buyer || typeof requestId !== "string") redirect("/oauth/consent");
  const { location } = await decideAuthorization({
    requestId,
    buyerId: buyer.id,
    approve: formData.get("decision") === "approve",
    baseUrl: getBaseUrl(),
  });
  redirect(location);
}
