import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

import addFormatsModule from "ajv-formats";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";

// Validates response bodies against the official UCP 2026-04-08 JSON Schemas (vendored unmodified in e2e/ucp;
// see e2e/ucp/schemas/LICENSE-NOTE.md). Every $id is https://ucp.dev/schemas/<path>, so all files are added
// and then fetched by $id.

const ROOT = path.join(import.meta.dirname, "../ucp");
const SCHEMA_BASE = "https://ucp.dev/schemas/";

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const listJson = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return listJson(full);
    return name.endsWith(".json") ? [full] : [];
  });

const build = (): Ajv2020 => {
  const ajv = new Ajv2020({ strict: true, strictTypes: false, strictRequired: false, allErrors: true });
  addFormats(ajv);
  // UCP annotation keywords (CONTRACT.md §20)
  ajv.addVocabulary(["name", "ucp_request", "ucp_response", "ucp_shared_request", "embedded"]);
  for (const file of listJson(path.join(ROOT, "schemas"))) {
    ajv.addSchema(JSON.parse(readFileSync(file, "utf8")) as object);
  }
  // Shipped profile_schema refs ../schemas/ucp.json, which resolves to a non-existent $id (LICENSE-NOTE.md):
  // load a patched copy in memory only.
  const profile = readFileSync(path.join(ROOT, "discovery/profile_schema.json"), "utf8").replaceAll(
    "../schemas/ucp.json",
    "../ucp.json",
  );
  ajv.addSchema(JSON.parse(profile) as object);
  return ajv;
};

let ajv: Ajv2020 | undefined;
const cache = new Map<string, ValidateFunction>();

/** A validator for `ref`, e.g. "shopping/cart.json" or "discovery/profile.json#/$defs/business_profile". */
export const ucpValidator = (ref: string): ValidateFunction => {
  ajv ??= build();
  const id = ref.startsWith("https://") ? ref : `${SCHEMA_BASE}${ref}`;
  let validate = cache.get(id);
  if (!validate) {
    validate = ajv.getSchema(id) ?? ajv.compile({ $ref: id });
    cache.set(id, validate);
  }
  return validate;
};

/** Throws with Ajv's errors when `body` does not match `ref`. */
export const assertUcpSchema = (ref: string, body: unknown): void => {
  const validate = ucpValidator(ref);
  if (!validate(body)) {
    throw new Error(
      `Body does not match ${ref}:\n${JSON.stringify(validate.errors, null, 2)}\n${JSON.stringify(body, null, 2).slice(0, 2000)}`,
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
