"use server";

import { revalidatePath } from "next/cache";

import { errorState, SESSION_ENDED } from "@/components/admin/error-state";
import type { FormState } from "@/components/admin/form-state";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { POSITION_FORMAT, splitPosition } from "@/lib/stores/location-position";
import { runStoreAdminOp } from "@/lib/stores/store-admin-ops";

// The settings page's actions: each reads its form, runs the store admin operation (which checks the account's
// role in the store, owner here) and answers the form with the refusal beside its field, or a notice.

const text = (data: FormData, names: string[]): Record<string, string> =>
  Object.fromEntries(names.map((name) => [name, String(data.get(name) ?? "")]));

const path = (slug: string) => `/admin/stores/${encodeURIComponent(slug)}/settings`;

export async function updateSettingsAction(
  slug: string,
  _previous: FormState,
  data: FormData,
): Promise<FormState> {
  const account = await getMerchantSession();
  if (!account) return SESSION_ENDED;
  const values = text(data, ["name", "currency", "mode", "taxRate"]);
  try {
    await runStoreAdminOp(account, slug, "updateSettings", values);
  } catch (thrown) {
    return errorState(thrown, values);
  }
  revalidatePath(`/admin/stores/${encodeURIComponent(slug)}`, "layout");
  return { ok: true, errors: {}, message: "Settings saved.", values };
}

export async function updateAgentRequestsAction(
  slug: string,
  _previous: FormState,
  data: FormData,
): Promise<FormState> {
  const account = await getMerchantSession();
  if (!account) return SESSION_ENDED;
  const values = text(data, ["agentCancellations", "agentRefundAuto", "rememberAddresses"]);
  try {
    await runStoreAdminOp(account, slug, "updateAgentRequests", values);
  } catch (thrown) {
    return errorState(thrown, values);
  }
  revalidatePath(path(slug));
  return { ok: true, errors: {}, message: "Saved: agents follow these rules from now on.", values };
}

export async function forgetSavedAddressesAction(
  slug: string,
  _previous: FormState,
  data: FormData,
): Promise<FormState> {
  const account = await getMerchantSession();
  if (!account) return SESSION_ENDED;
  const values = text(data, ["email"]);
  let forgotten: { email: string; forgotten: number };
  try {
    forgotten = await runStoreAdminOp(account, slug, "forgetSavedAddresses", values);
  } catch (thrown) {
    return errorState(thrown, values);
  }
  const { email, forgotten: count } = forgotten;
  return {
    ok: true,
    errors: {},
    message:
      count === 0
        ? `No address was kept for ${email}.`
        : `Forgot ${count} address${count === 1 ? "" : "es"} kept for ${email}.`,
  };
}

export async function createShippingRateAction(
  slug: string,
  _previous: FormState,
  data: FormData,
): Promise<FormState> {
  const account = await getMerchantSession();
  if (!account) return SESSION_ENDED;
  const values = text(data, [
    "code",
    "title",
    "country",
    "region",
    "price",
    "freeOver",
    "freeForTag",
    "minDays",
    "maxDays",
  ]);
  try {
    await runStoreAdminOp(account, slug, "createShippingRate", values);
  } catch (thrown) {
    return errorState(thrown, values);
  }
  revalidatePath(path(slug));
  return { ok: true, errors: {}, message: `Shipping rate "${values.title}" added.` };
}

export async function createLocationAction(
  slug: string,
  _previous: FormState,
  data: FormData,
): Promise<FormState> {
  const account = await getMerchantSession();
  if (!account) return SESSION_ENDED;
  const values = text(data, [
    "name",
    "streetAddress",
    "locality",
    "region",
    "postalCode",
    "country",
    "position",
  ]);
  const { position, ...address } = values;
  const point = splitPosition(position ?? "");
  if (!point) return { ok: false, errors: { position: POSITION_FORMAT }, values };
  try {
    await runStoreAdminOp(account, slug, "createLocation", {
      ...address,
      ...point,
      services: data.getAll("services").map(String),
    });
  } catch (thrown) {
    const state = errorState(thrown, values);
    // the schema checks latitude and longitude; the form has them in one field
    const { latitude, longitude, ...errors } = state.errors;
    const onPosition = latitude ?? longitude;
    return { ...state, errors: onPosition ? { ...errors, position: onPosition } : errors };
  }
  revalidatePath(path(slug));
  return { ok: true, errors: {}, message: `Location "${values.name}" added.` };
}

export async function deleteStoreItemAction(
  slug: string,
  kind: "shippingRate" | "location",
  id: string,
  _previous: FormState,
  _data: FormData,
): Promise<FormState> {
  const account = await getMerchantSession();
  if (!account) return SESSION_ENDED;
  try {
    await runStoreAdminOp(account, slug, kind === "location" ? "deleteLocation" : "deleteShippingRate", {
      id,
    });
  } catch (thrown) {
    return errorState(thrown);
  }
  revalidatePath(path(slug));
  return { ok: true, errors: {}, message: "Removed." };
}
