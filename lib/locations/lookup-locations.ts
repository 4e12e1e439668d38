import "server-only";

import { z } from "zod";

import { getDb } from "@/lib/config/db";
import { successEnvelope, type UcpMessage } from "@/lib/core/envelope";
import { AppError } from "@/lib/core/errors";
import { defineOperation, storeOf } from "@/lib/core/operation";
import { LocationsLookupOutputSchema } from "@/lib/ucp/output-schemas";

import { LocationFiltersSchema, matchesLocationFilters } from "./filters";
import { locationToWire } from "./to-wire";

// lookup_locations (per-store MCP; ours): this store's locations by id, in one batch. Unknown ids (or another
// store's) are left out with an info message, like catalog lookup; so are locations that do not match the filters
// (filters.ts), with their own message.

export const LOCATIONS_LOOKUP_MAX_IDS = 50;

export const LookupLocationsInputSchema = z
  .object({
    ids: z.array(z.string().trim().min(1).max(200)).min(1, "send at least one id"),
    filters: LocationFiltersSchema.optional(),
    context: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const lookupLocations = defineOperation({
  name: "lookup_locations",
  title: "Look up locations",
  description: `This store's locations by id (up to ${LOCATIONS_LOOKUP_MAX_IDS} per call); filters {country, region, locality, services} leave out those that do not match (an info message names them).`,
  errors: ["request_too_large"],
  scope: "store",
  input: LookupLocationsInputSchema,
  output: LocationsLookupOutputSchema,
  mutates: false,
  tier: "anonymous",
  buyerScope: "purchase:complete",
  mcp: {
    namespace: "catalog",
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  /** @throws AppError request_too_large */
  run: async (ctx, input) => {
    const store = storeOf(ctx);
    const ids = [...new Set(input.ids)];
    if (ids.length > LOCATIONS_LOOKUP_MAX_IDS) {
      throw new AppError(
        "request_too_large",
        `lookup_locations accepts at most ${LOCATIONS_LOOKUP_MAX_IDS} ids (got ${ids.length})`,
        { path: "$.ids" },
      );
    }
    const db = await getDb();
    const rows = await db.location.findMany({ where: { storeId: store.id, id: { in: ids } } });
    const found = new Map(rows.map((r) => [r.id, r]));
    const messages: UcpMessage[] = ids.flatMap((id): UcpMessage[] => {
      const row = found.get(id);
      if (!row) return [{ type: "info", code: "not_found", content: `No location "${id}" in this store` }];
      if (matchesLocationFilters(row, input.filters)) return [];
      found.delete(id);
      return [{ type: "info", code: "filtered_out", content: `Location "${id}" does not match the filters` }];
    });
    return {
      body: {
        ucp: successEnvelope([], {}, ctx.ucpVersion),
        locations: ids.flatMap((id) => {
          const row = found.get(id);
          return row ? [locationToWire(row)] : [];
        }),
        ...(messages.length > 0 ? { messages } : {}),
      },
    };
  },
});
