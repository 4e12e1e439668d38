import { CAPABILITIES, type CapabilityName } from "./capabilities";
import { UCP_VERSION } from "./version";

// UCP capability negotiation (overview.md "Intersection Algorithm"): a capability is active when both the business
// and the platform declare it at a common version (we serve each at UCP_VERSION only); an extension whose parents
// are all inactive is dropped ("Prune orphaned extensions"), repeatedly, so extension chains fall together.
// At an older protocol version the capabilities have no versions of their own to match (2026-01-11
// overview.md:471-486 intersects by name): the platform declaring the name is enough.

const isCapabilityName = (name: string): name is CapabilityName => Object.hasOwn(CAPABILITIES, name);

/** The versions a platform declares for one capability (an array of `{version}` entries; anything else: none). */
const platformVersions = (entries: unknown): string[] =>
  Array.isArray(entries)
    ? entries.flatMap((e) =>
        typeof e === "object" && e !== null && typeof (e as { version?: unknown }).version === "string"
          ? [(e as { version: string }).version]
          : [],
      )
    : [];

/**
 * The active capabilities: `business` ∩ the platform profile's `ucp.capabilities` (the map form), at a mutual
 * version when `version` is ours, by name at an older protocol version; orphaned extensions pruned.
 */
export const intersectCapabilities = (
  business: readonly CapabilityName[],
  platform: Record<string, unknown> | undefined,
  version: string = UCP_VERSION,
): Set<CapabilityName> => {
  const declares = (name: CapabilityName): boolean =>
    version === UCP_VERSION
      ? platformVersions(platform?.[name]).includes(UCP_VERSION)
      : platform !== undefined && Object.hasOwn(platform, name);
  const active = new Set<CapabilityName>(business.filter(declares));
  for (let pruned = true; pruned;) {
    pruned = false;
    for (const name of active) {
      const parents = CAPABILITIES[name].extends;
      if (parents === undefined) continue;
      const list = Array.isArray(parents) ? parents : [parents];
      if (!list.some((parent) => active.has(parent))) {
        active.delete(name);
        pruned = true;
      }
    }
  }
  return active;
};

/** Keeps only the active names of a response's `ucp.capabilities` (names we do not know pass untouched). */
export const restrictToActive = <T>(
  capabilities: Record<string, T>,
  active: ReadonlySet<string>,
): Record<string, T> =>
  Object.fromEntries(
    Object.entries(capabilities).filter(([name]) => !isCapabilityName(name) || active.has(name)),
  );
