// X-Content-Type-Options: nosniff on every answer of the service (JSON, pages, the OAuth error page, static
// files): a browser never guesses another type than the one declared, so an answer echoing caller text cannot be
// sniffed into script or HTML. Set in three places that together cover every path an answer takes: the route
// prelude (every route handler, also in-process), the Node server before any routing (lib/http/raw-request.ts:
// pages, static files, Next's own answers, the direct store routes) and next.config.mjs (what Next serves under
// `next dev`, where scripts/serve.ts does not run).

export const NOSNIFF = ["x-content-type-options", "nosniff"] as const;

// Referrer-Policy on every answer, set in the same three places as nosniff. A page's address can carry a secret
// (a cart or payment link's token, a consent request): another site is told at most our origin, never the path or
// query. A stricter policy is chosen by path in next.config.mjs (the buyer identity pages and /oauth/* send
// no-referrer), which Next applies over this default; a route handler's own header does not win over it on the real
// server (Next keeps a header the Node server already set), so it is not the place to choose one.
export const REFERRER_POLICY = ["referrer-policy", "strict-origin-when-cross-origin"] as const;
