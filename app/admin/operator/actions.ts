"use server";

import { revalidatePath } from "next/cache";

import { operatorRevokeKey } from "@/lib/accounts/operator";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { toAppError } from "@/lib/core/errors";

export async function operatorRevokeKeyAction(data: FormData): Promise<void> {
  const account = await getMerchantSession();
  const id = data.get("id");
  if (!account || typeof id !== "string") return;
  try {
    await operatorRevokeKey(account, id);
  } catch (thrown) {
    // not the operator, or no such key: nothing to revoke, nothing to say
    if (toAppError(thrown).code !== "not_found") throw thrown;
  }
  revalidatePath("/admin/operator");
}
