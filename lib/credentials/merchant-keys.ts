import "server-only";

import { z } from "zod";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";
import { guardAuthCheck } from "@/lib/rate-limit/auth-failures";

import { generateApiKey, hashApiKey, isSameHash, parseApiKeyPrefix } from "./api-key-format";

// Merchant API keys: one store's key for its merchant REST API (lib/merchant-api), created by the store's owner in
// the admin. A kind of its own (acsm_…), stored hashed like platform keys, never accepted where a platform key is,
// and a platform key is never accepted here. A key of store A on store B is answered exactly as an unknown store.

export const MERCHANT_PERMISSIONS = [
  "settings:read",
  "settings:write",
  "orders:read",
  "orders:write",
  "catalog:read",
  "catalog:write",
] as const;
export type MerchantPermission = (typeof MERCHANT_PERMISSIONS)[number];

export const MERCHANT_PERMISSION_LABELS: Record<MerchantPermission, string> = {
  "settings:read": "Read store, payment, webhook, shipping and location settings",
  "settings:write": "Change store, payment, webhook, shipping and location settings, close money owed back",
  "orders:read": "Read orders",
  "orders:write": "Fulfil, cancel and refund orders",
  "catalog:read": "Read products and catalog imports",
  "catalog:write": "Create, change and delete products, import catalog files",
};

export const CreateMerchantKeyInputSchema = z.object({
  name: z.string().trim().min(1, "Give the key a name").max(100, "At most 100 characters"),
  permissions: z
    .array(z.enum(MERCHANT_PERMISSIONS, "Unknown permission"))
    .min(1, "Choose at least one permission"),
});
export type CreateMerchantKeyInput = z.input<typeof CreateMerchantKeyInputSchema>;

export type MerchantKeySummary = {
  id: string;
  name: string;
  prefix: string;
  permissions: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

const SUMMARY = {
  id: true,
  name: true,
  prefix: true,
  permissions: true,
  createdAt: true,
  lastUsedAt: true,
  revokedAt: true,
} as const;

/**
 * Creates a merchant key of `store`; the plain key is returned once and never stored (only its hash).
 * @throws ZodError for an empty name or no/unknown permission
 */
export const createMerchantKey = async (
  store: Pick<Store, "id">,
  input: CreateMerchantKeyInput,
  { accountId = null }: { accountId?: string | null } = {},
): Promise<MerchantKeySummary & { key: string }> => {
  const { name, permissions } = CreateMerchantKeyInputSchema.parse(input);
  const { key, prefix, secretHash } = generateApiKey("merchant");
  const db = await getDb();
  const row = await db.merchantApiKey.create({
    data: {
      id: newId("merchantKey"),
      storeId: store.id,
      name,
      prefix,
      secretHash,
      permissions: [...new Set(permissions)],
      createdBy: accountId,
    },
    select: SUMMARY,
  });
  return { ...row, key };
};

/** The merchant keys of one store (never their secrets), oldest first. */
export const listMerchantKeys = async (store: Pick<Store, "id">): Promise<MerchantKeySummary[]> => {
  const db = await getDb();
  return db.merchantApiKey.findMany({
    where: { storeId: store.id },
    orderBy: { createdAt: "asc" },
    select: SUMMARY,
  });
};

/**
 * Revokes a key of `store` (another store's key is not_found, as if it did not exist); twice keeps the first time.
 * @throws AppError not_found
 */
export const revokeMerchantKey = async (
  store: Pick<Store, "id">,
  id: string,
  now = new Date(),
): Promise<MerchantKeySummary> => {
  const db = await getDb();
  const existing = await db.merchantApiKey.findFirst({ where: { id, storeId: store.id } });
  if (!existing) throw new AppError("not_found", `No merchant key ${id} in this store`);
  if (!existing.revokedAt) {
    await db.merchantApiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: now } });
  }
  return db.merchantApiKey.findUniqueOrThrow({ where: { id }, select: SUMMARY });
};

export type MerchantCaller = { keyId: string; storeId: string; permissions: readonly string[] };

const LAST_USED_GRANULARITY_MS = 60_000;

const invalid = (message: string) => new AppError("invalid_merchant_key", message);

/**
 * The merchant key an X-API-Key header carries. Failures count against the caller's failed-authentication budget
 * (lib/rate-limit/auth-failures.ts), as platform keys do.
 * @throws AppError invalid_merchant_key, rate_limited
 */
export const resolveMerchantKey = (header: string | null): Promise<MerchantCaller> => {
  const key = (header ?? "").trim();
  const prefix = parseApiKeyPrefix(key, "merchant");
  return guardAuthCheck(prefix && `mkey:${prefix}`, ["invalid_merchant_key"], async () => {
    if (!key) throw invalid("Send X-API-Key with a merchant key of this store (acsm_…)");
    if (!prefix) throw invalid("X-API-Key is not a merchant key (acsm_…)");
    const db = await getDb();
    const row = await db.merchantApiKey.findUnique({ where: { prefix } });
    if (!row || !isSameHash(row.secretHash, hashApiKey(key))) throw invalid("Unknown merchant key");
    if (row.revokedAt) throw invalid("This merchant key has been revoked");
    const now = new Date();
    if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_GRANULARITY_MS) {
      await db.merchantApiKey.updateMany({
        where: {
          id: row.id,
          OR: [
            { lastUsedAt: null },
            { lastUsedAt: { lt: new Date(now.getTime() - LAST_USED_GRANULARITY_MS) } },
          ],
        },
        data: { lastUsedAt: now },
      });
    }
    return { keyId: row.id, storeId: row.storeId, permissions: row.permissions };
  });
};
