"use server";

import type { FormState } from "@/components/admin/form-state";
import { confirmPasswordReset, createAccount, requestPasswordReset } from "@/lib/accounts/accounts";
import { fieldErrors, SignUpSchema } from "@/lib/accounts/schemas";
import { getBaseUrl } from "@/lib/config/env";
import { toAppError } from "@/lib/core/errors";

// The account forms' server actions: each parses on the server with the same schema as everywhere else
// (lib/accounts/schemas.ts) and answers with the error of the field it names, never a stack trace.

const field = (path: string | undefined): string => path?.replace(/^\$\./, "").split(".")[0] ?? "form";

const refused = (thrown: unknown): FormState => {
  const error = toAppError(thrown);
  if (error.code === "internal_error") {
    return { ok: false, errors: { form: "Something went wrong on our side: try again in a moment." } };
  }
  return { ok: false, errors: { [field(error.path)]: error.message } };
};

const fields = (data: FormData, names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, String(data.get(name) ?? "")]));

export async function signUp(_previous: FormState, data: FormData): Promise<FormState> {
  const input = fields(data, ["name", "email", "password"]);
  // every field's problem at once, beside each field (the operation then refuses what only it can know)
  const parsed = SignUpSchema.safeParse(input);
  if (!parsed.success) return { ok: false, errors: fieldErrors(parsed.error) };
  try {
    await createAccount(input);
    return { ok: true, errors: {} };
  } catch (thrown) {
    return refused(thrown);
  }
}

export async function askForPasswordReset(_previous: FormState, data: FormData): Promise<FormState> {
  const values = fields(data, ["email"]);
  try {
    await requestPasswordReset(values, { baseUrl: getBaseUrl() });
    return {
      ok: true,
      errors: {},
      message:
        "If an account uses this address, a link to choose a new password is on its way (valid 30 minutes).",
    };
  } catch (thrown) {
    return refused(thrown);
  }
}

export async function resetPassword(_previous: FormState, data: FormData): Promise<FormState> {
  try {
    await confirmPasswordReset(fields(data, ["token", "password"]));
    return { ok: true, errors: {}, message: "Your password is changed: sign in with it." };
  } catch (thrown) {
    return refused(thrown);
  }
}
