import "server-only";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { logger } from "@/lib/core/log";
import { hashApiKey, isSameHash, parseApiKeyPrefix } from "@/lib/credentials/api-key-format";

// "Your agent's calls and errors" in /developers: the recent calls of each platform key, as the access line
// records them (method, route pattern, status, error code, Request-Id, time; never a body, a query or a
// credential). Chosen over hourly counters because a developer debugging an agent wants the failing call itself
// with its Request-Id, and the newest hundred calls per key are enough for that. The write stays off the request's
// path and bounded: it starts after the answer is made, is dropped (never queued) while too many are in flight,
// and every PRUNE_EVERY-th write of a key deletes what is past its newest KEEP_PER_KEY.

export const KEEP_PER_KEY = 100;
const PRUNE_EVERY = 20;
const MAX_IN_FLIGHT = 32;

export type KeyCall = {
  keyId: string;
  method: string;
  route: string;
  status: number;
  errorCode: string | null;
  requestId: string | null;
  at: Date;
};

let inFlight = 0;
const writes = new Map<string, number>();

const prune = async (keyId: string): Promise<void> => {
  const db = await getDb();
  const boundary = await db.apiKeyCall.findFirst({
    where: { keyId },
    orderBy: [{ at: "desc" }, { id: "desc" }],
    skip: KEEP_PER_KEY - 1,
    select: { at: true },
  });
  if (boundary) await db.apiKeyCall.deleteMany({ where: { keyId, at: { lt: boundary.at } } });
};

/** Records one call of a platform key; never throws, never delays the answer. Resolves when written (tests). */
export const recordKeyCall = async (call: KeyCall): Promise<void> => {
  if (inFlight >= MAX_IN_FLIGHT) return;
  inFlight += 1;
  try {
    const db = await getDb();
    await db.apiKeyCall.create({ data: { id: newId("keyCall"), ...call } });
    const count = (writes.get(call.keyId) ?? 0) + 1;
    writes.set(call.keyId, count % PRUNE_EVERY);
    if (count === 1 || count % PRUNE_EVERY === 0) await prune(call.keyId);
    if (writes.size > 10_000) writes.clear();
  } catch (error) {
    logger().warn(`key call log: ${(error as Error).message}`);
  } finally {
    inFlight -= 1;
  }
};

/** The newest calls of these keys (a developer's own), newest first. */
export const listKeyCalls = async (
  keyIds: readonly string[],
  { limit = 50, errorsOnly = false }: { limit?: number; errorsOnly?: boolean } = {},
): Promise<KeyCall[]> => {
  if (keyIds.length === 0) return [];
  const db = await getDb();
  return db.apiKeyCall.findMany({
    where: {
      keyId: { in: [...keyIds] },
      ...(errorsOnly ? { OR: [{ status: { gte: 400 } }, { errorCode: { not: null } }] } : {}),
    },
    orderBy: [{ at: "desc" }, { id: "desc" }],
    take: Math.min(Math.max(limit, 1), KEEP_PER_KEY),
    select: {
      keyId: true,
      method: true,
      route: true,
      status: true,
      errorCode: true,
      requestId: true,
      at: true,
    },
  });
};

/**
 * The error code of an answer's body: UCP envelope, JSON-RPC error, or OAuth error. A 2xx is only parsed when
 * its envelope (the first bytes) says "error", so a large success body is never parsed here.
 */
export const errorCodeOfBody = (text: string, status = 400): string | null => {
  if (status < 400 && !/"status":\s*"error"/.test(text.slice(0, 200))) return null;
  try {
    const body = JSON.parse(text) as {
      messages?: { code?: unknown }[];
      error?: unknown;
    };
    const ucp = body.messages?.[0]?.code;
    if (typeof ucp === "string") return ucp;
    if (typeof body.error === "string") return body.error;
    const rpc = (body.error as { data?: { code?: unknown } } | undefined)?.data?.code;
    return typeof rpc === "string" ? rpc : null;
  } catch {
    return null;
  }
};

/**
 * The platform key a refused request presented (refused before the surface resolved its caller: a missing
 * Request-Id, a malformed body), so its developer sees that error too; null for anything but a valid, unrevoked key.
 */
export const presentedPlatformKeyId = async (header: string | null): Promise<string | null> => {
  const key = header?.trim() ?? "";
  const prefix = parseApiKeyPrefix(key);
  if (!prefix) return null;
  const db = await getDb();
  const row = await db.platformApiKey.findUnique({ where: { prefix } });
  return row && !row.revokedAt && isSameHash(row.secretHash, hashApiKey(key)) ? row.id : null;
};
