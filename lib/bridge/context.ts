import type { Credentials, MandateSigner, UcpError, UcpTransport } from "@agent-commerce/agent-kit";

// What one bridge tool call runs with. The bridge is a client of the service's public surfaces (DECISIONS.md B11,
// STYLE.md §5): it holds no database and no domain code, only transports to the service, the caller's credentials
// and its own signing key.

export type BridgeContext = {
  /** The shopping surfaces (global catalog, per-store MCP), under the bridge's own agent profile. */
  shop: UcpTransport;
  /** The buyer account MCP (no agent profile, no Request-Id needed: seed §5 rule 9). */
  account: UcpTransport;
  /** The caller's credentials, as they reached the bridge. */
  credentials: Credentials;
  /** The bridge's mandate key: its public half is in the bridge's agent profile. */
  signer: MandateSigner;
  /** Extra headers on every call to the service (e.g. `Forwarded` with the caller's address). */
  headers?: Record<string, string>;
  /** A 401 from the service: the HTTP surface answers the MCP request itself with it (seed §5 rule 6). */
  onUnauthorized?: (error: UcpError) => void;
};

/** Seed §5 rule 1: platform calls carry the key only (a bearer beside it would be ignored, and leak). */
export const platformCredentials = (ctx: BridgeContext): Credentials =>
  ctx.credentials.apiKey ? { apiKey: ctx.credentials.apiKey } : {};

/** Seed §5 rule 1: buyer-bound calls carry the bearer alone (with a key beside it, the key would win). */
export const buyerCredentials = (ctx: BridgeContext): Credentials =>
  ctx.credentials.authorization ? { authorization: ctx.credentials.authorization } : {};

export const storeMcpPath = (storeSlug: string): string => `/s/${encodeURIComponent(storeSlug)}/mcp`;
