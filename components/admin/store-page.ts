import "server-only";

import { notFound, redirect } from "next/navigation";

import type { AccountSummary } from "@/lib/accounts/accounts";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { toAppError } from "@/lib/core/errors";

import type { FormState } from "./form-state";

/**
 * Runs a store page's loader for the signed-in account: no session → the sign-in page (back here after); a store
 * the account has no part in, or an unknown order → 404, exactly like one that does not exist.
 */
export const loadStorePage = async <T>(
  here: string,
  load: (account: AccountSummary) => Promise<T>,
): Promise<T> => {
  const account = await getMerchantSession();
  if (!account) redirect(`/admin/sign-in?next=${encodeURIComponent(here)}`);
  try {
    return await load(account);
  } catch (thrown) {
    const code = toAppError(thrown).code;
    if (code === "store_not_found" || code === "not_found") notFound();
    throw thrown;
  }
};

/** A refused action as form state: the message beside the field the error's path names, else for the form. */
export const refusedForm = (thrown: unknown, values?: Record<string, string>): FormState => {
  const error = toAppError(thrown);
  if (error.code === "internal_error") {
    return {
      ok: false,
      errors: { form: "Something went wrong on our side: try again in a moment." },
      values,
    };
  }
  const field = error.path?.replace(/^\$\.?/, "").split(/[.[]/)[0] || "form";
  return { ok: false, errors: { [field]: error.message }, values };
};

/** Runs a server action for the signed-in account, mapping refusals to form state. */
export const runStoreAction = async (
  values: Record<string, string>,
  act: (account: AccountSummary) => Promise<string>,
): Promise<FormState> => {
  const account = await getMerchantSession();
  if (!account) return { ok: false, errors: { form: "Your session has ended: sign in again." }, values };
  try {
    return { ok: true, errors: {}, message: await act(account) };
  } catch (thrown) {
    return refusedForm(thrown, values);
  }
};
