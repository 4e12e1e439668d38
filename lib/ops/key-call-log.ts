import "server-only";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { onShutdown } from "@/lib/config/shutdown";
import { execute, sql } from "@/lib/config/sql";
import { logger } from "@/lib/core/log";
import { hashApiKey, isSameHash, parseApiKeyPrefix } from "@/lib/credentials/api-key-format";

// "Your agent's calls and errors" in /developers: the recent calls of each platform key, as the access line
// records them (method, route pattern, status, error code, Request-Id, time; never a body, a query or a
// credential). Chosen over hourly counters because a developer debugging an agent wants the failing call itself
// with its Request-Id, and the newest hundred calls per key are enough for that. The write stays off the request's
// path and bounded: it starts after the answer is made; a call after a quiet spell is written at once, and calls
// arriving within WRITE_EVERY_MS of the last write wait for the next one and go in together (one INSERT a
// WRITE_EVERY_MS under steady traffic instead of one per call, and none when idle; a full BATCH is written
// without waiting); past MAX_QUEUED waiting calls new ones are dropped, never queued; and a key whose calls since
// its last prune reached PRUNE_EVERY has what is past its newest KEEP_PER_KEY deleted, in one statement.

export const KEEP_PER_KEY = 100;
const PRUNE_EVERY = 20;
const MAX_QUEUED = 1000;
const BATCH = 200;
/** At most one write this often, unless a whole batch waits: a developer sees a call within this bound. */
export const WRITE_EVERY_MS = 500;

export type KeyCall = {
  keyId: string;
  method: string;
  route: string;
  status: number;
  errorCode: string | null;
  requestId: string | null;
  at: Date;
};

type Queued = { call: KeyCall; written: () => void; done: Promise<void> };
let queue: Queued[] = [];
/** The batch being written. */
let inFlight: Queued[] = [];
let writing = false;
let lastWriteAt = 0;
let timer: NodeJS.Timeout | null = null;
const sinceLastPrune = new Map<string, number>();

/** Deletes what is past the key's newest KEEP_PER_KEY calls (newest by time, then id, as listKeyCalls orders). */
const prune = async (keyId: string): Promise<void> => {
  await execute(sql`
    DELETE FROM api_key_calls
    WHERE key_id = ${keyId} AND at < (
      SELECT at FROM api_key_calls WHERE key_id = ${keyId}
      ORDER BY at DESC, id DESC OFFSET ${KEEP_PER_KEY - 1} LIMIT 1)`);
};

/** The keys whose count of calls since their last prune reached PRUNE_EVERY (a key's first call prunes too). */
const keysToPrune = (calls: readonly KeyCall[]): string[] => {
  const due: string[] = [];
  for (const { keyId } of calls) {
    const seen = sinceLastPrune.get(keyId);
    const count = (seen ?? 0) + 1;
    if (seen === undefined || count >= PRUNE_EVERY) {
      if (!due.includes(keyId)) due.push(keyId);
      sinceLastPrune.set(keyId, 0);
    } else sinceLastPrune.set(keyId, count);
  }
  if (sinceLastPrune.size > 10_000) sinceLastPrune.clear();
  return due;
};

/** Writes the waiting calls, a BATCH at a time, then schedules the next write if more arrived meanwhile. */
const write = async (): Promise<void> => {
  writing = true;
  lastWriteAt = Date.now();
  const batch = queue.slice(0, BATCH);
  queue = queue.slice(BATCH);
  inFlight = batch;
  try {
    const rows = batch.map(({ call }) => ({
      id: newId("keyCall"),
      key_id: call.keyId,
      method: call.method,
      route: call.route,
      status: call.status,
      error_code: call.errorCode,
      request_id: call.requestId,
      at: call.at.toISOString(),
    }));
    // one statement whatever the batch's size, the rows as one JSON parameter, on the driver adapter
    // (lib/config/sql.ts): Prisma's createMany compiles a new plan for every batch (docs/decisions.md "Plans
    // Prisma can reuse"), which under steady traffic cost more than the write itself
    await execute(sql`
      INSERT INTO api_key_calls (id, key_id, method, route, status, error_code, request_id, at)
      SELECT id, key_id, method, route, status, error_code, request_id, at
      FROM jsonb_to_recordset(CAST(${JSON.stringify(rows)} AS jsonb))
        AS r(id text, key_id text, method text, route text, status integer, error_code text, request_id text,
             at timestamp(3))`);
    for (const keyId of keysToPrune(batch.map((b) => b.call))) await prune(keyId);
  } catch (error) {
    logger().warn(`key call log: ${(error as Error).message}`);
  } finally {
    writing = false;
    inFlight = [];
    for (const { written } of batch) written();
    schedule();
  }
};

/** Starts a write now (a quiet spell before it, or a full batch waiting), else once WRITE_EVERY_MS has passed. */
const schedule = (): void => {
  if (writing || queue.length === 0) return;
  const wait = queue.length >= BATCH ? 0 : lastWriteAt + WRITE_EVERY_MS - Date.now();
  if (wait <= 0) {
    if (timer) clearTimeout(timer);
    timer = null;
    void write();
  } else {
    timer ??= setTimeout(() => {
      timer = null;
      schedule();
    }, wait);
  }
};

/**
 * Writes every call still waiting, now (a write under way first). On shutdown, before the database closes
 * (registered with the first call recorded): the calls of the last WRITE_EVERY_MS would be lost otherwise.
 */
export const flushKeyCalls = async (): Promise<void> => {
  while (queue.length > 0 || writing) {
    if (timer) clearTimeout(timer);
    timer = null;
    // the last call of the batch under way, or of the one started here
    const last = writing ? inFlight.at(-1) : queue[Math.min(queue.length, BATCH) - 1];
    if (!writing) void write();
    await last?.done;
  }
};

let flushOnShutdown = false;

/**
 * Records one call of a platform key; never throws, never delays the answer. Resolves when its batch is written
 * (or dropped), for tests.
 */
export const recordKeyCall = (call: KeyCall): Promise<void> => {
  if (queue.length >= MAX_QUEUED) return Promise.resolve();
  if (!flushOnShutdown) {
    flushOnShutdown = true;
    onShutdown("key call log", flushKeyCalls);
  }
  let written!: () => void;
  const done = new Promise<void>((resolve) => (written = resolve));
  queue.push({ call, written, done });
  schedule();
  return done;
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
