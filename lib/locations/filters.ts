import { z } from "zod";

// The `filters` of search_locations and lookup_locations (seed §4 bridge table; locations are ours, not in UCP
// 2026-04-08, so neither the contract nor the UCP schemas define a filter shape). A small set over what a location
// has: its address (UCP postal-address field names) and the services it offers. Every filter given must match;
// text matches ignore case and surrounding spaces. Unknown filter names are refused (strict), with their JSONPath.

export const LocationFiltersSchema = z
  .object({
    country: z
      .string()
      .trim()
      .regex(/^[A-Za-z]{2}$/, "an ISO 3166-1 alpha-2 country code such as US")
      .optional()
      .describe("address_country, ISO 3166-1 alpha-2"),
    region: z.string().trim().min(1).max(100).optional().describe("address_region, exact (any case)"),
    locality: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .describe("address_locality (city), exact (any case)"),
    services: z
      .array(z.string().trim().min(1).max(60))
      .min(1)
      .max(10)
      .optional()
      .describe("services offered, all of them (e.g. ['pickup'])"),
  })
  .strict();
export type LocationFilters = z.infer<typeof LocationFiltersSchema>;

const same = (a: unknown, b: string): boolean =>
  typeof a === "string" && a.trim().toLowerCase() === b.trim().toLowerCase();

/** Whether a stored location matches every filter given. */
export const matchesLocationFilters = (
  location: { address: unknown; services: readonly string[] },
  filters: LocationFilters | undefined,
): boolean => {
  if (!filters) return true;
  const address = (
    location.address && typeof location.address === "object" ? location.address : {}
  ) as Record<string, unknown>;
  if (filters.country !== undefined && !same(address.address_country, filters.country)) return false;
  if (filters.region !== undefined && !same(address.address_region, filters.region)) return false;
  if (filters.locality !== undefined && !same(address.address_locality, filters.locality)) return false;
  return (filters.services ?? []).every((s) => location.services.some((x) => same(x, s)));
};
