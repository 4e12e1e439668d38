import { handlersTo0111 } from "./checkout";
import { ucpDown } from "./envelope";
import type { HandlerDocs, OlderVersion } from "./index";

// Profiles at the older versions (docs/ucp-versions.md §1.1, §1.2, §3.2): the platform's (agent's), read to
// negotiate, and our leaf profiles, published at the URLs of `supported_versions`.
// An agent's 2026-01-11 `ucp.capabilities` is an array of `{name, version, spec, schema, extends?, config?}`
// (`ucp.json#/$defs/discovery_profile`); at 2026-01-23 and 2026-04-08 a map name → entries. We keep one internal
// form, the map, so negotiation and the order webhook URL (`config.webhook_url`) are read the same way.

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * A profile's `ucp.capabilities` as the map form: a 01-11 array becomes name → its entries without `name`
 * (entries with no string `name` are dropped: they declare nothing we could match); a map passes untouched.
 */
export const capabilitiesAsMap = (capabilities: unknown): Json | undefined => {
  if (!Array.isArray(capabilities)) return isObject(capabilities) ? capabilities : undefined;
  const map: Record<string, Json[]> = {};
  for (const entry of capabilities) {
    if (!isObject(entry) || typeof entry.name !== "string") continue;
    const { name, ...rest } = entry;
    (map[name] ??= []).push(rest);
  }
  return map;
};

/** The transports a leaf profile lists: only those on which the whole purchase works at that version. */
export type LeafTransport = "rest" | "mcp";

// the older tags name their documents without a version segment (01-11 overview.md:252-288)
const unversioned = (url: unknown): unknown =>
  typeof url === "string" ? url.replace(/^https:\/\/ucp\.dev\/\d{4}-\d{2}-\d{2}\//, "https://ucp.dev/") : url;

const SERVICE_SPEC = "https://ucp.dev/specification/overview";
const SERVICE_SCHEMAS: Record<LeafTransport, string> = {
  rest: "https://ucp.dev/services/shopping/rest.openapi.json",
  mcp: "https://ucp.dev/services/shopping/mcp.openrpc.json",
};

type BusinessProfile = { ucp: Json; signing_keys?: unknown } & Json;

/**
 * The leaf profile of `version` (docs/ucp-versions.md §1.2, §3.2), built from our 2026-04-08 store profile so
 * nothing is written twice: that version's shape, only the capabilities it defines (`capabilities`), only the
 * transports that work at it, every entry at that version, and no `supported_versions` (leaves MUST NOT carry it,
 * 04-08 overview.md:1896-1898). 2026-01-11: capability array, one service object, handlers in a top-level
 * `payment.handlers[]` with their documents (`docs`); 2026-01-23: maps, `extends` a string, identity linking
 * without its 04-08 `config`.
 */
export const leafProfile = (
  version: OlderVersion,
  current: BusinessProfile,
  {
    capabilities,
    transports,
    docs,
  }: {
    capabilities: readonly string[];
    transports: readonly LeafTransport[];
    docs: (registryKey: string) => HandlerDocs;
  },
): Json => {
  const { supported_versions: _leafHasNone, ...ucp } = current.ucp;
  const services = isObject(ucp.services) ? ucp.services : {};
  const endpointOf = (transport: LeafTransport): string | undefined => {
    for (const entries of Object.values(services)) {
      for (const entry of Array.isArray(entries) ? entries : []) {
        if (isObject(entry) && entry.transport === transport && typeof entry.endpoint === "string") {
          return entry.endpoint;
        }
      }
    }
    return undefined;
  };
  const listed = transports.flatMap((t) => {
    const endpoint = endpointOf(t);
    return endpoint ? [[t, endpoint] as const] : [];
  });
  const declared = isObject(ucp.capabilities) ? ucp.capabilities : {};
  const entries = Object.entries(declared)
    .filter(([name]) => capabilities.includes(name))
    .flatMap(([name, list]) =>
      (Array.isArray(list) ? list : []).filter(isObject).map((entry) => {
        const parents = Array.isArray(entry.extends) ? entry.extends : [entry.extends];
        const parent = parents.find((p): p is string => typeof p === "string" && capabilities.includes(p));
        return {
          name,
          version,
          spec: unversioned(entry.spec),
          schema: unversioned(entry.schema),
          ...(parent ? { extends: parent } : {}),
          // identity_linking's config (scopes) is 04-08; other configs are the same shape
          ...(isObject(entry.config) && name !== "dev.ucp.common.identity_linking"
            ? { config: entry.config }
            : {}),
        };
      }),
    );
  const { ucp: _ucp, ...rest } = current;
  if (version === "2026-01-11") {
    return {
      ...rest,
      ucp: {
        version,
        services: {
          "dev.ucp.shopping": {
            version,
            spec: SERVICE_SPEC,
            ...Object.fromEntries(
              listed.map(([t, endpoint]) => [t, { schema: SERVICE_SCHEMAS[t], endpoint }]),
            ),
          },
        },
        capabilities: entries,
      },
      payment: { handlers: handlersTo0111(ucp.payment_handlers, docs) },
    };
  }
  return {
    ...rest,
    ucp: {
      version,
      services: {
        "dev.ucp.shopping": listed.map(([transport, endpoint]) => ({
          version,
          spec: SERVICE_SPEC,
          transport,
          endpoint,
          schema: SERVICE_SCHEMAS[transport],
        })),
      },
      capabilities: Object.fromEntries(
        [...new Set(entries.map((e) => e.name))].map((name) => [
          name,
          entries.filter((e) => e.name === name).map(({ name: _name, ...entry }) => entry),
        ]),
      ),
      payment_handlers:
        (ucpDown(version, { payment_handlers: ucp.payment_handlers }) as Json).payment_handlers ?? {},
    },
  };
};
