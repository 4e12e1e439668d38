"use server";

import { revalidatePath } from "next/cache";

import type { FormState } from "@/components/admin/form-state";
import { addStoreMember, removeStoreMember } from "@/lib/accounts/store-team";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { toAppError } from "@/lib/core/errors";

// The team page's actions: thin adapters over lib/accounts/store-team.ts, which checks the owner role.

const SIGNED_OUT: FormState = { ok: false, errors: { form: "Your session has ended: sign in again." } };

const refused = (thrown: unknown, values?: Record<string, string>): FormState => {
  const error = toAppError(thrown);
  if (error.code === "internal_error") {
    return {
      ok: false,
      errors: { form: "Something went wrong on our side: try again in a moment." },
      values,
    };
  }
  const field = error.path?.replace(/^\$\./, "");
  return { ok: false, errors: { [field && field !== "account_id" ? field : "form"]: error.message }, values };
};

export async function addMemberAction(
  slug: string,
  _previous: FormState,
  data: FormData,
): Promise<FormState> {
  const account = await getMerchantSession();
  if (!account) return SIGNED_OUT;
  const values = { email: String(data.get("email") ?? ""), role: String(data.get("role") ?? "") };
  try {
    const member = await addStoreMember(account, slug, values);
    revalidatePath(`/admin/stores/${slug}/team`);
    return { ok: true, errors: {}, message: `${member.name} is now ${member.role} of this store.` };
  } catch (thrown) {
    return refused(thrown, values);
  }
}

export async function removeMemberAction(
  slug: string,
  _previous: FormState,
  data: FormData,
): Promise<FormState> {
  const account = await getMerchantSession();
  if (!account) return SIGNED_OUT;
  try {
    await removeStoreMember(account, slug, String(data.get("account_id") ?? ""));
    revalidatePath(`/admin/stores/${slug}/team`);
    return { ok: true, errors: {}, message: "Removed from the team." };
  } catch (thrown) {
    return refused(thrown);
  }
}
