import { AppError } from "@/lib/core/errors";
import { knownBytes } from "@/lib/core/known-body";
import { timeStage, timeStageSync } from "@/lib/ops/server-timing";

import { assertCleanJson, assertJsonDepth } from "./json-guard";

// Reads a JSON request body with a size cap, before anything is parsed or stored.

export const MAX_BODY_BYTES = 1024 * 1024;

const isJsonContentType = (value: string | null): boolean => {
  if (!value) return false;
  const mediaType = value.split(";")[0]?.trim().toLowerCase() ?? "";
  return mediaType === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
};

// The rest of an oversized body is never read, so the connection cannot carry another request: the answer
// says `Connection: close` and the HTTP server closes the socket after it (a keep-alive client would
// otherwise send its next request into the unread body and wait for an answer that never comes).
const tooLarge = (limit: number) =>
  new AppError("payload_too_large", `Request body exceeds ${limit} bytes`, {
    details: { max_bytes: limit },
    headers: { connection: "close" },
  });

/** Reads the raw body bytes, refusing more than `limit` bytes without buffering the excess. */
export const readBodyBytes = (request: Request, limit = MAX_BODY_BYTES): Promise<Buffer> =>
  timeStage("envelope", () => readBodyBytesUntimed(request, limit));

const readBodyBytesUntimed = async (request: Request, limit: number): Promise<Buffer> => {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  // read by the HTTP server already (lib/core/known-body.ts)
  const known = knownBytes(request);
  if (known !== undefined) {
    if (known.byteLength > limit) throw tooLarge(limit);
    return Buffer.from(known.buffer, known.byteOffset, known.byteLength);
  }
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
};

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/**
 * Decodes bytes as UTF-8, refusing invalid sequences (a lenient decoder would turn them into U+FFFD and a
 * signed or hashed body would no longer be the bytes the client sent).
 * @throws AppError malformed_json
 */
export const decodeUtf8 = (bytes: Uint8Array): string => {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new AppError("malformed_json", "Request body is not valid UTF-8");
  }
};

/** Reads the raw body as UTF-8 text (see readBodyBytes). */
export const readBodyText = async (request: Request, limit = MAX_BODY_BYTES): Promise<string> =>
  decodeUtf8(await readBodyBytes(request, limit));

/**
 * Parses a JSON body already read as text (see readBodyText). Empty is `undefined` (operations without input,
 * e.g. cancel, accept it). The depth is bounded before parsing; NUL, lone surrogates and non-finite numbers are
 * refused after (json-guard.ts), so nothing behind the edge sees them.
 * @throws AppError unsupported_media_type, malformed_json, invalid_request
 */
export const parseJsonText = (text: string, contentType: string | null): unknown =>
  timeStageSync("envelope", () => parseJsonTextUntimed(text, contentType));

const parseJsonTextUntimed = (text: string, contentType: string | null): unknown => {
  if (text.trim() === "") return undefined;
  if (!isJsonContentType(contentType)) {
    throw new AppError(
      "unsupported_media_type",
      `Content-Type must be application/json, got "${contentType ?? "none"}"`,
    );
  }
  assertJsonDepth(text);
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    const detail = error instanceof SyntaxError ? `: ${error.message}` : "";
    throw new AppError("malformed_json", `Request body is not valid JSON${detail}`);
  }
  assertCleanJson(value);
  return value;
};

/**
 * Reads and parses a JSON body.
 * @throws AppError payload_too_large, unsupported_media_type, malformed_json
 */
export const parseJsonBody = async (request: Request, limit = MAX_BODY_BYTES): Promise<unknown> =>
  parseJsonText(await readBodyText(request, limit), request.headers.get("content-type"));
