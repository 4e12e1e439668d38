// @agent-commerce/agent-kit: what a shopping agent needs to buy from the Agent Commerce Service over REST (and the
// pieces an MCP agent shares): mandate terms and signing, RFC 9421 request signing, Idempotency-Key and retries,
// a typed REST client, an agent profile server with a generated key and a webhook receiver.

export * from "./mandate.js";
export * from "./http-signature.js";
export * from "./retry.js";
export * from "./client.js";
export * from "./transport.js";
export * from "./profile-server.js";
export * from "./jcs.js";
export * from "./webhook.js";
export type * from "./types.js";
