import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

// API key format: `acs_<prefix>_<secret>` for a platform key (every store's shopping surfaces), `acsm_<prefix>_<secret>`
// for a merchant key (one store's merchant REST API). The prefix (public, unique per kind) finds the row; only a
// SHA-256 of the whole key is stored, so a database leak does not leak usable keys. Keys have 256 bits of secret,
// so a fast hash is enough (no password stretching needed). The two kinds never parse as each other, so neither
// opens the other's surface.

export type ApiKeyKind = "platform" | "merchant";

const TAG: Record<ApiKeyKind, string> = { platform: "acs", merchant: "acsm" };
const PATTERN: Record<ApiKeyKind, RegExp> = {
  platform: /^acs_([A-Za-z0-9]{12})_([A-Za-z0-9_-]{43})$/,
  merchant: /^acsm_([A-Za-z0-9]{12})_([A-Za-z0-9_-]{43})$/,
};

export const hashApiKey = (key: string): string => createHash("sha256").update(key).digest("hex");

export const generateApiKey = (
  kind: ApiKeyKind = "platform",
): { key: string; prefix: string; secretHash: string } => {
  const prefix = randomBytes(9).toString("base64url").replace(/[-_]/g, "0").slice(0, 12);
  const key = `${TAG[kind]}_${prefix}_${randomBytes(32).toString("base64url")}`;
  return { key, prefix, secretHash: hashApiKey(key) };
};

/** The lookup prefix of a well-formed key of `kind`, or null. */
export const parseApiKeyPrefix = (key: string, kind: ApiKeyKind = "platform"): string | null =>
  PATTERN[kind].exec(key)?.[1] ?? null;

export const isSameHash = (a: string, b: string): boolean => {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
};
