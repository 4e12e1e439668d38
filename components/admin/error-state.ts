import { toAppError } from "@/lib/core/errors";

import type { FormState } from "./form-state";

// What a store admin action tells its form when the operation refuses: the message beside the field its JSONPath
// names ("$.variants[1].price" → the field named variants.1.price, "$.images[0].url" → images.0.url), or above the form; never an internal detail.

const ROW_LISTS = new Set(["variants", "images", "attributes"]);

/** A JSONPath of our errors as the name of the form field it points at. */
export const fieldOfPath = (path: string | undefined): string => {
  if (!path || path === "$") return "form";
  const parts = path
    .replace(/^\$\.?/, "")
    .replace(/\[(\d+)\]/g, ".$1")
    .split(".")
    .filter(Boolean);
  // a product's variants, images and attributes are rows of fields; other lists (tags…) are one field of the form
  if (ROW_LISTS.has(parts[0] ?? "") && parts.length >= 3) return parts.slice(0, 3).join(".");
  return parts[0] ?? "form";
};

export const errorState = (thrown: unknown, values?: Record<string, string>): FormState => {
  const error = toAppError(thrown);
  if (error.code === "internal_error") {
    return {
      ok: false,
      errors: { form: "Something went wrong on our side: try again in a moment." },
      values,
    };
  }
  if (error.code === "store_not_found") {
    return { ok: false, errors: { form: "This store is not yours to change." }, values };
  }
  if (error.code === "owner_required") {
    return { ok: false, errors: { form: "Only an owner of the store may change this." }, values };
  }
  return { ok: false, errors: { [fieldOfPath(error.path)]: error.message }, values };
};

export const SESSION_ENDED: FormState = {
  ok: false,
  errors: { form: "Your session has ended: sign in again." },
};
