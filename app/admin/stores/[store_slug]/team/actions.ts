"use server";

import { revalidatePath } from "next/cache";

import type { FormState } from "@/components/admin/form-state";
import { inviteToStore, revokeInvitation } from "@/lib/accounts/store-invitations";
import { removeStoreMember } from "@/lib/accounts/store-team";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { toAppError } from "@/lib/core/errors";

// The team page's actions: thin adapters over lib/accounts/store-team.ts and store-invitations.ts, which check the
// owner role.

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
  const named = field === "email" || field === "role";
  return { ok: false, errors: { [named ? field : "form"]: error.message }, values };
};

export async function inviteMemberAction(
  slug: string,
  _previous: FormState,
  data: FormData,
): Promise<FormState> {
  const account = await getMerchantSession();
  if (!account) return SIGNED_OUT;
  const values = { email: String(data.get("email") ?? ""), role: String(data.get("role") ?? "") };
  try {
    const invitation = await inviteToStore(account, slug, values);
    revalidatePath(`/admin/stores/${slug}/team`);
    return {
      ok: true,
      errors: {},
      message: `Invitation sent to ${invitation.email} as ${invitation.role}: they join once they accept it.`,
    };
  } catch (thrown) {
    return refused(thrown, values);
  }
}

export async function revokeInvitationAction(
  slug: string,
  _previous: FormState,
  data: FormData,
): Promise<FormState> {
  const account = await getMerchantSession();
  if (!account) return SIGNED_OUT;
  try {
    await revokeInvitation(account, slug, String(data.get("invitation_id") ?? ""));
    revalidatePath(`/admin/stores/${slug}/team`);
    return { ok: true, errors: {}, message: "Invitation withdrawn." };
  } catch (thrown) {
    return refused(thrown);
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
