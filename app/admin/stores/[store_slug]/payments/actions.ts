"use server";

import { revalidatePath } from "next/cache";

import { refusedState } from "@/components/admin/action-errors";
import type { FormState } from "@/components/admin/form-state";
import { closeOwedBackAs, setCryptoSettingsAs, setStripeKeysAs } from "@/lib/accounts/store-rails";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { toAppError } from "@/lib/core/errors";

// The payments page's actions: the session, then the owner-only operation (lib/accounts/store-rails.ts); a refusal
// comes back beside its field. Secrets are never sent back to the form.

const SIGNED_OUT: FormState = { ok: false, errors: { form: "Your session has ended: sign in again." } };
const text = (data: FormData, name: string) => String(data.get(name) ?? "");
const pathOf = (slug: string) => `/admin/stores/${encodeURIComponent(slug)}/payments`;

export async function saveStripeKeys(slug: string, _p: FormState, data: FormData): Promise<FormState> {
  const account = await getMerchantSession();
  if (!account) return SIGNED_OUT;
  const publishable = text(data, "publishable_key");
  try {
    await setStripeKeysAs(account, slug, {
      secret_key: text(data, "secret_key"),
      publishable_key: publishable,
      webhook_secret: text(data, "webhook_secret"),
    });
  } catch (thrown) {
    return refusedState(toAppError(thrown), { publishable_key: publishable }, [
      "secret_key",
      "publishable_key",
      "webhook_secret",
    ]);
  }
  revalidatePath(pathOf(slug));
  return { ok: true, errors: {}, message: "Stripe keys saved (encrypted)." };
}

export async function saveCryptoSettings(slug: string, _p: FormState, data: FormData): Promise<FormState> {
  const account = await getMerchantSession();
  if (!account) return SIGNED_OUT;
  // the checked coins, in the form's order of preference (one accepted_coins field per checked box)
  const coins = data.getAll("accepted_coins").map(String);
  const values = {
    enabled: data.get("enabled") === "on" ? "on" : "",
    accepted_coins: coins.join(","),
    payout_address: text(data, "payout_address"),
    network: text(data, "network"),
  };
  try {
    await setCryptoSettingsAs(account, slug, {
      enabled: data.get("enabled") === "on",
      accepted_coins: coins,
      payout_address: values.payout_address.trim(),
      network: values.network,
    });
  } catch (thrown) {
    return refusedState(toAppError(thrown), values, [
      "accepted_coins",
      "payout_address",
      "network",
      "enabled",
    ]);
  }
  revalidatePath(pathOf(slug));
  return { ok: true, errors: {}, message: "Crypto settings saved." };
}

export async function closeOwedBackAction(slug: string, _p: FormState, data: FormData): Promise<FormState> {
  const account = await getMerchantSession();
  if (!account) return SIGNED_OUT;
  const values = { id: text(data, "id"), refund_digest: text(data, "refund_digest") };
  try {
    await closeOwedBackAs(account, slug, values);
  } catch (thrown) {
    return refusedState(toAppError(thrown), values, ["refund_digest"]);
  }
  revalidatePath(pathOf(slug));
  return { ok: true, errors: {}, message: `${values.id} closed.` };
}
