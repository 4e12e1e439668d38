import { createHash } from "node:crypto";

import { parseDictionary } from "structured-headers";

// Content-Digest (RFC 9530) over the raw body bytes — never over re-serialized JSON (CONTRACT.md §13). We send
// sha-256; we accept sha-256 and sha-512 and ignore algorithms we do not know, as RFC 9530 §2 allows, but at
// least one known digest must be present and every known one must match.

const ALGORITHMS = { "sha-256": "sha256", "sha-512": "sha512" } as const;
type DigestAlgorithm = keyof typeof ALGORITHMS;

const bytesOf = (body: Uint8Array | string): Buffer =>
  typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body);

/** `sha-256=:<base64>:` for `body`. */
export const contentDigest = (body: Uint8Array | string, algorithm: DigestAlgorithm = "sha-256"): string =>
  `${algorithm}=:${createHash(ALGORITHMS[algorithm]).update(bytesOf(body)).digest("base64")}:`;

export type DigestCheck = "match" | "mismatch" | "malformed" | "unsupported";

/** Checks a Content-Digest header value against the raw body. */
export const checkContentDigest = (header: string, body: Uint8Array | string): DigestCheck => {
  let dictionary;
  try {
    dictionary = parseDictionary(header);
  } catch {
    return "malformed";
  }
  let known = 0;
  for (const [name, member] of dictionary) {
    if (!(name in ALGORITHMS)) continue;
    const [value] = member;
    if (!(value instanceof ArrayBuffer)) return "malformed";
    known++;
    const expected = createHash(ALGORITHMS[name as DigestAlgorithm])
      .update(bytesOf(body))
      .digest();
    if (!expected.equals(Buffer.from(value))) return "mismatch";
  }
  return known === 0 ? "unsupported" : "match";
};
