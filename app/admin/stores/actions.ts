"use server";

import { redirect } from "next/navigation";

import type { FormState } from "@/components/admin/form-state";
import { fieldErrors } from "@/lib/accounts/schemas";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { toAppError } from "@/lib/core/errors";
import { createStore, CreateStoreInputSchema } from "@/lib/stores/create-store";

export async function createStoreAction(_previous: FormState, data: FormData): Promise<FormState> {
  const account = await getMerchantSession();
  if (!account) return { ok: false, errors: { form: "Your session has ended: sign in again." } };
  const input = Object.fromEntries(
    ["name", "slug", "currency", "country", "shipping", "shipsTo", "shippingRate"].map((name) => [
      name,
      String(data.get(name) ?? ""),
    ]),
  );
  const parsed = CreateStoreInputSchema.safeParse(input);
  if (!parsed.success) return { ok: false, errors: fieldErrors(parsed.error), values: input };
  let slug: string;
  try {
    slug = (await createStore(input, account.id)).slug;
  } catch (thrown) {
    const error = toAppError(thrown);
    if (error.code === "internal_error") {
      return {
        ok: false,
        errors: { form: "Something went wrong on our side: try again in a moment." },
        values: input,
      };
    }
    return {
      ok: false,
      errors: { [error.path?.replace(/^\$\./, "") ?? "form"]: error.message },
      values: input,
    };
  }
  redirect(`/admin/stores/${slug}`);
}
