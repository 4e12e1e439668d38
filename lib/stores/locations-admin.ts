import "server-only";

import { z } from "zod";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import type { Location, Store } from "@/lib/generated/prisma/client";

// A store's physical locations (shop fronts, pickup points) from the admin. The address is kept in UCP's field
// names (as the location lookups return it); the geo point is typed in degrees and stored in integer
// micro-degrees by decimal-text arithmetic (no float on the way: 12.345678 → 12345678).

const REGIONS = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" });
const blank = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);

const degrees = (max: number, what: string) =>
  z.string().transform((text, ctx) => {
    const m = /^(-?)(\d{1,3})(?:\.(\d{1,6}))?$/.exec(text.trim());
    const e6 = m ? (m[1] ? -1 : 1) * (Number(m[2]) * 1_000_000 + Number((m[3] ?? "").padEnd(6, "0"))) : NaN;
    if (!m || Math.abs(e6) > max * 1_000_000) {
      ctx.addIssue({
        code: "custom",
        message: `Enter the ${what} in degrees from -${max} to ${max}, at most 6 decimals`,
      });
      return z.NEVER;
    }
    return e6;
  });

export const LOCATION_SERVICES = ["pickup", "returns", "repairs"] as const;

export const CreateLocationInputSchema = z.strictObject({
  name: z.string().trim().min(1, "Name the location").max(100, "Use at most 100 characters"),
  streetAddress: z.string().trim().min(1, "Enter the street address").max(200),
  locality: z.string().trim().min(1, "Enter the city").max(100),
  region: z.preprocess(blank, z.string().trim().max(100).optional()),
  postalCode: z.preprocess(blank, z.string().trim().max(20).optional()),
  country: z
    .string()
    .trim()
    .toUpperCase()
    .refine((c) => /^[A-Z]{2}$/.test(c) && REGIONS.of(c) !== undefined, {
      error: "Use a two-letter country code such as US",
    }),
  latitude: degrees(90, "latitude"),
  longitude: degrees(180, "longitude"),
  services: z.array(z.enum(LOCATION_SERVICES, { error: "Choose pickup, returns or repairs" })).default([]),
});
export type CreateLocationInput = z.input<typeof CreateLocationInputSchema>;

export const DeleteLocationInputSchema = z.strictObject({ id: z.string().min(1).max(64) });

export const listStoreLocations = async (store: Store): Promise<Location[]> =>
  (await getDb()).location.findMany({ where: { storeId: store.id }, orderBy: { name: "asc" } });

/** Adds a location. @throws AppError invalid_request (the field's path) */
export const createLocation = async (store: Store, raw: unknown): Promise<Location> => {
  const parsed = CreateLocationInputSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError("invalid_request", issue.message, { path: `$.${issue.path.map(String).join(".")}` });
  }
  const l = parsed.data;
  return (await getDb()).location.create({
    data: {
      id: newId("location"),
      storeId: store.id,
      name: l.name,
      address: {
        street_address: l.streetAddress,
        address_locality: l.locality,
        ...(l.region ? { address_region: l.region } : {}),
        ...(l.postalCode ? { postal_code: l.postalCode } : {}),
        address_country: l.country,
      },
      latitudeE6: l.latitude,
      longitudeE6: l.longitude,
      services: [...new Set(l.services)],
    },
  });
};

/** Removes one of the store's locations. @throws AppError invalid_request, not_found */
export const deleteLocation = async (store: Store, raw: unknown): Promise<void> => {
  const parsed = DeleteLocationInputSchema.safeParse(raw);
  if (!parsed.success) throw new AppError("invalid_request", "Name the location to remove", { path: "$.id" });
  const { count } = await (
    await getDb()
  ).location.deleteMany({ where: { id: parsed.data.id, storeId: store.id } });
  if (count === 0) throw new AppError("not_found", "No such location in this store", { path: "$.id" });
};

export const UpdateLocationInputSchema = CreateLocationInputSchema.partial().extend({
  id: z.string().min(1).max(64),
});
export type UpdateLocationInput = z.input<typeof UpdateLocationInputSchema>;

/**
 * Changes the given fields of one of the store's locations (others stay; an empty region or postal code removes it).
 * @throws AppError invalid_request (the field's path), not_found
 */
export const updateLocation = async (store: Store, raw: unknown): Promise<Location> => {
  const parsed = UpdateLocationInputSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError("invalid_request", issue.message, { path: `$.${issue.path.map(String).join(".")}` });
  }
  const { id, ...l } = parsed.data;
  const db = await getDb();
  const existing = await db.location.findFirst({ where: { id, storeId: store.id } });
  if (!existing) throw new AppError("not_found", "No such location in this store", { path: "$.id" });
  const was = existing.address as Record<string, string>;
  const has = (key: keyof typeof l) => Object.prototype.hasOwnProperty.call(raw, key);
  const region = has("region") ? l.region : was.address_region;
  const postalCode = has("postalCode") ? l.postalCode : was.postal_code;
  return db.location.update({
    where: { id },
    data: {
      name: l.name ?? existing.name,
      address: {
        street_address: l.streetAddress ?? was.street_address,
        address_locality: l.locality ?? was.address_locality,
        ...(region ? { address_region: region } : {}),
        ...(postalCode ? { postal_code: postalCode } : {}),
        address_country: l.country ?? was.address_country,
      },
      latitudeE6: l.latitude ?? existing.latitudeE6,
      longitudeE6: l.longitude ?? existing.longitudeE6,
      ...(has("services") && l.services ? { services: [...new Set(l.services)] } : {}),
    },
  });
};
