"use server";

import { revalidatePath } from "next/cache";

import { getBuyerSession } from "@/lib/auth/get-buyer-session";
import { revokeLinkedAgent } from "@/lib/buyers/consents";

/** One-click revoke in the consent centre: the agent's refresh and access tokens stop working at once. */
export async function revokeAgent(formData: FormData): Promise<void> {
  const buyer = await getBuyerSession();
  const clientId = formData.get("client_id");
  if (!buyer || typeof clientId !== "string") return;
  await revokeLinkedAgent({ buyerId: buyer.id, clientId });
  revalidatePath("/account/agents");
}
