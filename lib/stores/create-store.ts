import "server-only";

import { z } from "zod";

import { getDb, isUniqueViolation } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";

import { createSigningKeyMaterial } from "./signing-keys";

// A merchant creates a store from the admin: its name, its slug (the path segment of every URL of the store,
// /s/<slug>/…, so it never changes afterwards), its currency and country. A new store is in test mode with the
// card rail on the sandbox PSP (it can take orders from agents at once, no real money), has its signing key
// (profile, webhooks and responses are signed from the first request) and its creator as owner.

const SUPPORTED_CURRENCIES = new Set(Intl.supportedValuesOf("currency"));
const REGIONS = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });
/** CLDR region codes that are not countries (unknown, unions, outlying Oceania). */
const NOT_COUNTRIES = new Set(["ZZ", "EU", "EZ", "UN", "QO"]);

export const CreateStoreSchema = z.strictObject({
  name: z.string().trim().min(1, "Name the store").max(100, "Use at most 100 characters"),
  slug: z
    .string()
    .trim()
    .toLowerCase()
    .min(3, "Use at least 3 characters")
    .max(40, "Use at most 40 characters")
    .regex(
      /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/,
      "Use lower-case letters, digits and hyphens, starting and ending with a letter or digit",
    ),
  currency: z
    .string()
    .trim()
    .toUpperCase()
    .refine((c) => /^[A-Z]{3}$/.test(c) && SUPPORTED_CURRENCIES.has(c), {
      error: "Use a three-letter ISO 4217 currency code such as USD or EUR",
    }),
  country: z
    .string()
    .trim()
    .toUpperCase()
    .refine((c) => /^[A-Z]{2}$/.test(c) && !NOT_COUNTRIES.has(c) && REGIONS.of(c) !== undefined, {
      error: "Use a two-letter ISO 3166 country code such as US or DE",
    }),
});
export type CreateStoreInput = z.input<typeof CreateStoreSchema>;

/**
 * Creates a store owned by `ownerAccountId`, in test mode.
 * @throws AppError invalid_request (a field, or a slug already taken: path $.slug)
 */
export const createStore = async (raw: unknown, ownerAccountId: string): Promise<Store> => {
  const parsed = CreateStoreSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError("invalid_request", issue.message, {
      path: `$${issue.path.map((p) => `.${String(p)}`).join("")}`,
    });
  }
  const input = parsed.data;
  const key = await createSigningKeyMaterial();
  const db = await getDb();
  try {
    return await db.$transaction(async (tx) => {
      const store = await tx.store.create({
        data: {
          id: newId("store"),
          slug: input.slug,
          name: input.name,
          currency: input.currency,
          country: input.country,
          mode: "test",
        },
      });
      await tx.storeSigningKey.create({
        data: {
          id: newId("signingKey"),
          storeId: store.id,
          kid: key.kid,
          publicJwk: key.publicJwk as object,
          privateJwk: key.privateJwk as object,
        },
      });
      await tx.storeMembership.create({
        data: { id: newId("storeMembership"), accountId: ownerAccountId, storeId: store.id, role: "owner" },
      });
      return store;
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    throw new AppError("invalid_request", `The address "${input.slug}" is taken: choose another`, {
      path: "$.slug",
    });
  }
};
