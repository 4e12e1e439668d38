// X-Content-Type-Options: nosniff on every answer of the service (JSON, pages, the OAuth error page, static
// files): a browser never guesses another type than the one declared, so an answer echoing caller text cannot be
// sniffed into script or HTML. Set in three places that together cover every path an answer takes: the route
// prelude (every route handler, also in-process), the Node server before any routing (lib/http/raw-request.ts:
// pages, static files, Next's own answers, the direct store routes) and next.config.mjs (what Next serves under
// `next dev`, where scripts/serve.ts does not run).

export const NOSNIFF = ["x-content-type-options", "nosniff"] as const;
