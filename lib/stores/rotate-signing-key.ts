import "server-only";

import type { JsonWebKey } from "node:crypto";

import { getDb, type Db } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { rowCache } from "@/lib/config/row-cache";
import { AppError } from "@/lib/core/errors";
import type { Prisma } from "@/lib/generated/prisma/client";

import { getStoreOrThrow } from "./get-store-or-throw";
import { createSigningKeyMaterial, SIGNING_KEY_GRACE_MS } from "./signing-keys";

// Store signing key rotation (UCP signatures.md; CONTRACT.md §13 "Rotation"): the new key is published beside the
// old one and signs from now on; the old key is retired (retired_at) and stays in the profile's signing_keys for
// the 7-day grace, so a receiver can still verify what it signed; then its row is deleted. Triggered by the admin
// CLI (rotate-signing-key) and by the server's periodic job for keys older than SIGNING_KEY_MAX_AGE_DAYS.
//
// Several instances run the periodic job: each rotation locks the store row and re-reads the keys under the lock,
// so of two instances deciding at once the second finds the fresh key and does nothing (one rotation, never two
// current keys).

export type SigningKeyRow = { kid: string; privateJwk: JsonWebKey };

/**
 * Current keys, read for every signed answer: kept briefly in memory (lib/config/row-cache.ts). After a rotation
 * another instance may sign with the previous key for at most ROW_CACHE_TTL_MS; the profile keeps publishing a
 * retired key for SIGNING_KEY_GRACE_MS, so those signatures still verify.
 */
const currentKeys = rowCache<SigningKeyRow>("store_signing_keys");

/** The key a store signs with: its newest unretired key; null when it has none. */
export const currentSigningKey = (
  db: Pick<Db, "storeSigningKey">,
  where: { storeId: string } | { storeSlug: string },
): Promise<SigningKeyRow | null> =>
  currentKeys.get("storeId" in where ? `id:${where.storeId}` : `slug:${where.storeSlug}`, () =>
    findCurrentSigningKey(db, where),
  );

const findCurrentSigningKey = async (
  db: Pick<Db, "storeSigningKey">,
  where: { storeId: string } | { storeSlug: string },
): Promise<SigningKeyRow | null> => {
  const key = await db.storeSigningKey.findFirst({
    where: {
      retiredAt: null,
      ...("storeId" in where ? { storeId: where.storeId } : { store: { slug: where.storeSlug } }),
    },
    orderBy: { createdAt: "desc" },
  });
  return key ? { kid: key.kid, privateJwk: key.privateJwk as JsonWebKey } : null;
};

export type Rotation = { storeId: string; kid: string; retired: string[] };

const lockStore = async (tx: Prisma.TransactionClient, storeId: string): Promise<void> => {
  await tx.$queryRaw`SELECT id FROM stores WHERE id = ${storeId} FOR UPDATE`;
};

/**
 * Mints a new key for the store and retires its current ones, in one transaction under the store's row lock.
 * With `onlyIfOlderThan`, rotates only when the current key was created at or before that instant (the
 * schedule): returns null when it is younger, which is also what a second instance finds after the first rotated.
 */
export const rotateStoreSigningKey = async (
  storeId: string,
  { now = new Date(), onlyIfOlderThan }: { now?: Date; onlyIfOlderThan?: Date } = {},
): Promise<Rotation | null> => {
  const material = await createSigningKeyMaterial();
  const db = await getDb();
  return db.$transaction(async (tx) => {
    await lockStore(tx, storeId);
    const current = await tx.storeSigningKey.findMany({
      where: { storeId, retiredAt: null },
      orderBy: { createdAt: "desc" },
    });
    const newest = current[0];
    if (onlyIfOlderThan && (!newest || newest.createdAt > onlyIfOlderThan)) return null;
    await tx.storeSigningKey.updateMany({
      where: { storeId, retiredAt: null },
      data: { retiredAt: now },
    });
    await tx.storeSigningKey.create({
      data: {
        id: newId("signingKey"),
        storeId,
        kid: material.kid,
        publicJwk: material.publicJwk as Prisma.InputJsonValue,
        privateJwk: material.privateJwk as Prisma.InputJsonValue,
        createdAt: now,
      },
    });
    return { storeId, kid: material.kid, retired: current.map((k) => k.kid) };
  });
};

/**
 * `npm run admin -- rotate-signing-key --store <slug>`: rotates now, whatever the key's age.
 * @throws AppError store_not_found
 */
export const rotateSigningKeyOfStore = async (slug: string, now = new Date()): Promise<Rotation> => {
  const store = await getStoreOrThrow(slug);
  const rotation = await rotateStoreSigningKey(store.id, { now });
  if (!rotation) throw new AppError("conflict", `The signing key of ${slug} could not be rotated; retry`);
  return rotation;
};

/** Deletes keys retired longer ago than the grace period (they are no longer published); of one store if given. */
export const dropExpiredSigningKeys = async (
  now = new Date(),
  scope: { storeId?: string } = {},
): Promise<number> => {
  const db = await getDb();
  const { count } = await db.storeSigningKey.deleteMany({
    where: {
      retiredAt: { lt: new Date(now.getTime() - SIGNING_KEY_GRACE_MS) },
      ...(scope.storeId ? { storeId: scope.storeId } : {}),
    },
  });
  return count;
};

const DAY_MS = 24 * 60 * 60 * 1000;

/** How often the server looks for keys due (cheap: one indexed query when none is). */
export const SIGNING_KEY_ROTATION_INTERVAL_MS = 60 * 60 * 1000;

/**
 * The periodic job: rotates every store whose current key is older than `maxAgeDays`, then drops keys past
 * their grace. Safe to run on every instance at once (see above). `storeId` limits it to one store (tests).
 */
export const rotateDueSigningKeys = async ({
  now = new Date(),
  maxAgeDays,
  storeId,
}: {
  now?: Date;
  maxAgeDays: number;
  storeId?: string;
}): Promise<{ rotated: Rotation[]; dropped: number }> => {
  const cutoff = new Date(now.getTime() - maxAgeDays * DAY_MS);
  const db = await getDb();
  const due = await db.storeSigningKey.findMany({
    where: { retiredAt: null, createdAt: { lte: cutoff }, ...(storeId ? { storeId } : {}) },
    select: { storeId: true },
    distinct: ["storeId"],
  });
  const rotated: Rotation[] = [];
  for (const { storeId } of due) {
    const rotation = await rotateStoreSigningKey(storeId, { now, onlyIfOlderThan: cutoff });
    if (rotation) rotated.push(rotation);
  }
  return { rotated, dropped: await dropExpiredSigningKeys(now, { storeId }) };
};
