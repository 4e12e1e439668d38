import "server-only";

import { z } from "zod";

import { AppError } from "@/lib/core/errors";
import { defineOperation } from "@/lib/core/operation";
import { RevokedAgentOutputSchema } from "@/lib/ucp/output-schemas";

import { linkedAgentToWire } from "./account-wire";
import { buyerIdOrThrow } from "./buyer-of";
import { revokeLinkedAgent } from "./consents";

/**
 * revoke_linked_agent on /account/mcp: the calling agent unlinks itself; its refresh and access tokens stop
 * working at once (the token making this call included). Unlinking another agent is the buyer's own decision,
 * taken on the linked-agents page, never an agent's: that id is answered not_found, as for an agent the buyer
 * never linked, so one agent cannot cut another off. @throws identity_required, not_found
 */
export const revokeMyLinkedAgent = defineOperation({
  name: "revoke_linked_agent",
  title: "Revoke a linked agent",
  description:
    "Unlink yourself (the calling agent, `id` = your client_id) from the buyer's account. Your refresh and access tokens stop working immediately. Other agents are unlinked only by the buyer, on their linked-agents page.",
  errors: ["not_found"],
  scope: "global",
  input: z.object({ id: z.string().min(1, "id (the agent's client_id) is required").max(2048) }).strict(),
  output: RevokedAgentOutputSchema,
  mutates: false,
  tier: "token",
  buyerScope: "purchase:complete",
  mcp: {
    takesId: true,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
  run: async (ctx, input) => {
    const buyerId = buyerIdOrThrow(ctx.principal);
    if (ctx.principal.kind === "buyer" && input.id !== ctx.principal.clientId) {
      throw new AppError(
        "not_found",
        `No linked agent "${input.id}" you can revoke: an agent unlinks only itself (your client_id is ${ctx.principal.clientId}); the buyer unlinks others on their linked-agents page`,
        { path: "$.id" },
      );
    }
    const agent = await revokeLinkedAgent({
      buyerId,
      clientId: input.id,
      now: ctx.now,
    });
    return { body: { revoked: linkedAgentToWire(agent) } };
  },
});
