import { AppError } from "@/lib/core/errors";

// Reads a JSON request body with a size cap, before anything is parsed or stored (issue #2 "Bad input").

export const MAX_BODY_BYTES = 1024 * 1024;

const isJsonContentType = (value: string | null): boolean => {
  if (!value) return false;
  const mediaType = value.split(";")[0]?.trim().toLowerCase() ?? "";
  return mediaType === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
};

const tooLarge = (limit: number) =>
  new AppError("payload_too_large", `Request body exceeds ${limit} bytes`, { details: { max_bytes: limit } });

/** Reads the raw body bytes, refusing more than `limit` bytes without buffering the excess. */
export const readBodyBytes = async (request: Request, limit = MAX_BODY_BYTES): Promise<Buffer> => {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
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

/** Reads the raw body as UTF-8 text (see readBodyBytes). */
export const readBodyText = async (request: Request, limit = MAX_BODY_BYTES): Promise<string> =>
  (await readBodyBytes(request, limit)).toString("utf8");

/**
 * Parses a JSON body already read as text (see readBodyText). Empty is `undefined` (operations without input,
 * e.g. cancel, accept it).
 * @throws AppError unsupported_media_type, malformed_json
 */
export const parseJsonText = (text: string, contentType: string | null): unknown => {
  if (text.trim() === "") return undefined;
  if (!isJsonContentType(contentType)) {
    throw new AppError(
      "unsupported_media_type",
      `Content-Type must be application/json, got "${contentType ?? "none"}"`,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const detail = error instanceof SyntaxError ? `: ${error.message}` : "";
    throw new AppError("malformed_json", `Request body is not valid JSON${detail}`);
  }
};

/**
 * Reads and parses a JSON body.
 * @throws AppError payload_too_large, unsupported_media_type, malformed_json
 */
export const parseJsonBody = async (request: Request, limit = MAX_BODY_BYTES): Promise<unknown> =>
  parseJsonText(await readBodyText(request, limit), request.headers.get("content-type"));
