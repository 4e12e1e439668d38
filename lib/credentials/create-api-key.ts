import "server-only";

import { z } from "zod";

import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";

import { generateApiKey } from "./api-key-format";
import { PLATFORM_PERMISSIONS } from "./principal";

export const CreateApiKeyInputSchema = z.object({
  name: z.string().trim().min(1, "name is required").max(100),
  permissions: z.array(z.enum(PLATFORM_PERMISSIONS)).default([]),
});
export type CreateApiKeyInput = z.input<typeof CreateApiKeyInputSchema>;

export type CreatedApiKey = { id: string; name: string; permissions: string[]; key: string; createdAt: Date };

/**
 * Creates a platform API key, owned by a developer account when made in /developers. The plain key is returned
 * once and never stored (only its hash).
 * @throws ZodError for an empty name or an unknown permission (rendered as invalid_request)
 */
export const createApiKey = async (
  input: CreateApiKeyInput,
  { accountId = null }: { accountId?: string | null } = {},
): Promise<CreatedApiKey> => {
  const { name, permissions } = CreateApiKeyInputSchema.parse(input);
  const { key, prefix, secretHash } = generateApiKey();
  const db = await getDb();
  const row = await db.platformApiKey.create({
    data: {
      id: newId("apiKey"),
      name,
      prefix,
      secretHash,
      permissions: [...new Set(permissions)],
      accountId,
    },
  });
  return { id: row.id, name: row.name, permissions: row.permissions, key, createdAt: row.createdAt };
};
