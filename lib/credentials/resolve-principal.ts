import "server-only";

import { getDb, type Db } from "@/lib/config/db";
import { getBaseUrl } from "@/lib/config/env";
import { rowCache } from "@/lib/config/row-cache";
import { AppError } from "@/lib/core/errors";
import { bearerChallenge } from "@/lib/oauth/bearer-challenge";
import { guardAuthCheck } from "@/lib/rate-limit/auth-failures";

import { hashApiKey, isSameHash, parseApiKeyPrefix } from "./api-key-format";
import { ANONYMOUS, type Principal } from "./principal";
import { verifyBearerToken } from "./verify-bearer-token";

const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * Key rows by prefix, read on every keyed call: kept briefly in memory. A revocation is seen at once by this
 * instance and within ROW_CACHE_TTL_MS (at most 5 s) by every other (lib/config/row-cache.ts).
 */
const keyRows =
  rowCache<NonNullable<Awaited<ReturnType<Db["platformApiKey"]["findUnique"]>>>>("platform_api_keys");

export type CredentialHeaders = { apiKey: string | null; authorization: string | null };

const invalidToken = (message: string) =>
  new AppError("invalid_token", message, {
    // seed §5 rule 2: the header is relayed unchanged by clients and bridges; RFC 9728 §5.1 resource_metadata
    // lets a client find the authorization server from this 401 alone
    headers: { "WWW-Authenticate": bearerChallenge({ baseUrl: getBaseUrl(), error: "invalid_token" }) },
  });

// Failed authentication is counted per source and per key prefix (lib/rate-limit/auth-failures.ts): a spent
// budget answers 429 before the key is even looked up.
const resolveApiKey = (key: string): Promise<Principal> => {
  const prefix = parseApiKeyPrefix(key);
  return guardAuthCheck(prefix && `key:${prefix}`, ["invalid_api_key"], () => lookUpApiKey(key, prefix));
};

// Where keys come from, so a refused key says what to do next (as the missing-key refusal does).
const whereKeysAre = () =>
  `platform keys are created and listed (by their acs_<prefix>) on ${getBaseUrl()}/developers, or by the ` +
  `operator with npm run admin -- create-api-key / list-api-keys`;

/** Why a key that does not parse is refused: a merchant key is the usual mix-up. */
const malformedKeyMessage = (key: string): string =>
  key.startsWith("acsm_")
    ? `X-API-Key is a merchant key (acsm_…), which opens only its store's merchant API; the shopping surfaces take a platform key (acs_…): ${whereKeysAre()}`
    : `X-API-Key is not a valid platform key: a platform key has the form acs_<12 characters>_<43 characters>; send it whole, without quotes or spaces (${whereKeysAre()})`;

const lookUpApiKey = async (key: string, prefix: string | null): Promise<Principal> => {
  if (!prefix) throw new AppError("invalid_api_key", malformedKeyMessage(key));
  const db = await getDb();
  const row = await keyRows.get(prefix, () => db.platformApiKey.findUnique({ where: { prefix } }));
  if (!row || !isSameHash(row.secretHash, hashApiKey(key))) {
    throw new AppError(
      "invalid_api_key",
      `X-API-Key is not a valid platform key of this service (${getBaseUrl()}): check that it is the whole key as shown when it was created, for this service and not another one; ${whereKeysAre()}`,
    );
  }
  if (row.revokedAt) {
    throw new AppError(
      "invalid_api_key",
      `X-API-Key has been revoked: use another key or create a new one (${whereKeysAre()})`,
    );
  }
  // "last used" for its owner, to the minute: one conditional write a minute at most, never one per request
  const now = new Date();
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_GRANULARITY_MS) {
    await db.platformApiKey.updateMany({
      where: {
        id: row.id,
        OR: [
          { lastUsedAt: null },
          { lastUsedAt: { lt: new Date(now.getTime() - LAST_USED_GRANULARITY_MS) } },
        ],
      },
      data: { lastUsedAt: now },
    });
  }
  return {
    kind: "platform",
    id: `key:${row.id}`,
    keyId: row.id,
    name: row.name,
    permissions: row.permissions,
  };
};

/**
 * Resolves the caller from X-API-Key and Authorization. seed §5 rule 1: when both arrive the key wins and the
 * bearer is not even looked at (the buyer is not loaded). No credential → anonymous.
 * @throws AppError invalid_api_key, invalid_token
 */
export const resolvePrincipal = async ({ apiKey, authorization }: CredentialHeaders): Promise<Principal> => {
  if (apiKey !== null) return resolveApiKey(apiKey.trim());
  if (authorization === null) return ANONYMOUS;
  return guardAuthCheck(null, ["invalid_token"], async () => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) throw invalidToken("Authorization must be `Bearer <access token>`");
    const principal = await verifyBearerToken(match[1]);
    if (!principal) throw invalidToken("The bearer token is expired or invalid");
    return principal;
  });
};
