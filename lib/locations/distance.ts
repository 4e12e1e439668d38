// Great-circle distance between two points given in integer micro-degrees, rounded to whole meters (haversine on
// a sphere of the mean Earth radius; well under 0.5 % off the ellipsoid, plenty for "stores near me").

const EARTH_RADIUS_M = 6_371_008.8;
const toRadians = (e6: number): number => (e6 / 1_000_000) * (Math.PI / 180);

export type GeoPointE6 = { latitudeE6: number; longitudeE6: number };

export const distanceMeters = (a: GeoPointE6, b: GeoPointE6): number => {
  const dLat = toRadians(b.latitudeE6 - a.latitudeE6);
  const dLon = toRadians(b.longitudeE6 - a.longitudeE6);
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(toRadians(a.latitudeE6)) * Math.cos(toRadians(b.latitudeE6)) * Math.sin(dLon / 2) ** 2;
  return Math.round(2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h))));
};
