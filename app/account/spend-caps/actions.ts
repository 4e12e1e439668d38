"use server";

import { revalidatePath } from "next/cache";

import { getBuyerSession } from "@/lib/auth/get-buyer-session";
import { toAppError } from "@/lib/core/errors";
import { saveMyAllowance, setAllowanceStatus } from "@/lib/mandates/spend-caps-page";

// The spend-cap page's actions: the signed-in buyer (wallet session) only; a refusal comes back as its code and
// message for the page to show, a bug still throws.

export type SpendCapActionResult = { ok: true } | { ok: false; code: string; message: string };

const act = async (run: (buyer: { id: string; suiAddress: string }) => Promise<unknown>) => {
  const buyer = await getBuyerSession();
  if (!buyer)
    return { ok: false, code: "identity_required", message: "Sign in with your wallet first" } as const;
  try {
    await run(buyer);
    revalidatePath("/account/spend-caps");
    return { ok: true } as const;
  } catch (error) {
    const appError = toAppError(error);
    if (appError.code === "internal_error") throw error;
    return { ok: false, code: appError.code, message: appError.message } as const;
  }
};

/** Keeps an allowance the buyer's wallet just signed for one of their agents (new, or an edit of the same id). */
export async function saveAllowance(clientId: string, envelope: string): Promise<SpendCapActionResult> {
  return act((buyer) =>
    saveMyAllowance({
      buyerId: buyer.id,
      buyerAddress: buyer.suiAddress,
      clientId,
      envelope,
      now: new Date(),
    }),
  );
}

/** Pause, resume or revoke one of the buyer's allowances: at once. */
export async function changeAllowance(
  id: string,
  action: "pause" | "resume" | "revoke",
): Promise<SpendCapActionResult> {
  if (!["pause", "resume", "revoke"].includes(action)) {
    return { ok: false, code: "invalid_request", message: "Unknown action" };
  }
  return act((buyer) => setAllowanceStatus({ buyerId: buyer.id, id, action, now: new Date() }));
}
