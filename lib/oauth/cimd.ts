import "server-only";

import { LRUCache } from "lru-cache";
import { z } from "zod";

import { AppError } from "@/lib/core/errors";
import { guardedFetch, OutboundError, type GuardedResponse } from "@/lib/outbound/guarded-fetch";
import { outboundAllowsPrivate } from "@/lib/outbound/policy";

import { CIMD_CACHE_SECONDS, CIMD_MAX_BYTES, CIMD_MAX_REDIRECTS, CIMD_TIMEOUT_MS } from "./constants";

// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document; seed §5 rule 4): a client id that
// is an https URL names a JSON document the client hosts. We fetch it through the SSRF guard (DECISIONS.md B10),
// check it, and cache the good ones about 600 s honouring Cache-Control. Failures are never cached.
// Clients change their documents without telling us (DECISIONS.md B13, the rule for agent keys): a cached document
// that does not list what the request needs (a new redirect_uri) is refetched once, at most every
// CIMD_REFETCH_INTERVAL_MS per client, before the request is refused. CIMD clients are public (no keys), so there is
// no key to bound in time here.

export type ClientMetadata = {
  clientId: string;
  clientName: string;
  clientUri: string | null;
  logoUri: string | null;
  redirectUris: string[];
};

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

const invalidClient = (message: string) => new AppError("invalid_client", message);

/** Whether a client id is meant as a CIMD URL (anything else is a registered client id or garbage). */
export const isUrlClientId = (clientId: string): boolean => /^https?:\/\//i.test(clientId);

/**
 * Checks the shape of a CIMD client id: https (loopback http in test mode), a path, no fragment, no
 * credentials, no dot segments (draft §3).
 * @throws AppError invalid_client
 */
export const parseCimdClientId = (clientId: string, { testMode }: { testMode: boolean }): URL => {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw invalidClient("client_id is not a valid URL");
  }
  const isLoopbackHttp = url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol !== "https:" && !(testMode && isLoopbackHttp)) {
    throw invalidClient("client_id must be an https URL (a client metadata document)");
  }
  if (url.username || url.password) throw invalidClient("client_id must not contain credentials");
  if (clientId.includes("#")) throw invalidClient("client_id must not contain a fragment");
  if (url.pathname === "/" || url.pathname === "") throw invalidClient("client_id must contain a path");
  if (/\/\.{1,2}(\/|$)/.test(clientId.replace(/[?#].*$/, "").slice(url.origin.length))) {
    throw invalidClient("client_id must not contain dot segments");
  }
  if (url.href !== clientId) throw invalidClient("client_id must be in normalized URL form");
  return url;
};

const HttpUrlSchema = z
  .string()
  .max(2048)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === "https:" || u.protocol === "http:";
    } catch {
      return false;
    }
  }, "must be an http(s) URL");

const ClientMetadataDocumentSchema = z.looseObject({
  client_id: z.string(),
  client_name: z.string().trim().min(1).max(200).optional(),
  client_uri: HttpUrlSchema.optional(),
  logo_uri: HttpUrlSchema.optional(),
  redirect_uris: z.array(z.string().max(2048)).min(1, "redirect_uris must list at least one URI"),
  token_endpoint_auth_method: z.string().optional(),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
  scope: z.string().optional(),
});

/**
 * Redirect URIs we will ever send a browser to (RFC 9700 §2.1; RFC 8252 §7): https; http only to a loopback host
 * (native apps); or a reverse-domain private-use scheme (`com.example.app:/cb`). Never javascript:, data:, file:…
 * No fragment (RFC 6749 §3.1.2).
 */
export const isAcceptableRedirectUri = (uri: string): boolean => {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.hash || uri.includes("#")) return false;
  if (url.protocol === "https:") return url.hostname !== "";
  if (url.protocol === "http:") return LOOPBACK_HOSTS.has(url.hostname);
  return /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/.test(url.protocol);
};

const ALLOWED_GRANTS = new Set(["authorization_code", "refresh_token"]);

/**
 * Validates a fetched document against its URL (draft §4: client_id equals the URL; public clients only).
 * @throws AppError invalid_client naming what is wrong
 */
export const validateClientMetadata = (url: string, document: unknown): ClientMetadata => {
  const parsed = ClientMetadataDocumentSchema.safeParse(document);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join(".") : "document";
    throw invalidClient(`Client metadata document: ${where}: ${issue?.message ?? "invalid"}`);
  }
  const doc = parsed.data;
  if (doc.client_id !== url) throw invalidClient("Client metadata document: client_id must equal its URL");
  // draft §4.1: a CIMD client has no shared secret; we accept public clients (`none` + PKCE) only
  const method = doc.token_endpoint_auth_method ?? "none";
  if (method !== "none") {
    throw invalidClient(
      `Client metadata document: token_endpoint_auth_method "${method}" is not supported (use none)`,
    );
  }
  if ("client_secret" in doc) throw invalidClient("Client metadata document must not contain client_secret");
  const badGrant = doc.grant_types?.find((g) => !ALLOWED_GRANTS.has(g));
  if (badGrant) throw invalidClient(`Client metadata document: grant type "${badGrant}" is not allowed`);
  if (doc.response_types && doc.response_types.some((r) => r !== "code")) {
    throw invalidClient('Client metadata document: only response_types ["code"] is allowed');
  }
  for (const uri of doc.redirect_uris) {
    if (!isAcceptableRedirectUri(uri)) {
      throw invalidClient("Client metadata document: redirect_uris contains an unacceptable URI");
    }
  }
  return {
    clientId: url,
    clientName: doc.client_name ?? new URL(url).host,
    clientUri: doc.client_uri ?? null,
    logoUri: doc.logo_uri ?? null,
    redirectUris: doc.redirect_uris,
  };
};

/** Seconds to cache a good document: Cache-Control max-age (≤ 600), none for no-store/no-cache, else 600. */
export const cacheSecondsFor = (cacheControl: string | undefined): number => {
  if (!cacheControl) return CIMD_CACHE_SECONDS;
  const directives = cacheControl
    .toLowerCase()
    .split(",")
    .map((d) => d.trim());
  if (directives.some((d) => d === "no-store" || d === "no-cache")) return 0;
  const maxAge = directives.find((d) => d.startsWith("max-age="));
  if (!maxAge) return CIMD_CACHE_SECONDS;
  const seconds = Number.parseInt(maxAge.slice("max-age=".length), 10);
  return Number.isFinite(seconds) && seconds >= 0
    ? Math.min(seconds, CIMD_CACHE_SECONDS)
    : CIMD_CACHE_SECONDS;
};

const isJsonContentType = (value: string | undefined): boolean => {
  const type = (value ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  return type === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(type);
};

const cache = new LRUCache<string, ClientMetadata>({ max: 1000 });
const refetchedAt = new LRUCache<string, number>({ max: 1000 });
export const CIMD_REFETCH_INTERVAL_MS = 30_000;

/** Test seam for the cache (tests observe that failures are not cached and good documents are). */
export const clearCimdCache = (): void => {
  cache.clear();
  refetchedAt.clear();
};
export const isCimdCached = (clientId: string): boolean => cache.has(clientId);

export type FetchDocument = (url: string) => Promise<GuardedResponse>;

/**
 * Resolves a CIMD client: cache, else fetch (guarded: public addresses only unless test mode, ≤ 3 redirects
 * each re-checked, ≤ 5 kB, timeout), require 200 + a JSON content type, validate, cache. A cached document that
 * `accepts` refuses is refetched (at most every CIMD_REFETCH_INTERVAL_MS per client); the caller still checks the
 * result.
 * @throws AppError invalid_client
 */
export const resolveCimdClient = async (
  clientId: string,
  {
    testMode,
    fetchDocument,
    accepts,
  }: { testMode: boolean; fetchDocument?: FetchDocument; accepts?: (metadata: ClientMetadata) => boolean },
): Promise<ClientMetadata> => {
  const url = parseCimdClientId(clientId, { testMode });
  const hit = cache.get(clientId);
  if (hit) {
    if (!accepts || accepts(hit)) return hit;
    const last = refetchedAt.get(clientId);
    if (last !== undefined && Date.now() - last < CIMD_REFETCH_INTERVAL_MS) return hit;
    refetchedAt.set(clientId, Date.now());
  }
  const fetcher: FetchDocument =
    fetchDocument ??
    ((target) =>
      guardedFetch(target, {
        // test mode admits loopback client ids; the deployment still decides whether they may be fetched
        allowPrivate: testMode && outboundAllowsPrivate(null),
        maxBytes: CIMD_MAX_BYTES,
        timeoutMs: CIMD_TIMEOUT_MS,
        maxRedirects: CIMD_MAX_REDIRECTS,
      }));
  let response: GuardedResponse;
  try {
    response = await fetcher(url.href);
  } catch (error) {
    if (error instanceof OutboundError) {
      throw invalidClient(`The client metadata document could not be fetched (${error.reason})`);
    }
    throw error;
  }
  if (response.status !== 200) {
    throw invalidClient(`The client metadata document answered HTTP ${response.status}`);
  }
  if (!isJsonContentType(response.headers["content-type"])) {
    throw invalidClient("The client metadata document is not served as application/json");
  }
  let document: unknown;
  try {
    document = JSON.parse(response.body);
  } catch {
    throw invalidClient("The client metadata document is not valid JSON");
  }
  const metadata = validateClientMetadata(clientId, document);
  const ttl = cacheSecondsFor(response.headers["cache-control"]);
  if (ttl > 0) cache.set(clientId, metadata, { ttl: ttl * 1000 });
  return metadata;
};
