import type { FormState } from "./form-state";

/**
 * A refused action's form state: a domain error beside the field its JSONPath names (`$.secret_key` → secret_key,
 * `$.accepted_coins[1]` → accepted_coins), anything else for the form as a whole; never an internal message.
 */
export const refusedState = (
  error: { code: string; message: string; path?: string },
  values?: Record<string, string>,
  fields: readonly string[] = [],
): FormState => {
  if (error.code === "internal_error") {
    return {
      ok: false,
      errors: { form: "Something went wrong on our side: try again in a moment." },
      values,
    };
  }
  const field = /^\$\.([a-z_]+)/.exec(error.path ?? "")?.[1];
  const key = field && fields.includes(field) ? field : "form";
  return { ok: false, errors: { [key]: error.message }, values };
};
