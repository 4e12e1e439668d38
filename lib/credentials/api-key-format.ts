import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

// Platform API key format: `acs_<prefix>_<secret>`. The prefix (public, unique) finds the row; only a SHA-256
// of the whole key is stored, so a database leak does not leak usable keys. Keys have 256 bits of secret,
// so a fast hash is enough (no password stretching needed).

const KEY_PATTERN = /^acs_([A-Za-z0-9]{12})_([A-Za-z0-9_-]{43})$/;

export const hashApiKey = (key: string): string => createHash("sha256").update(key).digest("hex");

export const generateApiKey = (): { key: string; prefix: string; secretHash: string } => {
  const prefix = randomBytes(9).toString("base64url").replace(/[-_]/g, "0").slice(0, 12);
  const key = `acs_${prefix}_${randomBytes(32).toString("base64url")}`;
  return { key, prefix, secretHash: hashApiKey(key) };
};

/** The lookup prefix of a well-formed key, or null. */
export const parseApiKeyPrefix = (key: string): string | null => KEY_PATTERN.exec(key)?.[1] ?? null;

export const isSameHash = (a: string, b: string): boolean => {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
};
