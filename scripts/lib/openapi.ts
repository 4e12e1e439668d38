import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

import { z } from "zod";

import { ERROR_CODES } from "@/lib/core/error-codes";
import type { AnyOperation } from "@/lib/core/operation";
import type { AnyMerchantRoute } from "@/lib/merchant-api/define";
import { UCP_VERSION } from "@/lib/ucp/version";

import { REPO_ROOT } from "./paths";

// The OpenAPI 3.1 description of the REST surface, generated from what serves it: every app/**/route.ts that wires
// an operation with `METHOD: ucpRoute(operation)` gives a path and a method, and the operation's descriptor (the
// same one MCP lists) gives its id, summary, description, permission and input schema (zod → JSON Schema).
// `npm run openapi` writes public/openapi.json (served at /openapi.json); e2e/api/openapi/openapi.test.ts fails
// when the committed file differs from a fresh build or does not hold together.

const APP_DIR = path.join(REPO_ROOT, "app");

export type RestRoute = {
  method: string;
  path: string;
  file: string;
  exportName: string;
  importFrom: string;
};

const routeFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(full);
    return entry.name === "route.ts" ? [full] : [];
  });

/** `app/s/[store_slug]/carts/[id]/route.ts` → `/s/{store_slug}/carts/{id}`. */
const urlPathOf = (file: string): string =>
  `/${path
    .relative(APP_DIR, path.dirname(file))
    .split(path.sep)
    .filter((segment) => !/^\(.*\)$/.test(segment))
    .map((segment) => segment.replace(/^\[(\w+)\]$/, "{$1}"))
    .join("/")}`;

/** Every `METHOD: ucpRoute(name…)` in the route files, with the module `name` is imported from. */
export const restRoutes = (): RestRoute[] =>
  routeFiles(APP_DIR)
    .flatMap((file) => {
      const text = readFileSync(file, "utf8");
      return [...text.matchAll(/\b(GET|POST|PUT|PATCH|DELETE):\s*ucpRoute\((\w+)/g)].map(
        ([, method, name]) => {
          const from = new RegExp(`import \\{[^}]*\\b${name}\\b[^}]*\\} from "([^"]+)"`).exec(text)?.[1];
          if (!from)
            throw new Error(`${path.relative(REPO_ROOT, file)}: cannot find where ${name} is imported from`);
          return { method: method!, path: urlPathOf(file), file, exportName: name!, importFrom: from };
        },
      );
    })
    .sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));

const resolveImport = (from: string): string =>
  from.startsWith("@/") ? path.join(REPO_ROOT, `${from.slice(2)}.ts`) : from;

const jsonSchemaOf = (schema: z.ZodType, dropId: boolean): Record<string, unknown> => {
  const json = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
    target: "draft-2020-12",
  }) as Record<string, unknown>;
  delete json.$schema;
  if (dropId && json.properties && typeof json.properties === "object") {
    const { id: _id, ...rest } = json.properties as Record<string, unknown>;
    json.properties = rest;
    if (Array.isArray(json.required)) json.required = json.required.filter((r) => r !== "id");
  }
  return json;
};

const header = (name: string, description: string, required: boolean) => ({
  name,
  in: "header",
  required,
  description,
  schema: { type: "string" },
});

const ERROR_RESPONSE = { $ref: "#/components/responses/Error" };

/** The merchant REST API's routes (lib/merchant-api/routes.ts), one registry rather than one file per route. */
const addMerchantRoutes = async (paths: Record<string, Record<string, unknown>>): Promise<void> => {
  const { MERCHANT_ROUTES } = (await import(
    pathToFileURL(resolveImport("@/lib/merchant-api/routes")).href
  )) as { MERCHANT_ROUTES: readonly AnyMerchantRoute[] };
  const { MERCHANT_API_PREFIX } = (await import(
    pathToFileURL(resolveImport("@/lib/merchant-api/define")).href
  )) as { MERCHANT_API_PREFIX: string };
  for (const route of MERCHANT_ROUTES) {
    const full = `${MERCHANT_API_PREFIX}/{store_slug}${route.path}`;
    const names = [...full.matchAll(/\{(\w+)\}/g)].map(([, name]) => name!);
    const input = jsonSchemaOf(route.input, false);
    const properties = Object.fromEntries(
      Object.entries((input.properties ?? {}) as Record<string, unknown>).filter(([n]) => !names.includes(n)),
    );
    const required = Array.isArray(input.required)
      ? input.required.filter((r) => !names.includes(r as string))
      : [];
    const hasBody = route.method === "POST" || route.method === "PUT" || route.method === "PATCH";
    paths[full] ??= {};
    paths[full]![route.method.toLowerCase()] = {
      operationId: route.name,
      summary: route.title,
      description: route.description,
      tags: ["merchant"],
      "x-permission": route.permission,
      security: [{ merchantKey: [] }],
      parameters: [
        ...names.map((name) => ({
          name,
          in: "path",
          required: true,
          schema: { type: "string" },
          description: name === "store_slug" ? "The store's slug (the key's own store)" : "The resource id",
        })),
        ...(hasBody
          ? []
          : Object.entries(properties).map(([name, schema]) => ({
              name,
              in: "query",
              required: required.includes(name),
              schema,
            }))),
        header("Request-Id", "Optional; echoed in the answer.", false),
      ],
      ...(hasBody && Object.keys(properties).length > 0
        ? {
            requestBody: {
              required: required.length > 0,
              content: {
                "application/json": {
                  schema: {
                    ...input,
                    properties,
                    ...(required.length > 0 ? { required } : { required: undefined }),
                  },
                },
              },
            },
          }
        : {}),
      responses: {
        [String(route.status ?? 200)]: {
          description: `${route.title}: JSON, money in minor units.`,
          content: { "application/json": { schema: { type: "object", additionalProperties: true } } },
        },
        "4XX": ERROR_RESPONSE,
        "5XX": ERROR_RESPONSE,
      },
    };
  }
};

export const buildOpenApi = async (): Promise<Record<string, unknown>> => {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of restRoutes()) {
    const mod = (await import(pathToFileURL(resolveImport(route.importFrom)).href)) as Record<
      string,
      unknown
    >;
    const op = mod[route.exportName] as AnyOperation | undefined;
    if (!op?.name || !op.input) {
      throw new Error(`${route.importFrom} has no operation descriptor ${route.exportName}`);
    }
    const storeScoped = route.path.startsWith("/s/{store_slug}");
    const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
      name,
      in: "path",
      required: true,
      schema: { type: "string" },
      description: name === "store_slug" ? "The store's slug" : "The resource id",
    }));
    const hasBody = route.method === "POST" || route.method === "PUT" || route.method === "PATCH";
    const input = jsonSchemaOf(op.input, route.path.endsWith("{id}") || route.path.includes("{id}/"));
    const queryParams =
      route.method === "GET" && input.properties && typeof input.properties === "object"
        ? Object.entries(input.properties as Record<string, Record<string, unknown>>).map(
            ([name, schema]) => ({
              name,
              in: "query",
              required: Array.isArray(input.required) && input.required.includes(name),
              schema,
            }),
          )
        : [];
    const bodyless = hasBody && Object.keys((input.properties as object | undefined) ?? {}).length === 0;
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = {
      // the global catalog offers the per-store operations across every store: same tool, its own id here
      operationId: storeScoped ? op.name : `global_${op.name}`,
      summary: op.title,
      description: op.description,
      tags: [storeScoped ? "per store" : "global"],
      ...(op.permission ? { "x-permission": op.permission } : {}),
      "x-trust-tier": op.tier,
      security:
        op.tier === "anonymous"
          ? [{}, { apiKey: [] }]
          : [{ apiKey: [] }, ...(op.tier === "token" ? [{ buyerBearer: [] }] : [])],
      parameters: [
        ...pathParams,
        ...queryParams,
        header("Request-Id", "Unique per request; echoed in the answer.", storeScoped),
        header("UCP-Agent", 'The agent profile: profile="https://…/.well-known/ucp".', storeScoped),
        ...(op.mutates
          ? [
              header(
                "Idempotency-Key",
                "Required on state-changing calls; a retry with it replays the answer.",
                true,
              ),
            ]
          : []),
      ],
      ...(hasBody && !bodyless
        ? { requestBody: { required: true, content: { "application/json": { schema: input } } } }
        : {}),
      responses: {
        [String(route.method === "POST" && /^create_/.test(op.name) ? 201 : 200)]: {
          description: `${op.title}: the UCP resource with its envelope (ucp, messages).`,
          content: { "application/json": { schema: { $ref: "#/components/schemas/UcpResource" } } },
        },
        "4XX": ERROR_RESPONSE,
        "5XX": ERROR_RESPONSE,
      },
    };
  }
  await addMerchantRoutes(paths);
  return {
    openapi: "3.1.0",
    info: {
      title: "Agent Commerce Service — REST surface",
      version: UCP_VERSION,
      description:
        "UCP shopping over REST (catalog, carts, checkout sessions, orders, order events, webhook deliveries). " +
        "The same operations are MCP tools at /mcp and /s/{store_slug}/mcp. Money is in integer minor units.",
    },
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    tags: [
      { name: "global", description: "Every store's catalog (/catalog/…)" },
      { name: "per store", description: "One store (/s/{store_slug}/…)" },
      {
        name: "merchant",
        description:
          "The merchant REST API (/merchant/v1/stores/{store_slug}/…): what the admin does, with a merchant key of that store",
      },
    ],
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "A platform API key" },
        merchantKey: {
          type: "apiKey",
          in: "header",
          name: "X-API-Key",
          description: "A merchant API key (acsm_…) of the store in the path, created by its owner in /admin",
        },
        buyerBearer: {
          type: "http",
          scheme: "bearer",
          description: "A buyer's OAuth 2.1 access token (/ucp/oauth2/token)",
        },
      },
      schemas: {
        UcpEnvelope: {
          type: "object",
          required: ["version"],
          properties: {
            version: { type: "string", examples: [UCP_VERSION] },
            status: { enum: ["success", "error"] },
            capabilities: { type: "object" },
          },
        },
        Message: {
          type: "object",
          required: ["type", "content"],
          properties: {
            type: { enum: ["error", "warning", "info"] },
            code: { type: "string" },
            content: { type: "string" },
            severity: { type: "string" },
            path: { type: "string", description: "JSONPath of the field at fault" },
          },
        },
        UcpResource: {
          type: "object",
          required: ["ucp"],
          properties: { ucp: { $ref: "#/components/schemas/UcpEnvelope" } },
          additionalProperties: true,
        },
        ErrorBody: {
          type: "object",
          required: ["ucp", "messages"],
          properties: {
            ucp: { $ref: "#/components/schemas/UcpEnvelope" },
            messages: { type: "array", items: { $ref: "#/components/schemas/Message" } },
            continue_url: { type: "string", format: "uri" },
          },
        },
        ErrorCode: { enum: Object.keys(ERROR_CODES).sort() },
      },
      responses: {
        Error: {
          description: "The UCP error envelope: messages[0].code is one of ErrorCode.",
          content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorBody" } } },
        },
      },
    },
  };
};

/** The document as committed: stable key order, two-space JSON, trailing newline. */
export const renderOpenApi = async (): Promise<string> =>
  `${JSON.stringify(await buildOpenApi(), null, 2)}\n`;
