import { getEnv } from "@/lib/config/env";

import { lastFour, open, parseKeyring, seal, type Keyring } from "./secret-box";

// The service's keyring (STORE_SECRETS_KEY) applied to the store secrets: which field of which store a sealed
// value belongs to is its additional data, so a ciphertext only opens in its own row.

export type StoreSecretField = "stripe_secret_key" | "stripe_webhook_secret";

let cached: { source: string | undefined; keyring: Keyring | null } | undefined;

/** The keyring of this deployment (parsed once per value of STORE_SECRETS_KEY). */
export const storeKeyring = (): Keyring | null => {
  const env = getEnv();
  if (cached && cached.source === env.STORE_SECRETS_KEY) return cached.keyring;
  const keyring = parseKeyring(env.STORE_SECRETS_KEY, env.NODE_ENV === "production");
  cached = { source: env.STORE_SECRETS_KEY, keyring };
  return keyring;
};

const contextOf = (storeId: string, field: StoreSecretField) => `store:${storeId}:${field}`;

/** Seals a store secret for its row. @throws AppError secrets_key_missing */
export const sealStoreSecret = (storeId: string, field: StoreSecretField, plain: string): string =>
  seal(storeKeyring(), plain, contextOf(storeId, field));

/** Opens a stored store secret (null stays null). @throws AppError secrets_key_missing */
export const openStoreSecret = (
  storeId: string,
  field: StoreSecretField,
  stored: string | null,
): string | null => (stored === null ? null : open(storeKeyring(), stored, contextOf(storeId, field)));

/** The last four characters of a stored secret, for the admin (null when unset or unreadable). */
export const storeSecretHint = (
  storeId: string,
  field: StoreSecretField,
  stored: string | null,
): string | null => {
  try {
    const plain = openStoreSecret(storeId, field, stored);
    return plain === null ? null : lastFour(plain);
  } catch {
    return null;
  }
};
