import "server-only";

// Conformance mode (docs/conformance.md, docs/decisions.md "The conformance store"): a state of one server
// process, switched on only by `npm run conformance:serve` after it seeded the conformance store on a fresh data
// dir, never under NODE_ENV=production. While it is on, a request to that one store that carries neither a
// platform key nor a bearer resolves as the store's own conformance platform key (a real key row made by the seed,
// default platform permissions), so every rule after identity — capabilities, idempotency, money — runs as for
// any keyed call; and the store's conformance paths (the suite's base URL) answer. No other store, and no server
// started any other way, is affected: the state lives in this process only and is never read from the database
// or the environment.

export type ConformanceMode = {
  /** The conformance store's slug: the only store the mode applies to. */
  storeSlug: string;
  /** The whole platform key the seed created for the store (kept in memory only). */
  platformKey: string;
  /** The `Simulation-Secret` the simulate-shipping path requires. */
  simulationSecret: string;
};

let active: ConformanceMode | null = null;

/**
 * Switches conformance mode on for this process (the conformance command, and tests of the mode).
 * @throws Error under NODE_ENV=production
 */
export const enableConformanceMode = (mode: ConformanceMode): void => {
  if (process.env.NODE_ENV === "production") {
    throw new Error("conformance mode is refused under NODE_ENV=production");
  }
  if (mode.simulationSecret.length < 8)
    throw new Error("the simulation secret must be at least 8 characters");
  active = { ...mode };
};

/** Switches it off again (tests). */
export const disableConformanceMode = (): void => {
  active = null;
};

/** The mode, when it is on for the store with this slug; null for every other store and when it is off. */
export const conformanceModeFor = (storeSlug: string | undefined): ConformanceMode | null =>
  active !== null && storeSlug !== undefined && active.storeSlug === storeSlug ? active : null;

/** Whether the mode is on at all (a check that costs nothing on every request of a server without it). */
export const conformanceModeActive = (): boolean => active !== null;

/**
 * A keyless request to the conformance store, in conformance mode: its headers get the store's platform key, so
 * the rate limit, identity and every rule after them treat it as that key's call. A request with a key or a
 * bearer, to any other store, or while the mode is off, is left as it is.
 */
export const asConformanceCaller = async (
  request: Request,
  params: Promise<Record<string, string | string[] | undefined>> | undefined,
): Promise<Request> => {
  if (active === null || request.headers.has("x-api-key") || request.headers.has("authorization"))
    return request;
  const slug = ((await params) ?? {}).store_slug;
  const mode = conformanceModeFor(typeof slug === "string" ? slug : undefined);
  if (!mode) return request;
  try {
    request.headers.set("x-api-key", mode.platformKey);
    return request;
  } catch {
    // immutable headers (a Request built with that guard): a copy with the same body
    const headers = new Headers(request.headers);
    headers.set("x-api-key", mode.platformKey);
    return new Request(request, { headers, duplex: "half" } as RequestInit);
  }
};
