import "server-only";

import { z } from "zod";

import { parseMajor } from "@/lib/catalog/admin/major-units";
import { ProductTagSchema } from "@/lib/catalog/admin/schemas";
import { getDb, type Db } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { rowCache } from "@/lib/config/row-cache";
import { AppError } from "@/lib/core/errors";
import type { ShippingRate, Store } from "@/lib/generated/prisma/client";

// A store's shipping rates from the admin: for a destination (a country, optionally one region of it, or "*" for
// anywhere) a price in the store's currency, an optional free-shipping threshold on the goods subtotal and an
// optional free-shipping tag (free when every item shipped is a product with that tag). Rates
// sharing a code are one option on the wire; checkout picks the most specific destination (lib/checkout).

const REGIONS = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });
const blank = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);

const money = (currency: string) =>
  z.string().transform((text, ctx) => {
    const parsed = parseMajor(text, currency);
    if (parsed.ok) return parsed.minor;
    ctx.addIssue({ code: "custom", message: parsed.message });
    return z.NEVER;
  });

const days = z.preprocess(
  blank,
  z.coerce
    .number({ error: "Enter a whole number of days" })
    .int("Enter a whole number of days")
    .min(0)
    .max(365)
    .optional(),
);

export const createShippingRateInputSchema = (currency: string) =>
  z
    .strictObject({
      code: z
        .string()
        .trim()
        .toLowerCase()
        .regex(
          /^[a-z0-9][a-z0-9_-]{0,39}$/,
          "Use up to 40 lower-case letters, digits, - or _ (e.g. standard)",
        ),
      title: z
        .string()
        .trim()
        .min(1, "Name the rate (e.g. Standard shipping)")
        .max(100, "Use at most 100 characters"),
      country: z
        .string()
        .trim()
        .toUpperCase()
        .refine((c) => c === "*" || (/^[A-Z]{2}$/.test(c) && REGIONS.of(c) !== undefined), {
          error: "Use a two-letter country code such as US, or * for anywhere",
        }),
      region: z.preprocess(
        blank,
        z
          .string()
          .trim()
          .toUpperCase()
          .regex(/^[A-Z0-9]{1,3}$/, "Use the region's code such as CA")
          .optional(),
      ),
      price: money(currency),
      freeOver: z.preprocess(blank, money(currency).optional()),
      // a product tag, as products store theirs
      freeForTag: z.preprocess(blank, ProductTagSchema.optional()),
      minDays: days,
      maxDays: days,
    })
    .superRefine((rate, ctx) => {
      if (rate.region && rate.country === "*") {
        ctx.addIssue({ code: "custom", path: ["region"], message: "A region needs a country" });
      }
      if (rate.minDays !== undefined && rate.maxDays !== undefined && rate.maxDays < rate.minDays) {
        ctx.addIssue({ code: "custom", path: ["maxDays"], message: "Use at least the minimum days" });
      }
    });
export type CreateShippingRateInput = z.input<ReturnType<typeof createShippingRateInputSchema>>;

export const DeleteShippingRateInputSchema = z.strictObject({ id: z.string().min(1).max(64) });

// Rates that may serve a destination, for an answer that changes nothing stored (get_checkout, a completed
// checkout's answer): from the row cache, as a read takes its store (lib/stores/get-store-or-throw.ts). A change
// made in this process is seen at once, elsewhere within ROW_CACHE_TTL_MS (at most 5 s); pricing what is charged
// or held reads them fresh.
const cachedRates = rowCache<ShippingRate[]>("shipping_rates");

/** The store's rates for `country` and for anywhere ("*"); `forRead`: from the row cache (see above). */
export const ratesForCountry = async (
  db: Pick<Db, "shippingRate">,
  storeId: string,
  country: string,
  { forRead = false }: { forRead?: boolean } = {},
): Promise<readonly ShippingRate[]> => {
  // ordered as a session's read orders them (lib/checkout/checkout-record.ts): options tied on position and price
  // are listed the same way whichever read priced them
  const read = () =>
    db.shippingRate.findMany({
      where: { storeId, country: { in: [country, "*"] } },
      orderBy: [{ position: "asc" }, { id: "asc" }],
    });
  return forRead ? ((await cachedRates.get(`${storeId} ${country}`, read)) ?? []) : read();
};

/** The store's shipping rates, by destination then code. */
export const listShippingRates = async (store: Store): Promise<ShippingRate[]> =>
  (await getDb()).shippingRate.findMany({
    where: { storeId: store.id },
    orderBy: [{ country: "asc" }, { region: "asc" }, { position: "asc" }, { code: "asc" }],
  });

/** Adds a shipping rate. @throws AppError invalid_request (the field's path) */
export const createShippingRate = async (store: Store, raw: unknown): Promise<ShippingRate> => {
  const parsed = createShippingRateInputSchema(store.currency).safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError("invalid_request", issue.message, { path: `$.${issue.path.map(String).join(".")}` });
  }
  const r = parsed.data;
  const db = await getDb();
  return db.shippingRate.create({
    data: {
      id: newId("shippingRate"),
      storeId: store.id,
      code: r.code,
      title: r.title,
      country: r.country,
      region: r.region ?? null,
      priceMinor: r.price,
      freeOverMinor: r.freeOver ?? null,
      freeForTag: r.freeForTag ?? null,
      minDays: r.minDays ?? null,
      maxDays: r.maxDays ?? null,
      position: await db.shippingRate.count({ where: { storeId: store.id } }),
    },
  });
};

/** Removes one of the store's shipping rates. @throws AppError invalid_request, not_found */
export const deleteShippingRate = async (store: Store, raw: unknown): Promise<void> => {
  const parsed = DeleteShippingRateInputSchema.safeParse(raw);
  if (!parsed.success) throw new AppError("invalid_request", "Name the rate to remove", { path: "$.id" });
  const { count } = await (
    await getDb()
  ).shippingRate.deleteMany({ where: { id: parsed.data.id, storeId: store.id } });
  if (count === 0) throw new AppError("not_found", "No such shipping rate in this store", { path: "$.id" });
};
