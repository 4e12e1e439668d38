import "server-only";

import { z } from "zod";

import { decodeCursor, encodeCursor, searchFingerprint } from "@/lib/catalog/search/cursor";
import { getDb } from "@/lib/config/db";
import { successEnvelope } from "@/lib/core/envelope";
import { AppError } from "@/lib/core/errors";
import { defineOperation, storeOf } from "@/lib/core/operation";
import { LocationsSearchOutputSchema } from "@/lib/ucp/output-schemas";

import { distanceMeters } from "./distance";
import { LocationFiltersSchema, matchesLocationFilters } from "./filters";
import { locationToWire } from "./to-wire";

// search_locations (per-store MCP; seed §4, ours — not in UCP 2026-04-08): a store's locations by text (every word
// must start a word of the name, address or services), by distance from a point (micro-degrees, radius in meters;
// nearest first), by services offered (all of them) and by filters (filters.ts). A store has a handful of locations, so they are matched
// in memory after one indexed query; pages use the same signed cursors as catalog search.

export const LOCATIONS_LIMIT_MAX = 50;
const MAX_LOCATIONS_PER_STORE = 2_000;

const microDegrees = (max: number) => z.number().int("integer micro-degrees").min(-max).max(max);

export const SearchLocationsInputSchema = z
  .object({
    query: z.string().max(200).optional(),
    distance: z
      .object({
        latitude_e6: microDegrees(90_000_000),
        longitude_e6: microDegrees(180_000_000),
        max_meters: z.number().int().min(1).max(20_100_000).optional(),
      })
      .strict()
      .optional(),
    serves: z.array(z.string().trim().min(1).max(60)).max(10).optional(),
    filters: LocationFiltersSchema.optional(),
    pagination: z
      .object({
        limit: z.number().int().min(1).max(LOCATIONS_LIMIT_MAX).optional(),
        cursor: z.string().min(1).max(1024).optional(),
      })
      .strict()
      .optional(),
    context: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

const words = (text: string | undefined): string[] =>
  (text ?? "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

/** The words of a location's name, address values and services. */
const wordsOf = (name: string, address: unknown, services: readonly string[]): string[] => {
  const values = address && typeof address === "object" ? Object.values(address) : [];
  return words([name, ...values.filter((v) => typeof v === "string"), ...services].join(" "));
};

export const searchLocations = defineOperation({
  name: "search_locations",
  title: "Search locations",
  description:
    "This store's locations (address, geo point in micro-degrees, opening hours, services): text query, distance {latitude_e6, longitude_e6, max_meters} (nearest first, distance_m in results), serves (services such as pickup), filters {country (ISO alpha-2), region, locality, services} (all must match), pagination {limit ≤ 50, cursor}. Returns locations[] and pagination.cursor for the next page.",
  scope: "store",
  input: SearchLocationsInputSchema,
  output: LocationsSearchOutputSchema,
  mutates: false,
  tier: "anonymous",
  buyerScope: "purchase:complete",
  mcp: {
    namespace: "catalog",
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  /** @throws AppError invalid_request (bad cursor) */
  run: async (ctx, input) => {
    const store = storeOf(ctx);
    const terms = words(input.query).slice(0, 12);
    const serves = [...new Set((input.serves ?? []).map((s) => s.toLowerCase()))];
    const fingerprint = searchFingerprint({
      store: store.id,
      terms,
      serves,
      distance: input.distance ?? null,
      filters: input.filters ?? null,
    });
    const cursor = input.pagination?.cursor;
    const after = cursor ? await decodeCursor(cursor, "locations", fingerprint) : { o: 0 };
    const offset = (after as { o?: unknown }).o;
    if (typeof offset !== "number" || !Number.isInteger(offset) || offset < 0) {
      throw new AppError("invalid_request", "pagination.cursor is malformed", {
        path: "$.pagination.cursor",
      });
    }
    const limit = input.pagination?.limit ?? 10;
    const db = await getDb();
    const rows = await db.location.findMany({
      where: { storeId: store.id },
      orderBy: [{ name: "asc" }, { id: "asc" }],
      take: MAX_LOCATIONS_PER_STORE,
    });
    const origin = input.distance
      ? { latitudeE6: input.distance.latitude_e6, longitudeE6: input.distance.longitude_e6 }
      : null;
    const matches = rows
      .filter((l) => {
        const own = wordsOf(l.name, l.address, l.services);
        return terms.every((t) => own.some((w) => w.startsWith(t)));
      })
      .filter((l) => serves.every((s) => l.services.some((x) => x.toLowerCase() === s)))
      .filter((l) => matchesLocationFilters(l, input.filters))
      .map((l) => ({ location: l, distance: origin ? distanceMeters(origin, l) : undefined }))
      .filter((m) => !input.distance?.max_meters || (m.distance ?? 0) <= input.distance.max_meters)
      .sort((a, b) => (a.distance ?? 0) - (b.distance ?? 0));
    const page = matches.slice(offset, offset + limit);
    const nextOffset = offset + limit < matches.length ? offset + limit : null;
    return {
      body: {
        ucp: successEnvelope([], {}, ctx.ucpVersion),
        locations: page.map((m) => locationToWire(m.location, m.distance)),
        pagination: {
          has_next_page: nextOffset !== null,
          ...(nextOffset !== null
            ? { cursor: await encodeCursor("locations", fingerprint, { o: nextOffset }) }
            : {}),
          total_count: matches.length,
        },
      },
    };
  },
});
