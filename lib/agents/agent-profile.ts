import "server-only";

import { LRUCache } from "lru-cache";
import { z } from "zod";

import { AppError } from "@/lib/core/errors";
import { guardedFetch, OutboundError } from "@/lib/outbound/guarded-fetch";

// The platform (agent) profile named in UCP-Agent (CONTRACT.md §4): fetched through the outbound guard, cached for
// at least 60 s (longer when its Cache-Control says so, at most an hour), concurrent misses share one fetch, and a
// failure is remembered briefly so a bad URL cannot make us fetch on every request.

const MIN_TTL_MS = 60_000;
const MAX_TTL_MS = 3_600_000;
const FAILURE_TTL_MS = 10_000;
export const PROFILE_MAX_BYTES = 64 * 1024;
export const PROFILE_TIMEOUT_MS = 3_000;

const AgentProfileSchema = z.object({
  ucp: z
    .object({
      version: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "ucp.version must be YYYY-MM-DD"),
      supported_versions: z.record(z.string(), z.string()).optional(),
      services: z.record(z.string(), z.unknown()).optional(),
      capabilities: z.record(z.string(), z.unknown()).optional(),
      payment_handlers: z.record(z.string(), z.unknown()).optional(),
    })
    .loose(),
  signing_keys: z.array(z.object({ kid: z.string(), kty: z.string() }).loose()).optional(),
});
export type AgentProfile = z.infer<typeof AgentProfileSchema>;

type Entry = { profile: AgentProfile; ttl: number } | { error: AppError };

const cache = new LRUCache<string, Entry>({ max: 2_000 });
const inFlight = new Map<string, Promise<Entry>>();

const ttlFrom = (cacheControl: string | undefined): number => {
  const maxAge = Number(/(?:^|,)\s*max-age=(\d+)/i.exec(cacheControl ?? "")?.[1]);
  const ms = Number.isFinite(maxAge) ? maxAge * 1000 : 0;
  return Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, ms));
};

const load = async (url: string, allowPrivate: boolean): Promise<Entry> => {
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

/**
 * The agent profile at `url`, from the cache or fetched.
 * @throws AppError invalid_profile_url (refused target), profile_unreachable, profile_malformed
 */
export const getAgentProfile = async (url: string, { allowPrivate }: { allowPrivate: boolean }) => {
  // Keyed by policy too: a profile fetched where private addresses are allowed must not serve a live store.
  const key = `${allowPrivate ? "private-ok" : "public-only"} ${url}`;
  let entry = cache.get(key);
  if (!entry) {
    let pending = inFlight.get(key);
    if (!pending) {
      pending = load(url, allowPrivate).finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    entry = await pending;
    cache.set(key, entry, { ttl: "error" in entry ? FAILURE_TTL_MS : entry.ttl });
  }
  if ("error" in entry) throw entry.error;
  return entry.profile;
};

/** Forgets cached profiles (tests, and an operator after an agent fixed its profile). */
export const clearAgentProfileCache = (): void => cache.clear();
