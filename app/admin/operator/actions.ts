"use server";

import { revalidatePath } from "next/cache";

import { refusedState } from "@/components/admin/action-errors";
import type { FormState } from "@/components/admin/form-state";
import { formatMoney } from "@/components/ui/format";
import { viewerLocale } from "@/components/ui/viewer-locale";
import { operatorRevokeKey } from "@/lib/accounts/operator";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { toAppError } from "@/lib/core/errors";
import { operatorIssueCoupon, operatorSettlePayables } from "@/lib/coupons/operator";

// The operator page's actions: thin adapters over lib/accounts/operator.ts and lib/coupons/operator.ts, which
// check the operator role.

const SIGNED_OUT: FormState = { ok: false, errors: { form: "Your session has ended: sign in again." } };

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

const COUPON_FIELDS = ["description", "amount", "currency", "expires_on", "buyer_addresses"] as const;

export async function issueCouponAction(_previous: FormState, data: FormData): Promise<FormState> {
  const account = await getMerchantSession();
  if (!account) return SIGNED_OUT;
  const values = Object.fromEntries(COUPON_FIELDS.map((f) => [f, String(data.get(f) ?? "")]));
  try {
    const { coupon, grants } = await operatorIssueCoupon(account, {
      description: values.description,
      amount: values.amount!,
      currency: values.currency!,
      expires_on: values.expires_on!,
      buyer_addresses: values.buyer_addresses!,
    });
    revalidatePath("/admin/operator");
    return {
      ok: true,
      errors: {},
      message: `Coupon ${coupon.id} issued: ${formatMoney(coupon.amountMinor, coupon.currency, await viewerLocale())} off, to ${grants.length} buyer${grants.length === 1 ? "" : "s"}.`,
    };
  } catch (thrown) {
    return refusedState(toAppError(thrown), values, COUPON_FIELDS);
  }
}

export async function settlePayablesAction(_previous: FormState, data: FormData): Promise<FormState> {
  const account = await getMerchantSession();
  if (!account) return SIGNED_OUT;
  try {
    const { settled } = await operatorSettlePayables(account, {
      store_slug: String(data.get("store_slug") ?? ""),
      payable_ids: data.getAll("payable_id").map(String),
    });
    revalidatePath("/admin/operator");
    return { ok: true, errors: {}, message: `${settled} payable${settled === 1 ? "" : "s"} marked settled.` };
  } catch (thrown) {
    return refusedState(toAppError(thrown));
  }
}
