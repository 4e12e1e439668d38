import { AppError, toJsonPath } from "@/lib/core/errors";

// Bad input stopped at the edge: what JSON.parse accepts but nothing behind it should see. PostgreSQL refuses
// U+0000 in text (a 500 deep in Prisma), a lone UTF-16 surrogate cannot be stored or re-encoded as UTF-8,
// `1e999` parses to Infinity (JSON.stringify writes it back as null), and a document nested thousands deep
// overflows the stack of every recursive walker (zod, canonicalize, our own).

/** Deeper than any UCP body (the deepest schema nests < 10 levels). */
export const MAX_JSON_DEPTH = 64;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Refuses JSON text nested deeper than `max` before it is parsed (a linear scan that skips strings), so a
 * 1 MiB body of `[` never reaches a recursive parser or walker.
 * @throws AppError invalid_request
 */
export const assertJsonDepth = (text: string, max = MAX_JSON_DEPTH): void => {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) {
        throw new AppError("invalid_request", `JSON is nested deeper than ${max} levels`, {
          details: { max_depth: max },
        });
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
};

/** Why a string cannot be accepted, or null: U+0000 or an unpaired UTF-16 surrogate. */
export const badStringReason = (value: string): string | null => {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0) return "contains the NUL character (U+0000)";
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return "contains an unpaired UTF-16 surrogate";
    }
    if (c >= 0xdc00 && c <= 0xdfff) return "contains an unpaired UTF-16 surrogate";
  }
  return null;
};

/**
 * Walks a parsed JSON value (depth already bounded by assertJsonDepth) and refuses NUL, lone surrogates (in
 * values and in keys) and non-finite numbers, naming the place as a JSONPath from `root`.
 * @throws AppError invalid_request
 */
export const assertCleanJson = (value: unknown, root = "$"): void => {
  const walk = (node: unknown, segments: (string | number)[]): void => {
    if (typeof node === "string") {
      const reason = badStringReason(node);
      if (reason) {
        const path = toJsonPath(segments, root);
        throw new AppError("invalid_request", `${path}: the string ${reason}`, { path });
      }
    } else if (typeof node === "number") {
      if (!Number.isFinite(node)) {
        const path = toJsonPath(segments, root);
        throw new AppError("invalid_request", `${path}: the number is out of range (not finite)`, { path });
      }
    } else if (Array.isArray(node)) {
      node.forEach((item, index) => walk(item, [...segments, index]));
    } else if (typeof node === "object" && node !== null) {
      for (const [key, item] of Object.entries(node)) {
        const reason = badStringReason(key);
        if (reason) {
          const path = toJsonPath(segments, root);
          throw new AppError("invalid_request", `${path}: a property name ${reason}`, { path });
        }
        walk(item, [...segments, key]);
      }
    }
  };
  walk(value, []);
};
