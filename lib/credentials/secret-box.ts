import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

import { AppError } from "@/lib/core/errors";

// Store secrets at rest (a live store's Stripe secret key and webhook signing secret): AES-256-GCM with a key from
// the environment. Each ciphertext names the id of the key that sealed it (`enc:v1:<kid>:<iv>:<tag>:<data>`), so
// the keyring can hold an old key beside a new one while `rotate-store-secrets` re-seals every row with the new
// one. The additional data binds a ciphertext to its store and field: a value copied into another store's row
// does not open. A value without the `enc:` prefix is a row written before encryption (plain text); it is read
// as it is and sealed by the next rotation.

export type Keyring = {
  /** The key that seals: the first of STORE_SECRETS_KEY. */
  current: { id: string; key: Buffer };
  /** Every key that opens, by id. */
  keys: ReadonlyMap<string, Buffer>;
};

const PREFIX = "enc:v1:";

/** Outside production, with no keyring configured: a fixed, public development key (never a secret). */
const DEV_KEY_ID = "dev";
const DEV_KEY = createHash("sha256").update("agent-commerce-service development store secrets").digest();

/** The development keyring as STORE_SECRETS_KEY spells it, for a server Next runs as production (serve.ts). */
export const DEV_KEYRING = `${DEV_KEY_ID}:${DEV_KEY.toString("base64")}`;

/**
 * Parses STORE_SECRETS_KEY (`id:base64,id:base64…`, the first sealing). Unset: the development key outside
 * production, no keyring in production.
 * @throws Error on a malformed entry or a key that is not 32 bytes
 */
export const parseKeyring = (value: string | undefined, production: boolean): Keyring | null => {
  const entries: [string, Buffer][] = (value ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean)
    .map((entry) => {
      const at = entry.indexOf(":");
      const id = entry.slice(0, at);
      const key = Buffer.from(entry.slice(at + 1), "base64");
      if (at < 1 || key.length !== 32) {
        throw new Error(`STORE_SECRETS_KEY: key "${id || entry}" must be <id>:<base64 of 32 bytes>`);
      }
      return [id, key];
    });
  if (!production) entries.push([DEV_KEY_ID, DEV_KEY]);
  const [first] = entries;
  if (!first) return null;
  const keys = new Map<string, Buffer>();
  for (const [id, key] of entries) if (!keys.has(id)) keys.set(id, key);
  return { current: { id: first[0], key: first[1] }, keys };
};

const noKeyring = () =>
  new AppError("secrets_key_missing", "STORE_SECRETS_KEY is not set: store secrets cannot be sealed");

/** Whether a stored value is sealed (else it is a plain-text row from before encryption). */
export const isSealed = (stored: string): boolean => stored.startsWith(PREFIX);

/** The key id a sealed value names, or null for a plain-text row. */
export const sealedKeyId = (stored: string): string | null =>
  isSealed(stored) ? (stored.slice(PREFIX.length).split(":")[0] ?? null) : null;

/** Seals `plain` with the keyring's current key, bound to `context` (store id and field). */
export const seal = (keyring: Keyring | null, plain: string, context: string): string => {
  if (!keyring) throw noKeyring();
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", keyring.current.key, iv);
  cipher.setAAD(Buffer.from(context, "utf8"));
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  const parts = [iv, cipher.getAuthTag(), data].map((b) => b.toString("base64url"));
  return `${PREFIX}${keyring.current.id}:${parts.join(":")}`;
};

/**
 * Opens a stored value sealed for `context`; a plain-text row is returned as it is.
 * @throws AppError secrets_key_missing (the key it names is not in the keyring); Error when it was tampered with
 *   or sealed for another context
 */
export const open = (keyring: Keyring | null, stored: string, context: string): string => {
  if (!isSealed(stored)) return stored;
  const [id = "", iv = "", tag = "", data = ""] = stored.slice(PREFIX.length).split(":");
  const key = keyring?.keys.get(id);
  if (!key) {
    throw new AppError(
      "secrets_key_missing",
      `A store secret is sealed with key "${id}", which STORE_SECRETS_KEY no longer holds`,
    );
  }
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
  decipher.setAAD(Buffer.from(context, "utf8"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
};

/** Whether a stored value needs re-sealing with the current key (plain text, or sealed with an older key). */
export const needsReseal = (keyring: Keyring | null, stored: string): boolean =>
  keyring !== null && sealedKeyId(stored) !== keyring.current.id;

/** The last four characters of a secret, the only part ever shown back. */
export const lastFour = (plain: string): string => plain.slice(-4);
