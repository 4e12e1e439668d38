import "server-only";

import { getDb } from "@/lib/config/db";

import { needsReseal } from "./secret-box";
import { openStoreSecret, sealStoreSecret, storeKeyring, type StoreSecretField } from "./store-secrets";

const FIELDS = [
  ["stripeSecretKey", "stripe_secret_key"],
  ["stripeWebhookSecret", "stripe_webhook_secret"],
] as const satisfies readonly (readonly [string, StoreSecretField])[];

export type RotationReport = { keyId: string; resealed: number; current: number };

/**
 * Re-seals every store secret with the keyring's current key (STORE_SECRETS_KEY's first): rows sealed with an
 * older key, and plain-text rows from before encryption. Each row is updated only if it still holds the value
 * read, so a merchant changing a key meanwhile is never overwritten. After it, the older keys can be dropped.
 * @throws AppError secrets_key_missing (no keyring, or a row names a key the keyring lacks)
 */
export const rotateStoreSecrets = async (): Promise<RotationReport> => {
  const keyring = storeKeyring();
  const db = await getDb();
  const stores = await db.store.findMany({
    where: { OR: [{ stripeSecretKey: { not: null } }, { stripeWebhookSecret: { not: null } }] },
    select: { id: true, stripeSecretKey: true, stripeWebhookSecret: true },
  });
  let resealed = 0;
  let current = 0;
  for (const store of stores) {
    for (const [column, field] of FIELDS) {
      const stored = store[column];
      if (stored === null) continue;
      if (!needsReseal(keyring, stored)) {
        current += 1;
        continue;
      }
      const plain = openStoreSecret(store.id, field, stored)!;
      const { count } = await db.store.updateMany({
        where: { id: store.id, [column]: stored },
        data: { [column]: sealStoreSecret(store.id, field, plain) },
      });
      resealed += count;
    }
  }
  return { keyId: keyring?.current.id ?? "", resealed, current };
};
