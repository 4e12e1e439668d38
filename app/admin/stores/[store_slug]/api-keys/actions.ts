"use server";

import { revalidatePath } from "next/cache";

import { refusedState } from "@/components/admin/action-errors";
import type { CreatedKeyState } from "@/components/admin/key-form";
import { createMerchantKeyAs, revokeMerchantKeyAs } from "@/lib/accounts/store-rails";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { toAppError } from "@/lib/core/errors";

// The API-keys page's actions: an owner creates (shown once) and revokes the store's merchant keys.

const pathOf = (slug: string) => `/admin/stores/${encodeURIComponent(slug)}/api-keys`;

export async function createMerchantKeyAction(
  slug: string,
  _previous: CreatedKeyState,
  data: FormData,
): Promise<CreatedKeyState> {
  const account = await getMerchantSession();
  if (!account) return { ok: false, errors: { form: "Your session has ended: sign in again." } };
  const name = String(data.get("name") ?? "");
  try {
    const created = await createMerchantKeyAs(account, slug, {
      name,
      permissions: data.getAll("permissions").map(String) as never,
    });
    revalidatePath(pathOf(slug));
    return { ok: true, errors: {}, key: created.key, name: created.name };
  } catch (thrown) {
    return refusedState(toAppError(thrown), { name }, ["name", "permissions"]);
  }
}

export async function revokeMerchantKeyAction(slug: string, data: FormData): Promise<void> {
  const account = await getMerchantSession();
  const id = data.get("id");
  if (!account || typeof id !== "string") return;
  try {
    await revokeMerchantKeyAs(account, slug, id);
  } catch (thrown) {
    // not this store's key, or no right to revoke: nothing changes, nothing to say
    const code = toAppError(thrown).code;
    if (code !== "not_found" && code !== "owner_required" && code !== "store_not_found") throw thrown;
  }
  revalidatePath(pathOf(slug));
}
