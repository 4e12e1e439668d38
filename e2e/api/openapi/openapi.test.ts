import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";

import addFormatsModule from "ajv-formats";
import { Ajv2020 } from "ajv/dist/2020.js";

import type { Store } from "@/lib/generated/prisma/client";

import { renderOpenApi } from "../../../scripts/lib/openapi";
import { seedStore } from "../../factories";
import { callApp } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The OpenAPI 3.1 description of the REST surface (public/openapi.json, served at /openapi.json) is what
// `npm run openapi` builds from the route files and the operations, holds together as a document, and describes
// only routes that exist: each documented method is answered by its operation, never 405 or route_not_found.

type Doc = {
  openapi: string;
  paths: Record<
    string,
    Record<string, { operationId: string; parameters: { name: string; in: string }[]; requestBody?: unknown }>
  >;
  components: { schemas: Record<string, unknown> };
};

const committed = readFileSync(path.join(import.meta.dirname, "../../../public/openapi.json"), "utf8");
const doc = JSON.parse(committed) as Doc;
let store: Store;

before(async () => {
  await prepareTestDatabase();
  store = await seedStore();
});
after(closeTestDatabase);

test("public/openapi.json is what npm run openapi builds from the route files and operations", async () => {
  assert.equal(committed, await renderOpenApi(), "run npm run openapi and commit public/openapi.json");
  assert.equal(doc.openapi, "3.1.0");
  assert.ok(Object.keys(doc.paths).length >= 15, Object.keys(doc.paths).join(" "));
});

test("it holds together: unique operation ids, every path parameter declared, every $ref resolves, every schema compiles", () => {
  const ids = Object.values(doc.paths).flatMap((methods) =>
    Object.values(methods).map((op) => op.operationId),
  );
  assert.equal(new Set(ids).size, ids.length, `duplicate operationId in ${ids.join(", ")}`);
  for (const [template, methods] of Object.entries(doc.paths)) {
    const names = [...template.matchAll(/\{(\w+)\}/g)].map(([, name]) => name);
    for (const [method, op] of Object.entries(methods)) {
      const declared = op.parameters.filter((p) => p.in === "path").map((p) => p.name);
      assert.deepEqual(declared.sort(), [...names].sort(), `${method} ${template}`);
    }
  }
  const text = JSON.stringify(doc);
  for (const [, ref] of text.matchAll(/"\$ref":"#\/([^"]+)"/g)) {
    const target = ref!
      .split("/")
      .reduce<unknown>((node, key) => (node as Record<string, unknown>)?.[key], doc);
    assert.ok(target, `unresolved $ref #/${ref}`);
  }
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020)(ajv);
  ajv.addSchema({ $id: "doc", components: doc.components } as object);
  const schemas: unknown[] = [];
  const collect = (node: unknown): void => {
    if (!node || typeof node !== "object") return;
    const record = node as Record<string, unknown>;
    if (record.schema && typeof record.schema === "object") schemas.push(record.schema);
    for (const value of Object.values(record)) collect(value);
  };
  collect(doc.paths);
  assert.ok(schemas.length > 20);
  for (const schema of schemas) {
    const local = JSON.parse(
      JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'),
    ) as object;
    assert.doesNotThrow(() => ajv.compile(local), JSON.stringify(schema).slice(0, 200));
  }
});

test("every documented route is served by its operation (never 405, never route_not_found)", async () => {
  for (const [template, methods] of Object.entries(doc.paths)) {
    const concrete = template.replace("{store_slug}", store.slug).replace("{id}", "chk_doesnotexist");
    for (const method of Object.keys(methods)) {
      const response = await callApp(method.toUpperCase(), concrete, {
        body: method === "get" ? undefined : {},
      });
      const body = (await response.json().catch(() => ({}))) as { messages?: { code?: string }[] };
      assert.notEqual(response.status, 405, `${method} ${template}`);
      assert.notEqual(body.messages?.[0]?.code, "route_not_found", `${method} ${template}`);
    }
  }
});
