import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

import addFormatsModule from "ajv-formats";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";

// Validates bodies against the official UCP JSON Schemas of each version we speak, vendored unmodified:
// 2026-04-08 in e2e/ucp, the older ones in e2e/ucp-<version> (see each schemas/LICENSE-NOTE.md). Every $id is
// https://ucp.dev/schemas/<path> at every version, so each version gets its own Ajv instance (the $ids collide),
// built on first use; all files are added and then fetched by $id.

export type SchemaVersion = "2026-01-11" | "2026-01-23" | "2026-04-08";

const ROOTS: Record<SchemaVersion, string> = {
  "2026-04-08": path.join(import.meta.dirname, "../ucp"),
  "2026-01-23": path.join(import.meta.dirname, "../ucp-2026-01-23"),
  "2026-01-11": path.join(import.meta.dirname, "../ucp-2026-01-11"),
};
const SCHEMA_BASE = "https://ucp.dev/schemas/";

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const listJson = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return listJson(full);
    return name.endsWith(".json") ? [full] : [];
  });

const readJson = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;

export type RequestOperation = "create" | "update" | "complete";

/**
 * A schema file projected for the requests of `operation` (CONTRACT.md §1: the `ucp_request` annotations): a
 * property annotated "omit" is dropped (and no longer required), "required" becomes required, "optional" stops
 * being required. Applied to every object schema of the file, in memory.
 */
const projectForRequest = (node: unknown, operation: RequestOperation): unknown => {
  if (Array.isArray(node)) return node.map((n) => projectForRequest(n, operation));
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) out[k] = projectForRequest(v, operation);
  const properties = out.properties as Record<string, Record<string, unknown>> | undefined;
  if (properties && typeof properties === "object") {
    const required = new Set(Array.isArray(out.required) ? (out.required as string[]) : []);
    for (const [name, prop] of Object.entries(properties)) {
      const annotation = prop?.ucp_request;
      const rule =
        typeof annotation === "string"
          ? annotation
          : typeof annotation === "object" && annotation !== null
            ? (annotation as Record<string, string>)[operation]
            : undefined;
      if (rule === "omit") {
        delete properties[name];
        required.delete(name);
      } else if (rule === "required") required.add(name);
      else if (rule === "optional") required.delete(name);
    }
    if (Array.isArray(out.required) || required.size > 0) out.required = [...required];
  }
  return out;
};

const build = (version: SchemaVersion, operation?: RequestOperation): Ajv2020 => {
  const root = ROOTS[version];
  const load = (file: string): Record<string, unknown> =>
    operation ? (projectForRequest(readJson(file), operation) as Record<string, unknown>) : readJson(file);
  const ajv = new Ajv2020({ strict: true, strictTypes: false, strictRequired: false, allErrors: true });
  addFormats(ajv);
  // UCP annotation keywords (CONTRACT.md §20)
  ajv.addVocabulary(["name", "ucp_request", "ucp_response", "ucp_shared_request", "embedded"]);
  // the older tags also annotate each capability schema with its protocol `version`
  if (version !== "2026-04-08") ajv.addVocabulary(["version"]);
  for (const file of listJson(path.join(root, "schemas"))) ajv.addSchema(load(file));
  // Shipped profile_schema refs ../schemas/<file> from $id …/schemas/discovery/profile.json, which resolves to
  // …/schemas/schemas/<file>, a non-existent $id (LICENSE-NOTE.md): load a patched copy in memory only.
  const profile = readFileSync(path.join(root, "discovery/profile_schema.json"), "utf8").replaceAll(
    "../schemas/",
    "../",
  );
  ajv.addSchema(JSON.parse(profile) as object);
  if (version === "2026-01-11") {
    // 01-11 ucp.json refs ../services/service_schema.json (→ https://ucp.dev/services/service_schema.json), but
    // that file's own $id is …/schemas/service.json: register it under the URL the ref resolves to, in memory.
    const service = readJson(path.join(root, "services/service_schema.json"));
    ajv.addSchema({ ...service, $id: "https://ucp.dev/services/service_schema.json" });
  }
  return ajv;
};

const instances = new Map<SchemaVersion, Ajv2020>();
const cache = new Map<string, ValidateFunction>();

/**
 * A validator for `ref` at `version`, e.g. "shopping/cart.json" or
 * "discovery/profile.json#/$defs/business_profile".
 */
export const ucpValidator = (ref: string, version: SchemaVersion = "2026-04-08"): ValidateFunction => {
  let ajv = instances.get(version);
  if (!ajv) {
    ajv = build(version);
    instances.set(version, ajv);
  }
  const id = ref.startsWith("https://") ? ref : `${SCHEMA_BASE}${ref}`;
  let validate = cache.get(`${version} ${id}`);
  if (!validate) {
    validate = ajv.getSchema(id) ?? ajv.compile({ $ref: id });
    cache.set(`${version} ${id}`, validate);
  }
  return validate;
};

const requestInstances = new Map<string, Ajv2020>();

/**
 * Throws when a request `body` is not one `version` allows for `operation`: `ref` projected by the `ucp_request`
 * annotations (docs/ucp-versions.md §5.4), so a test cannot send what the version does not define.
 */
export const assertUcpRequest = (
  ref: string,
  operation: RequestOperation,
  body: unknown,
  version: SchemaVersion,
): void => {
  const key = `${version} ${operation}`;
  let ajv = requestInstances.get(key);
  if (!ajv) {
    ajv = build(version, operation);
    requestInstances.set(key, ajv);
  }
  const id = ref.startsWith("https://") ? ref : `${SCHEMA_BASE}${ref}`;
  const validate = ajv.getSchema(id) ?? ajv.compile({ $ref: id });
  if (!validate(body)) {
    throw new Error(
      `Request does not match ${ref} (${operation}) at ${version}:\n${JSON.stringify(validate.errors, null, 2)}`,
    );
  }
};

/** Throws with Ajv's errors when `body` does not match `ref` at `version` (default 2026-04-08). */
export const assertUcpSchema = (ref: string, body: unknown, version: SchemaVersion = "2026-04-08"): void => {
  const validate = ucpValidator(ref, version);
  if (!validate(body)) {
    throw new Error(
      `Body does not match ${ref} at ${version}:\n${JSON.stringify(validate.errors, null, 2)}\n${JSON.stringify(body, null, 2).slice(0, 2000)}`,
    );
  }
};

/**
 * A non-2xx answer on a shopping surface (DECISIONS.md B9): UCP's transport-error fields at the top level
 * (`code`, `content`, `continue_url?` — overview.md "Transport Bindings") beside the error envelope, which
 * matches error_response.json once those fields are set aside.
 */
export const assertTransportError = (body: unknown): void => {
  const { code, content, ...envelope } = body as { code?: unknown; content?: unknown };
  const first = (envelope as { messages?: { code?: string; content?: string }[] }).messages?.[0];
  if (typeof code !== "string" || code !== first?.code) {
    throw new Error(`top-level code ${String(code)} is not messages[0].code: ${JSON.stringify(body)}`);
  }
  if (typeof content !== "string" || content !== first?.content) {
    throw new Error(`top-level content is not messages[0].content: ${JSON.stringify(body)}`);
  }
  assertUcpSchema("shopping/types/error_response.json", envelope);
};
