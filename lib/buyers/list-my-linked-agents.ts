import "server-only";

import { z } from "zod";

import { defineOperation } from "@/lib/core/operation";
import { LinkedAgentsOutputSchema } from "@/lib/ucp/output-schemas";

import { linkedAgentToWire } from "./account-wire";
import { buyerIdOrThrow } from "./buyer-of";
import { listLinkedAgents } from "./consents";

/** list_linked_agents on /account/mcp: the agents the buyer has linked (consented to). @throws identity_required */
export const listMyLinkedAgents = defineOperation({
  name: "list_linked_agents",
  title: "List linked agents",
  description:
    "List the agents (OAuth clients) linked to the buyer's account: name, URL, scopes, when granted and when last used.",
  scope: "global",
  input: z.object({}).strict(),
  output: LinkedAgentsOutputSchema,
  mutates: false,
  tier: "token",
  buyerScope: "purchase:complete",
  mcp: {
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  run: async (ctx) => {
    const agents = await listLinkedAgents(buyerIdOrThrow(ctx.principal));
    return { body: { linked_agents: agents.map(linkedAgentToWire) } };
  },
});
