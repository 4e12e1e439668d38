import "server-only";

import { z } from "zod";

import { parseMajor } from "@/lib/catalog/admin/major-units";
import { getDb, isUniqueViolation } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";

import { SUPPORTED_CURRENCIES } from "./currencies";
import { createSigningKeyMaterial } from "./signing-keys";

// A merchant creates a store from the admin: its name, its slug (the path segment of every URL of the store,
// /s/<slug>/…, so it never changes afterwards), its currency and country. A new store is in test mode with the
// card rail on the sandbox PSP (no real money), has its signing key (profile, webhooks and responses are signed from
// the first request) and its creator as owner. Checkout needs a shipping rate for the buyer's country, so the
// merchant either names the countries it ships to and one flat rate (created with the store, one "standard" option
// on the wire) or says explicitly that it does not ship yet (the overview's checklist then flags it): either way
// agents never meet a store that looks open but refuses every address.

const REGIONS = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });
/** CLDR region codes that are not countries (unknown, unions, outlying Oceania). */
const NOT_COUNTRIES = new Set(["ZZ", "EU", "EZ", "UN", "QO"]);

const countryCode = z
  .string()
  .trim()
  .toUpperCase()
  .refine((c) => /^[A-Z]{2}$/.test(c) && !NOT_COUNTRIES.has(c) && REGIONS.of(c) !== undefined, {
    error: "Use a two-letter ISO 3166 country code such as US or DE",
  });

/** The flat rate's wire option (fulfillment option id) and title. */
export const FIRST_RATE = { code: "standard", title: "Standard shipping" } as const;
/** At most this many destination countries at creation (Settings adds more). */
export const MAX_SHIPS_TO = 50;

/** "US, ca de" or ["US", "CA"]: a list of trimmed, non-empty codes. */
const countryList = z.preprocess(
  (v) => (typeof v === "string" ? v.split(/[\s,;]+/).filter(Boolean) : v),
  z.array(z.string()).max(MAX_SHIPS_TO, `Name at most ${MAX_SHIPS_TO} countries here; add more in Settings`),
);

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
      error: "Choose a currency from the list (a three-letter ISO 4217 code such as USD or EUR)",
    }),
  country: countryCode,
  /** "flat": ship to `shipsTo` at `shippingRate`; "later": not shipping yet (no rate, agents cannot buy). */
  shipping: z.enum(["flat", "later"], { error: "Choose a flat shipping rate or not shipping yet" }),
  shipsTo: countryList.optional(),
  /** Major units of the store's currency, as typed ("4.99"). */
  shippingRate: z.string().optional(),
});

/** The create form's input: the store's fields, then its first rate parsed in the store's currency. */
export const CreateStoreInputSchema = CreateStoreSchema.transform((input, ctx) => {
  const { shipping, shipsTo, shippingRate, ...store } = input;
  if (shipping === "later") return { ...store, firstRate: null };
  // both fields are checked, so the form shows each one's problem at once
  let refused = false;
  const countries: string[] = [];
  const unknown = (shipsTo ?? []).find((code) => !countryCode.safeParse(code).success);
  if (unknown !== undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["shipsTo"],
      message: `${unknown.slice(0, 12)} is not a country code: use two-letter ISO 3166 codes such as US, CA`,
    });
    refused = true;
  } else {
    for (const code of shipsTo ?? []) {
      const upper = code.trim().toUpperCase();
      if (!countries.includes(upper)) countries.push(upper);
    }
    if (countries.length === 0) {
      ctx.addIssue({
        code: "custom",
        path: ["shipsTo"],
        message: "Name at least one country the store ships to, or choose not shipping yet",
      });
      refused = true;
    }
  }
  const price = parseMajor(shippingRate ?? "", store.currency);
  if (!price.ok) {
    ctx.addIssue({ code: "custom", path: ["shippingRate"], message: price.message });
    refused = true;
  }
  if (refused || !price.ok) return z.NEVER;
  return { ...store, firstRate: { countries, priceMinor: price.minor } };
});
export type CreateStoreInput = z.input<typeof CreateStoreInputSchema>;

/**
 * Creates a store owned by `ownerAccountId`, in test mode, with its first shipping rate unless it ships later; all
 * or nothing.
 * @throws AppError invalid_request (a field, or a slug already taken: path $.slug)
 */
export const createStore = async (raw: unknown, ownerAccountId: string): Promise<Store> => {
  const parsed = CreateStoreInputSchema.safeParse(raw);
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
      if (input.firstRate) {
        const { countries, priceMinor } = input.firstRate;
        await tx.shippingRate.createMany({
          data: countries.map((country, position) => ({
            id: newId("shippingRate"),
            storeId: store.id,
            ...FIRST_RATE,
            country,
            priceMinor,
            position,
          })),
        });
      }
      return store;
    });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    throw new AppError("invalid_request", `The address "${input.slug}" is taken: choose another`, {
      path: "$.slug",
    });
  }
};
