import type { LinkedAgent } from "./consents";

// The wire shape of a linked agent on the account surface (snake_case; STYLE.md §8).
export const linkedAgentToWire = (agent: LinkedAgent) => ({
  client_id: agent.clientId,
  client_name: agent.clientName,
  client_uri: agent.clientUri,
  logo_uri: agent.logoUri,
  scopes: agent.scopes,
  granted_at: agent.grantedAt.toISOString(),
  last_used_at: agent.lastUsedAt?.toISOString() ?? null,
});
