import type { Location } from "@/lib/generated/prisma/client";

// Location rows → wire JSON (ours: UCP 2026-04-08 has no location capability, CONTRACT.md §18.1 #32). The geo
// point stays in integer micro-degrees like every number we put on the wire; distances are whole meters.

export const locationToWire = (location: Location, distanceMeters?: number) => ({
  id: location.id,
  name: location.name,
  address: location.address,
  geo: { latitude_e6: location.latitudeE6, longitude_e6: location.longitudeE6 },
  opening_hours: location.openingHours,
  services: location.services,
  ...(distanceMeters !== undefined ? { distance_m: distanceMeters } : {}),
});
