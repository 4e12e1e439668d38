// Deterministic ids for seed rows: same prefixes as lib/config/ids.ts, but derived from a hash of the row's
// natural key, so reseeding yields the same ids (links in demos, docs and bookmarked URLs keep working).
import { createHash } from "node:crypto";

import { ID_PREFIXES, type IdKind } from "@/lib/config/ids";

/** Namespace of every seed hash; bump it to deliberately change all demo ids. */
export const SEED_NAMESPACE = "seed";

// 22 base64url characters = 132 bits, the same length newId() produces from 16 random bytes.
const ID_BODY_LENGTH = 22;

export const seedId = (kind: IdKind, ...parts: readonly (string | number)[]): string => {
  const digest = createHash("sha256")
    .update([SEED_NAMESPACE, ...parts].join("|"))
    .digest("base64url");
  return `${ID_PREFIXES[kind]}_${digest.slice(0, ID_BODY_LENGTH)}`;
};

/** Deterministic 32-byte hex (0x + 64 hex): a plausible Sui address for demo merchants (no key behind it). */
export const seedSuiAddress = (...parts: readonly string[]): string =>
  `0x${createHash("sha256")
    .update([SEED_NAMESPACE, ...parts, "sui"].join("|"))
    .digest("hex")}`;
