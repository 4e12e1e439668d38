"use server";

import { revalidatePath } from "next/cache";

import type { CreatedKeyState } from "@/components/admin/key-form";
import { getMerchantSession } from "@/lib/auth/get-merchant-session";
import { toAppError } from "@/lib/core/errors";
import { createApiKey } from "@/lib/credentials/create-api-key";
import { revokeApiKey } from "@/lib/credentials/manage-api-keys";
import { PLATFORM_PERMISSIONS, type PlatformPermission } from "@/lib/credentials/principal";

// The developer area's actions: a signed-in account creates and revokes its own platform keys (the same
// operations as the operator's CLI, scoped to the account).

export async function createDeveloperKey(
  _previous: CreatedKeyState,
  data: FormData,
): Promise<CreatedKeyState> {
  const account = await getMerchantSession();
  if (!account) return { ok: false, errors: { form: "Your session has ended: sign in again." } };
  const name = String(data.get("name") ?? "").trim();
  const permissions = data
    .getAll("permissions")
    .map(String)
    .filter((p): p is PlatformPermission => (PLATFORM_PERMISSIONS as readonly string[]).includes(p));
  if (!name)
    return { ok: false, errors: { name: "Name the key after the agent or environment that uses it" } };
  if (name.length > 100) return { ok: false, errors: { name: "Use at most 100 characters" } };
  try {
    const created = await createApiKey({ name, permissions }, { accountId: account.id });
    revalidatePath("/developers");
    return { ok: true, errors: {}, key: created.key, name: created.name };
  } catch (thrown) {
    const error = toAppError(thrown);
    return {
      ok: false,
      errors: { form: error.code === "internal_error" ? "Something went wrong: try again." : error.message },
    };
  }
}

export async function revokeDeveloperKey(data: FormData): Promise<void> {
  const account = await getMerchantSession();
  const id = data.get("id");
  if (!account || typeof id !== "string") return;
  try {
    await revokeApiKey(id, new Date(), { accountId: account.id });
  } catch (thrown) {
    // another account's key, or none: nothing to revoke, nothing to say
    if (toAppError(thrown).code !== "not_found") throw thrown;
  }
  revalidatePath("/developers");
}
