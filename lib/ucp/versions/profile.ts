// Platform (agent) profiles of the older versions (docs/ucp-versions.md §1.1, §1.5). At 2026-01-11
// `ucp.capabilities` is an array of `{name, version, spec, schema, extends?, config?}` (`ucp.json#/$defs/
// discovery_profile`); at 2026-01-23 and 2026-04-08 a map name → entries. We keep one internal form, the map,
// so negotiation and the order webhook URL (`config.webhook_url`) are read the same way at every version.

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A profile's `ucp.capabilities` as the map form: a 01-11 array becomes name → its entries without `name`
 * (entries with no string `name` are dropped: they declare nothing we could match); a map passes untouched.
 */
export const capabilitiesAsMap = (capabilities: unknown): Json | undefined => {
  if (!Array.isArray(capabilities)) return isObject(capabilities) ? capabilities : undefined;
  const map: Record<string, Json[]> = {};
  for (const entry of capabilities) {
    if (!isObject(entry) || typeof entry.name !== "string") continue;
    const { name, ...rest } = entry;
    (map[name] ??= []).push(rest);
  }
  return map;
};
