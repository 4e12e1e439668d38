// The public surfaces of the service (seed §4), shown on the landing page and mirrored in the README.
export const SURFACES = [
  { path: "/.well-known/ucp", transport: "REST GET (platform profile)", credential: "none" },
  {
    path: "/demo/agent/.well-known/ucp",
    transport: "REST GET (example agent profile for UCP-Agent)",
    credential: "none",
  },
  { path: "/mcp", transport: "MCP (global catalog)", credential: "none; X-API-Key optional" },
  {
    path: "/catalog/product",
    transport: "REST POST (global catalog)",
    credential: "none; X-API-Key optional",
  },
  {
    path: "/catalog/search, /catalog/lookup, /catalog/changes",
    transport: "REST POST (global catalog search, batch lookup and change feed)",
    credential: "none; X-API-Key optional",
  },
  { path: "/s/<store_slug>/.well-known/ucp", transport: "REST GET (store profile)", credential: "none" },
  {
    path: "/s/<store_slug>/mcp",
    transport: "MCP (per store)",
    credential: "X-API-Key (token tier) per tool",
  },
  {
    path: "/s/<store_slug>/catalog/product",
    transport: "REST POST (per store)",
    credential: "none; X-API-Key optional",
  },
  {
    path: "/s/<store_slug>/catalog/search, …/catalog/lookup, …/catalog/changes",
    transport: "REST POST (per store search, batch lookup and change feed)",
    credential: "none; X-API-Key optional",
  },
  {
    path: "/s/<store_slug>/carts",
    transport: "REST POST; GET/PUT …/carts/<id>; POST …/carts/<id>/cancel",
    credential: "X-API-Key (token tier)",
  },
  {
    path: "/.well-known/oauth-authorization-server",
    transport: "REST GET (OAuth 2.1 authorization server metadata)",
    credential: "none",
  },
  {
    path: "/ucp/oauth2/{authorize,token,revoke}",
    transport: "OAuth 2.1 (PKCE S256, CIMD client ids)",
    credential: "public client or client secret",
  },
  { path: "/account/mcp", transport: "MCP (buyer account: linked agents)", credential: "buyer bearer token" },
  {
    path: "/bridge/mcp",
    transport: "MCP (the bridge: flat tools in major units over every store, card purchases)",
    credential: "X-API-Key; buyer bearer for account tools",
  },
  {
    path: "/merchant/v1/stores/<store_slug>/…",
    transport: "REST (merchant API: settings, rails, orders; minor units)",
    credential: "merchant key (X-API-Key: acsm_…)",
  },
  { path: "/account/agents", transport: "web page (consent centre)", credential: "Sui wallet sign-in" },
  { path: "/account/orders", transport: "web page (My orders)", credential: "Sui wallet sign-in" },
] as const;
