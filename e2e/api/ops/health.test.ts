import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { getDb } from "@/lib/config/db";

import { callApp } from "../../helpers/app-client";
import { startFakeMeilisearch, type FakeMeilisearch } from "../../helpers/fake-meilisearch";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// Liveness and readiness for load balancers: /healthz answers while the process is up; /readyz answers 200 only
// when the database answers, every committed migration is applied and the configured search engine (here the
// Meilisearch test double) answers — and 503 naming the failing check otherwise, without the driver's own text.

let meili: FakeMeilisearch;

before(async () => {
  meili = await startFakeMeilisearch();
  // getEnv() caches its first read, which prepareTestDatabase makes: set the URL first
  process.env.MEILISEARCH_URL = meili.url;
  await prepareTestDatabase();
});
after(async () => {
  await closeTestDatabase();
  await meili.close().catch(() => undefined);
});

const readyz = async () => {
  const response = await callApp("GET", "/readyz");
  return {
    status: response.status,
    cache: response.headers.get("cache-control"),
    body: (await response.json()) as {
      status: string;
      checks: Record<string, { ok: boolean; detail?: string; pending?: string[] }>;
    },
  };
};

test("/healthz: 200 ok, never cached, no envelope headers needed", async () => {
  const response = await callApp("GET", "/healthz");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("cache-control"), "no-store");
  assert.deepEqual(await response.json(), { status: "ok" });
});

test("another method on /healthz or /readyz: 405 in the envelope with Allow and the Request-Id echoed", async () => {
  for (const path of ["/healthz", "/readyz"]) {
    const response = await callApp("POST", path, { headers: { "request-id": "health-405" } });
    assert.equal(response.status, 405, path);
    assert.equal(response.headers.get("allow"), "GET", path);
    assert.equal(response.headers.get("request-id"), "health-405", path);
    const body = (await response.json()) as { messages: { code: string }[] };
    assert.equal(body.messages[0]?.code, "method_not_allowed", path);
  }
});

test("/readyz: 200 ready when the database, the migrations and the search engine are all there", async () => {
  const ready = await readyz();
  assert.equal(ready.status, 200, JSON.stringify(ready.body));
  assert.equal(ready.body.status, "ready");
  assert.equal(ready.cache, "no-store");
  assert.deepEqual(
    Object.fromEntries(Object.entries(ready.body.checks).map(([name, check]) => [name, check.ok])),
    { database: true, migrations: true, search: true },
  );
});

test("/readyz: 503 naming the migration that is not applied", async () => {
  const db = await getDb();
  const [last] = await db.$queryRawUnsafe<{ id: string; migration_name: string }[]>(
    `SELECT id, migration_name FROM _prisma_migrations ORDER BY migration_name DESC LIMIT 1`,
  );
  assert.ok(last);
  await db.$executeRawUnsafe(`UPDATE _prisma_migrations SET finished_at = NULL WHERE id = $1`, last.id);
  try {
    const notReady = await readyz();
    assert.equal(notReady.status, 503);
    assert.equal(notReady.body.status, "not_ready");
    assert.equal(notReady.body.checks.migrations?.ok, false);
    assert.deepEqual(notReady.body.checks.migrations?.pending, [last.migration_name]);
    assert.match(notReady.body.checks.migrations?.detail ?? "", /npm run db:migrate/);
  } finally {
    await db.$executeRawUnsafe(`UPDATE _prisma_migrations SET finished_at = now() WHERE id = $1`, last.id);
  }
  assert.equal((await readyz()).status, 200, "ready again once applied");
});

test("/readyz: 503 when the search engine does not answer, in our words (no socket text)", async () => {
  await meili.close();
  const notReady = await readyz();
  assert.equal(notReady.status, 503);
  assert.equal(notReady.body.checks.search?.ok, false);
  assert.equal(notReady.body.checks.search?.detail, "the search engine does not answer");
  assert.equal(notReady.body.checks.database?.ok, true);
  assert.doesNotMatch(JSON.stringify(notReady.body), /ECONNREFUSED|127\.0\.0\.1|fetch failed/);
});
