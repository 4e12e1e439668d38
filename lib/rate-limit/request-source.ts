import "server-only";

import { AsyncLocalStorage } from "node:async_hooks";

import { handOverClientAddress, UNKNOWN_CLIENT } from "./client-address";

// The client address of the request being served, for the failed-authentication counters deep in lib/credentials
// and lib/oauth: the prelude (lib/http/prelude.ts) runs every handler inside withRequestSource, so the code that
// decides "wrong credential" can count against the source without every signature on the way carrying it.
// Outside a request (scripts, the CLI) there is no source and only per-credential counters apply.

const KEY = Symbol.for("agent-commerce-service.request-source");
type Holder = { [KEY]?: AsyncLocalStorage<string> };
// on globalThis: Next may load this module more than once (one instance per bundle), the store must be one
const storage = ((globalThis as Holder)[KEY] ??= new AsyncLocalStorage<string>());

/** Runs `fn` with `source` (the client address) as the current request's source. */
export const withRequestSource = <T>(source: string, fn: () => Promise<T>): Promise<T> =>
  storage.run(source, fn);

/** The client address of the request being served, or null outside a request. */
export const currentRequestSource = (): string | null => storage.getStore() ?? null;

/**
 * The current request's client address handed over to calls made on its behalf back into this process (the
 * mounted bridge's calls to the service): the headers to send, and `release` for when the request ends. Undefined
 * outside a request or when the address is unknown (those calls then count as the bridge's own).
 */
export const handOverRequestSource = (): ReturnType<typeof handOverClientAddress> | undefined => {
  const source = currentRequestSource();
  return source === null || source === UNKNOWN_CLIENT ? undefined : handOverClientAddress(source);
};
