import "server-only";

import { z } from "zod";

import { defineOperation } from "@/lib/core/operation";

import { linkedAgentToWire } from "./account-wire";
import { buyerIdOrThrow } from "./buyer-of";
import { revokeLinkedAgent } from "./consents";

/**
 * revoke_linked_agent on /account/mcp: unlinks an agent; its refresh and access tokens stop working at once
 * (including the token making this call, when an agent revokes itself). @throws identity_required, not_found
 */
export const revokeMyLinkedAgent = defineOperation({
  name: "revoke_linked_agent",
  title: "Revoke a linked agent",
  description:
    "Unlink an agent from the buyer's account by its client id (`id`). Its refresh and access tokens stop working immediately.",
  scope: "global",
  input: z.object({ id: z.string().min(1, "id (the agent's client_id) is required").max(2048) }).strict(),
  mutates: false,
  tier: "token",
  mcp: { takesId: true, annotations: { destructiveHint: true, idempotentHint: false } },
  run: async (ctx, input) => {
    const agent = await revokeLinkedAgent({
      buyerId: buyerIdOrThrow(ctx.principal),
      clientId: input.id,
      now: ctx.now,
    });
    return { body: { revoked: linkedAgentToWire(agent) } };
  },
});
