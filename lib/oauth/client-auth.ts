import "server-only";

import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { hashApiKey, isSameHash } from "@/lib/credentials/api-key-format";
import { guardAuthCheck } from "@/lib/rate-limit/auth-failures";

import { isUrlClientId } from "./cimd";

// Client authentication at the token and revocation endpoints (RFC 6749 §2.3). Public CIMD clients send only
// client_id (auth method `none`, protected by PKCE); registered platform clients send their secret in the body
// or with HTTP Basic — one method per request. Secrets are stored hashed and compared in constant time.

export type AuthenticatedClient =
  | { kind: "public"; clientId: string }
  | { kind: "confidential"; clientId: string; name: string; scopes: string[] };

const basicCredentials = (authorization: string | null): { id: string; secret: string } | null => {
  if (!authorization) return null;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
  if (!match?.[1]) throw new AppError("invalid_client", "Malformed HTTP Basic credentials");
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) throw new AppError("invalid_client", "Malformed HTTP Basic credentials");
  // RFC 6749 §2.3.1: id and secret are form-urlencoded before Basic encoding
  try {
    return {
      id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " ")),
      secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " ")),
    };
  } catch {
    throw new AppError("invalid_client", "Malformed HTTP Basic credentials");
  }
};

/** @throws AppError invalid_client, invalid_request */
export const authenticateClient = async (
  form: URLSearchParams,
  authorization: string | null,
): Promise<AuthenticatedClient> => {
  const basic = basicCredentials(authorization);
  const bodySecret = form.get("client_secret");
  if (basic && bodySecret !== null) {
    throw new AppError(
      "invalid_request",
      "Use one client authentication method, not Basic and client_secret",
    );
  }
  const bodyId = form.get("client_id");
  if (basic && bodyId !== null && bodyId !== basic.id) {
    throw new AppError("invalid_request", "client_id differs from the HTTP Basic client");
  }
  const clientId = basic?.id ?? bodyId;
  if (!clientId) throw new AppError("invalid_client", "client_id is required");
  const secret = basic?.secret ?? bodySecret;

  if (secret === null) {
    return guardAuthCheck(null, ["invalid_client"], async () => {
      if (!isUrlClientId(clientId)) {
        throw new AppError("invalid_client", "Unknown client, or a registered client without its secret");
      }
      return { kind: "public", clientId };
    });
  }
  // a wrong secret counts against the source and the registered client's id (lib/rate-limit/auth-failures.ts)
  return guardAuthCheck(`oauth-client:${clientId}`, ["invalid_client"], () =>
    checkClientSecret(clientId, secret),
  );
};

const checkClientSecret = async (clientId: string, secret: string): Promise<AuthenticatedClient> => {
  const db = await getDb();
  const row = await db.oAuthClient.findUnique({ where: { clientId } });
  // hash anyway so an unknown id costs the same as a wrong secret
  const presented = hashApiKey(secret);
  if (!row || !isSameHash(row.secretHash, presented) || row.revokedAt) {
    throw new AppError("invalid_client", "Client authentication failed");
  }
  return { kind: "confidential", clientId: row.clientId, name: row.name, scopes: row.scopes };
};
