import "server-only";

import { z } from "zod";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";

import { CreateStoreSchema } from "./create-store";
import { liveRequirementsMissing } from "./make-store-live";

// An owner's settings of a store from the admin: name, currency, test/live mode and the tax rate. The slug is
// not a setting: it is in every URL agents and buyers hold (/s/<slug>/…, profiles, order links, webhooks), so it
// is fixed at creation and a request to change it is refused (slug_immutable) rather than silently ignored.

const PERCENT = /^(\d{1,3})(?:\.(\d{1,2}))?$/;

export const UpdateStoreSettingsInputSchema = z.strictObject({
  name: CreateStoreSchema.shape.name,
  /** Only while the store has no order (then every amount ever charged is in one currency). */
  currency: CreateStoreSchema.shape.currency,
  mode: z.enum(["test", "live"], { error: "Choose test or live" }),
  /** Tax rate in percent with at most two decimals ("8.25"), stored in basis points (825). */
  taxRate: z
    .string()
    .trim()
    .transform((text, ctx) => {
      const match = PERCENT.exec(text === "" ? "0" : text);
      const bps = match ? Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0")) : NaN;
      if (!match || bps > 10_000) {
        ctx.addIssue({
          code: "custom",
          message: "Enter a percentage from 0 to 100 with at most two decimals, such as 8.25",
        });
        return z.NEVER;
      }
      return bps;
    }),
  /** Accepted only when equal to the current slug (a form may send it back unchanged). */
  slug: z.string().trim().toLowerCase().optional(),
});
export type UpdateStoreSettingsInput = z.input<typeof UpdateStoreSettingsInputSchema>;

/** The store's tax rate as the percentage text the form shows (825 → "8.25"). */
export const taxRateText = (bps: number): string =>
  bps % 100 === 0 ? String(bps / 100) : `${Math.floor(bps / 100)}.${String(bps % 100).padStart(2, "0")}`;

/**
 * Updates a store's settings, all or nothing.
 * @throws AppError invalid_request (a field, with its path), slug_immutable, currency_locked (the store has
 *   orders), live_requirements_missing (live without the live configuration of its rails; names what is missing)
 */
export const updateStoreSettings = async (store: Store, raw: unknown): Promise<Store> => {
  const parsed = UpdateStoreSettingsInputSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError("invalid_request", issue.message, {
      path: `$${issue.path.map((p) => `.${String(p)}`).join("")}`,
    });
  }
  const input = parsed.data;
  if (input.slug !== undefined && input.slug !== store.slug) {
    throw new AppError(
      "slug_immutable",
      `The address "${store.slug}" cannot change: agents and buyers already hold links to it`,
      { path: "$.slug" },
    );
  }
  if (input.mode === "live" && store.mode !== "live") {
    const missing = liveRequirementsMissing(store);
    if (missing.length > 0) {
      throw new AppError(
        "live_requirements_missing",
        `The store cannot go live yet: it needs ${missing.map((m) => m.replace(/ \(npm run admin[^)]*\)/, "")).join("; and ")} (set them on the payments page). It stays in test mode.`,
        { path: "$.mode" },
      );
    }
  }
  const db = await getDb();
  return db.$transaction(async (tx) => {
    if (input.currency !== store.currency) {
      // Every order's totals, payments and refunds are in the store's currency: one order fixes it.
      if ((await tx.order.count({ where: { storeId: store.id } })) > 0) {
        throw new AppError(
          "currency_locked",
          `The store has orders in ${store.currency}, so its currency cannot change`,
          { path: "$.currency" },
        );
      }
      // Prices and shipping rates are stored in minor units: they keep their meaning only between currencies with the same exponent.
      const exponent = (c: string) =>
        new Intl.NumberFormat("en", { style: "currency", currency: c }).resolvedOptions()
          .maximumFractionDigits;
      if (
        exponent(input.currency) !== exponent(store.currency) &&
        (await tx.variant.count({ where: { storeId: store.id } })) > 0
      ) {
        throw new AppError(
          "currency_locked",
          `${input.currency} and ${store.currency} have a different number of decimals: the store's prices would change value. Remove the products first, or keep ${store.currency}`,
          { path: "$.currency" },
        );
      }
      await tx.variant.updateMany({ where: { storeId: store.id }, data: { currency: input.currency } });
    }
    return tx.store.update({
      where: { id: store.id },
      data: { name: input.name, currency: input.currency, mode: input.mode, taxRateBps: input.taxRate },
    });
  });
};
