import "server-only";

import { LRUCache } from "lru-cache";
import { z } from "zod";

import { AppError } from "@/lib/core/errors";
import { guardedFetch, OutboundError } from "@/lib/outbound/guarded-fetch";
import { capabilitiesAsMap } from "@/lib/ucp/versions/profile";

// The platform (agent) profile named in UCP-Agent (CONTRACT.md §4): fetched through the outbound guard, cached for
// at least 60 s (longer when its Cache-Control says so, at most an hour), concurrent misses share one fetch, and a
// failure is remembered briefly so a bad URL cannot make us fetch on every request.
// Keys (DECISIONS.md B13): agents rotate keys without telling us, so a key id we do not know triggers one refetch,
// at most once per KEY_REFETCH_INTERVAL_MS per origin (UCP overview.md "Fetching" 6: force-refresh on an unknown
// kid MAY happen, but MUST NOT more than once per TTL floor — 60 s — per origin; that also keeps B13's "at most
// every 30 s per profile"), so unknown kids cannot make us fetch on every request; and a key is never trusted from
// a copy older than KEY_TRUST_MS whatever the Cache-Control: keys authorise money (mandates, signed completions),
// and a removed — perhaps compromised — key must stop working within that bound (signatures.md "Key Compromise
// Response": reject all signatures made with a removed key).
// Ages are measured on the wall clock (Date.now), the clock the signatures and mandates are checked against.

const MIN_TTL_MS = 60_000;
const MAX_TTL_MS = 3_600_000;
const FAILURE_TTL_MS = 10_000;
export const KEY_TRUST_MS = 5 * 60_000;
export const KEY_REFETCH_INTERVAL_MS = MIN_TTL_MS;
export const PROFILE_MAX_BYTES = 64 * 1024;
export const PROFILE_TIMEOUT_MS = 3_000;

// Read at every version we know (docs/ucp-versions.md §1.1): `capabilities` is an array at 2026-01-11 and a map
// later, and is kept as the map (lib/ucp/versions/profile.ts) so everything downstream reads one form; a 2026-01-11
// service is one object, not an array, so services stay opaque. Which version is served is decided after parsing
// (negotiateVersion): a well-formed profile of a version we do not serve gets version_unsupported, not
// profile_malformed.
const AgentProfileSchema = z.object({
  ucp: z
    .object({
      version: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "ucp.version must be YYYY-MM-DD"),
      supported_versions: z.record(z.string(), z.string()).optional(),
      services: z.record(z.string(), z.unknown()).optional(),
      capabilities: z
        .union([z.record(z.string(), z.unknown()), z.array(z.object({ name: z.string() }).loose())])
        .optional()
        .transform(capabilitiesAsMap),
      payment_handlers: z.record(z.string(), z.unknown()).optional(),
    })
    .loose(),
  signing_keys: z.array(z.object({ kid: z.string(), kty: z.string() }).loose()).optional(),
});
export type AgentProfile = z.infer<typeof AgentProfileSchema>;

type Loaded = { profile: AgentProfile; ttl: number } | { error: AppError };
type Entry = Loaded & { fetchedAt: number };

const cache = new LRUCache<string, Entry>({ max: 2_000 });
const inFlight = new Map<string, Promise<Entry>>();
/** When an unknown key id last made us refetch a profile of each origin (policy + origin → epoch ms). */
const keyRefetchedAt = new LRUCache<string, number>({ max: 2_000 });

const ttlFrom = (cacheControl: string | undefined): number => {
  const maxAge = Number(/(?:^|,)\s*max-age=(\d+)/i.exec(cacheControl ?? "")?.[1]);
  const ms = Number.isFinite(maxAge) ? maxAge * 1000 : 0;
  return Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, ms));
};

const load = async (url: string, allowPrivate: boolean): Promise<Loaded> => {
  let response;
  try {
    response = await guardedFetch(url, {
      allowPrivate,
      maxBytes: PROFILE_MAX_BYTES,
      timeoutMs: PROFILE_TIMEOUT_MS,
    });
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    const code =
      error.reason === "scheme" || error.reason === "private_address"
        ? "invalid_profile_url"
        : error.reason === "too_large"
          ? "profile_malformed"
          : "profile_unreachable";
    return { error: new AppError(code, `Agent profile ${url}: ${error.message} (${error.reason})`) };
  }
  if (response.status < 200 || response.status > 299) {
    return {
      error: new AppError(
        "profile_unreachable",
        `Agent profile ${url} answered HTTP ${response.status} (http_status)`,
      ),
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(response.body);
  } catch {
    return { error: new AppError("profile_malformed", `Agent profile ${url} is not JSON (not_json)`) };
  }
  const parsed = AgentProfileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "invalid";
    return {
      error: new AppError("profile_malformed", `Agent profile ${url} is not a UCP profile (${where})`),
    };
  }
  return { profile: parsed.data, ttl: ttlFrom(response.headers["cache-control"]) };
};

const cacheKey = (url: string, allowPrivate: boolean): string =>
  // Keyed by policy too: a profile fetched where private addresses are allowed must not serve a live store.
  `${allowPrivate ? "private-ok" : "public-only"} ${url}`;

const ageOf = (entry: Entry): number => Date.now() - entry.fetchedAt;

const isFresh = (entry: Entry, maxAgeMs: number): boolean =>
  ageOf(entry) < Math.min(maxAgeMs, "error" in entry ? FAILURE_TTL_MS : entry.ttl);

/**
 * The cached entry if still fresh within maxAgeMs, else one fetch (shared by concurrent callers); `fetched` says
 * which.
 */
const lookup = async (
  url: string,
  allowPrivate: boolean,
  maxAgeMs: number,
): Promise<{ entry: Entry; fetched: boolean }> => {
  const key = cacheKey(url, allowPrivate);
  const cached = cache.get(key);
  if (cached && isFresh(cached, maxAgeMs)) return { entry: cached, fetched: false };
  let pending = inFlight.get(key);
  if (!pending) {
    pending = load(url, allowPrivate)
      .then((loaded): Entry => {
        const entry = { ...loaded, fetchedAt: Date.now() };
        cache.set(key, entry);
        return entry;
      })
      .finally(() => inFlight.delete(key));
    inFlight.set(key, pending);
  }
  return { entry: await pending, fetched: true };
};

const profileOf = (entry: Entry): AgentProfile => {
  if ("error" in entry) throw entry.error;
  return entry.profile;
};

/**
 * The agent profile at `url`, from the cache or fetched.
 * @throws AppError invalid_profile_url (refused target), profile_unreachable, profile_malformed
 */
export const getAgentProfile = async (
  url: string,
  { allowPrivate }: { allowPrivate: boolean },
): Promise<AgentProfile> => profileOf((await lookup(url, allowPrivate, MAX_TTL_MS)).entry);

export type AgentKeyLookup =
  | { found: true; key: Record<string, unknown>; profile: AgentProfile }
  | { found: false; profile: AgentProfile; why: string };

const findKey = (profile: AgentProfile, kid: string): Record<string, unknown> | undefined =>
  profile.signing_keys?.find((k) => k.kid === kid);

const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/**
 * A signing key of the agent at `url` by key id, per DECISIONS.md B13: from a copy of the profile at most
 * KEY_TRUST_MS old; an unknown kid refetches the profile once (at most every KEY_REFETCH_INTERVAL_MS per origin).
 * When the key is still missing, `why` says which copy of the profile was searched, for the caller's message.
 * @throws AppError invalid_profile_url, profile_unreachable, profile_malformed (the profile could not be read:
 *   keys from an older copy are not used)
 */
export const findAgentKey = async (
  url: string,
  kid: string,
  { allowPrivate }: { allowPrivate: boolean },
): Promise<AgentKeyLookup> => {
  const { entry: first, fetched } = await lookup(url, allowPrivate, KEY_TRUST_MS);
  const profile = profileOf(first);
  const key = findKey(profile, kid);
  if (key) return { found: true, key, profile };
  if (fetched) {
    return { found: false, profile, why: `is not in the signing_keys of ${url} (fetched just now)` };
  }
  const throttleKey = cacheKey(new URL(url).origin, allowPrivate);
  const last = keyRefetchedAt.get(throttleKey);
  const now = Date.now();
  if (last !== undefined && now - last < KEY_REFETCH_INTERVAL_MS) {
    const wait = seconds(KEY_REFETCH_INTERVAL_MS - (now - last));
    return {
      found: false,
      profile,
      why:
        `is not in the signing_keys of ${url} as fetched ${seconds(ageOf(first))} s ago; an unknown key ` +
        `refetches profiles of a host at most every ${KEY_REFETCH_INTERVAL_MS / 1000} s: retry in ${wait} s`,
    };
  }
  keyRefetchedAt.set(throttleKey, now);
  const refetched = profileOf((await lookup(url, allowPrivate, 0)).entry);
  const fresh = findKey(refetched, kid);
  if (fresh) return { found: true, key: fresh, profile: refetched };
  return {
    found: false,
    profile: refetched,
    why: `is not in the signing_keys of ${url} (refetched just now)`,
  };
};

/** Forgets cached profiles (tests, and an operator after an agent fixed its profile). */
export const clearAgentProfileCache = (): void => {
  cache.clear();
  keyRefetchedAt.clear();
};
