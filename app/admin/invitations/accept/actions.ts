"use server";

import type { FormState } from "@/components/admin/form-state";
import { acceptInvitation } from "@/lib/accounts/store-invitations";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { toAppError } from "@/lib/core/errors";

// The invitation page's action: a thin adapter over lib/accounts/store-invitations.ts, which checks every rule.

export async function acceptInvitationAction(_previous: FormState, data: FormData): Promise<FormState> {
  const account = await getMerchantSession();
  if (!account) return { ok: false, errors: { form: "Your session has ended: sign in again." } };
  try {
    const joined = await acceptInvitation(account, { token: String(data.get("token") ?? "") });
    return {
      ok: true,
      errors: {},
      message: `You are now ${joined.role} of ${joined.storeName}.`,
      values: { store: joined.storeSlug },
    };
  } catch (thrown) {
    const error = toAppError(thrown);
    return {
      ok: false,
      errors: {
        form:
          error.code === "internal_error"
            ? "Something went wrong on our side: try again in a moment."
            : error.message,
      },
    };
  }
}
