import "server-only";

import { z } from "zod";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import { generateApiKey, hashApiKey } from "@/lib/credentials/api-key-format";
import { PLATFORM_PERMISSIONS } from "@/lib/credentials/principal";

// Confidential platform clients for client_credentials, registered by operators with the admin CLI.
// The secret is shown once; only its SHA-256 is stored (256-bit random secret, so no stretching is needed).

export const CreateOAuthClientInputSchema = z.object({
  name: z.string().trim().min(1, "name is required").max(100),
  scopes: z.array(z.enum(PLATFORM_PERMISSIONS)).default([]),
});
export type CreateOAuthClientInput = z.input<typeof CreateOAuthClientInputSchema>;

export type CreatedOAuthClient = { clientId: string; clientSecret: string; name: string; scopes: string[] };

/** @throws ZodError for an empty name or an unknown scope (rendered as invalid_request) */
export const createOAuthClient = async (input: CreateOAuthClientInput): Promise<CreatedOAuthClient> => {
  const { name, scopes } = CreateOAuthClientInputSchema.parse(input);
  const clientId = newId("oauthClient");
  const clientSecret = `ocs_${generateApiKey().key.slice(-43)}`;
  const db = await getDb();
  await db.oAuthClient.create({
    data: {
      id: clientId,
      clientId,
      name,
      secretHash: hashApiKey(clientSecret),
      scopes: [...new Set(scopes)],
    },
  });
  return { clientId, clientSecret, name, scopes: [...new Set(scopes)] };
};

export type OAuthClientSummary = {
  clientId: string;
  name: string;
  scopes: string[];
  createdAt: Date;
  revokedAt: Date | null;
};

export const listOAuthClients = async (): Promise<OAuthClientSummary[]> => {
  const db = await getDb();
  return db.oAuthClient.findMany({
    orderBy: { createdAt: "asc" },
    select: { clientId: true, name: true, scopes: true, createdAt: true, revokedAt: true },
  });
};

/** @throws AppError not_found */
export const revokeOAuthClient = async (clientId: string, now = new Date()): Promise<OAuthClientSummary> => {
  const db = await getDb();
  const row = await db.oAuthClient.findUnique({ where: { clientId } });
  if (!row) throw new AppError("not_found", `No OAuth client ${clientId}`);
  const updated = row.revokedAt
    ? row
    : await db.oAuthClient.update({ where: { clientId }, data: { revokedAt: now } });
  return {
    clientId: updated.clientId,
    name: updated.name,
    scopes: updated.scopes,
    createdAt: updated.createdAt,
    revokedAt: updated.revokedAt,
  };
};
