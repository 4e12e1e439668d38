import { AsyncLocalStorage } from "node:async_hooks";

// Not server-only: scripts/serve.ts, which Node loads without the react-server condition, imports it too.

/**
 * Requests that no route handler answers (pages, next-auth, Next's own files) get their access line from the
 * HTTP server (scripts/serve.ts), which runs each request in this scope; a route handler marks it as logged. On
 * globalThis: the server's copy of this module and Next's bundled one must share it.
 */
type RequestScope = { routed: boolean };
const SCOPE = Symbol.for("agent-commerce-service.access-log-scope");
export const requestScope = ((globalThis as { [SCOPE]?: AsyncLocalStorage<RequestScope> })[SCOPE] ??=
  new AsyncLocalStorage<RequestScope>());

/** A page path as logged: the secret segment of a cart or payment link replaced, the query dropped. */
export const pagePathForLog = (url: string): string =>
  url
    .split("?")[0]!
    .replace(/^(\/s\/[^/]+\/(?:cart|pay))\/[^/]+/, "$1/[token]")
    .slice(0, 200);
