import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";

import type { AnyOperation } from "@/lib/core/operation";
import type { Store } from "@/lib/generated/prisma/client";
import { ACCOUNT_TOOLS } from "@/lib/mcp/tools/account";
import { GLOBAL_TOOLS } from "@/lib/mcp/tools/global";
import { STORE_TOOLS } from "@/lib/mcp/tools/store";

import { restRoutes } from "../../../scripts/lib/openapi";
import { seedStore } from "../../factories";
import { rest } from "../../helpers/app-client";
import { startCimdServer, type CimdServer } from "../../helpers/cimd-server";
import { connectMcpClient, toolMeta } from "../../helpers/mcp-client";
import { linkAgent } from "../../helpers/oauth";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// Scopes are enforced per operation (seed §5 rule 6): every operation declares the OAuth scope a buyer's bearer
// needs (OperationDescriptor.buyerScope), and one check enforces it. Table-driven over EVERY operation the
// registries expose — the MCP tools of the global, per-store and account surfaces and every REST route — × every
// scope set a buyer can grant: a token lacking the operation's scope gets 403 insufficient_scope naming it, a token
// holding it is let through to the operation (whatever the operation then says about the empty input). A token
// with offline_access alone calls nothing.

const SCOPE_SETS = ["offline_access", "purchase:complete", "purchase:complete offline_access"] as const;
type ScopeSet = (typeof SCOPE_SETS)[number];

let cimd: CimdServer;
let store: Store;
const tokens = new Map<ScopeSet, string>();

before(async () => {
  await prepareTestDatabase();
  cimd = await startCimdServer();
  store = await seedStore();
  for (const [i, scope] of SCOPE_SETS.entries()) {
    const redirectUri = cimd.url(`/scopes-${i}/callback`);
    const clientId = cimd.document(`/scopes-${i}`, {
      client_name: `Scopes agent ${i}`,
      redirect_uris: [redirectUri],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "none",
    });
    tokens.set(scope, (await linkAgent({ clientId, redirectUri, scope })).tokens.access_token);
  }
});
after(async () => {
  await cimd.close();
  await closeTestDatabase();
});

const allowed = (op: AnyOperation, scopes: ScopeSet) =>
  op.buyerScope !== null && scopes.split(" ").includes(op.buyerScope);

const assertOutcome = (
  where: string,
  op: AnyOperation,
  scopes: ScopeSet,
  outcome: { code: string | undefined; content: string },
) => {
  if (allowed(op, scopes)) {
    assert.notEqual(outcome.code, "insufficient_scope", `${where} with "${scopes}": ${outcome.content}`);
    return;
  }
  assert.equal(outcome.code, "insufficient_scope", `${where} with "${scopes}": ${outcome.content}`);
  assert.match(
    outcome.content,
    op.buyerScope ? new RegExp(op.buyerScope) : /not available with a buyer token/,
    where,
  );
};

const SURFACES: { endpoint: () => string; tools: readonly AnyOperation[] }[] = [
  { endpoint: () => "/mcp", tools: GLOBAL_TOOLS },
  { endpoint: () => `/s/${store.slug}/mcp`, tools: STORE_TOOLS },
  { endpoint: () => "/account/mcp", tools: ACCOUNT_TOOLS },
];

test("every MCP tool × every scope set: denied exactly when the token lacks the tool's declared scope", async () => {
  let checked = 0;
  for (const surface of SURFACES) {
    for (const scopes of SCOPE_SETS) {
      const client = await connectMcpClient(surface.endpoint(), {
        headers: { authorization: `Bearer ${tokens.get(scopes)}` },
      });
      try {
        for (const op of surface.tools) {
          const args = { meta: toolMeta(randomUUID()), ...(op.mcp.takesId ? { id: "x_unknown" } : {}) };
          const outcome = await client.callTool({ name: op.name, arguments: args }).then(
            (result) => {
              const body = result.structuredContent as { messages?: { code?: string; content: string }[] };
              return { code: body?.messages?.[0]?.code, content: JSON.stringify(result).slice(0, 300) };
            },
            (error: Error) => {
              const json = error.message.slice(error.message.indexOf("{"));
              const data = (JSON.parse(json) as { error?: { data?: { code?: string } } }).error?.data;
              return { code: data?.code, content: error.message };
            },
          );
          assertOutcome(`MCP ${surface.endpoint()} ${op.name}`, op, scopes, outcome);
          checked += 1;
        }
      } finally {
        await client.close();
      }
    }
  }
  assert.equal(checked, SCOPE_SETS.length * SURFACES.reduce((n, s) => n + s.tools.length, 0));
});

test("every REST route × every scope set: denied exactly when the token lacks the operation's declared scope", async () => {
  const routes = restRoutes();
  assert.ok(routes.length >= 15);
  for (const route of routes) {
    const mod = (await import(
      route.importFrom.startsWith("@/") ? `../../../${route.importFrom.slice(2)}.ts` : route.importFrom
    )) as Record<string, AnyOperation>;
    const op = mod[route.exportName]!;
    const path = route.path.replace("{store_slug}", store.slug).replace("{id}", "x_unknown");
    for (const scopes of SCOPE_SETS) {
      const res = await rest<{ messages?: { code?: string; content: string }[] }>(route.method, path, {
        headers: { authorization: `Bearer ${tokens.get(scopes)}`, "idempotency-key": randomUUID() },
        body: route.method === "GET" ? undefined : {},
      });
      const first = res.body.messages?.[0];
      assertOutcome(`${route.method} ${route.path}`, op, scopes, {
        code: first?.code,
        content: first?.content ?? res.text,
      });
      if (!allowed(op, scopes)) assert.equal(res.status, 403, `${route.method} ${route.path}`);
    }
  }
});
