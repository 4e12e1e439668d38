"use server";

import type { FormState } from "@/components/admin/form-state";
import { sendVerificationMail, verifyEmail } from "@/lib/accounts/email-verification";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { getBaseUrl } from "@/lib/config/env";
import { toAppError } from "@/lib/core/errors";

// The verification page's actions: thin adapters over lib/accounts/email-verification.ts.

const refused = (thrown: unknown): FormState => {
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
};

export async function verifyEmailAction(_previous: FormState, data: FormData): Promise<FormState> {
  try {
    const { email } = await verifyEmail({ token: String(data.get("token") ?? "") });
    return { ok: true, errors: {}, message: `${email} is verified.` };
  } catch (thrown) {
    return refused(thrown);
  }
}

export async function resendVerificationAction(_previous: FormState, _data: FormData): Promise<FormState> {
  const account = await getMerchantSession();
  if (!account) return { ok: false, errors: { form: "Your session has ended: sign in again." } };
  try {
    await sendVerificationMail(account, { baseUrl: getBaseUrl() });
    return { ok: true, errors: {}, message: `A new link is on its way to ${account.email}.` };
  } catch (thrown) {
    return refused(thrown);
  }
}
