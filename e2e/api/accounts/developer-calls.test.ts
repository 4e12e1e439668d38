import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";

import { createAccount } from "@/lib/accounts/accounts";
import { getDb } from "@/lib/config/db";
import { runShutdownHooks } from "@/lib/config/shutdown";
import { onSqlStatement } from "@/lib/config/sql-observer";
import { createApiKey } from "@/lib/credentials/create-api-key";
import {
  KEEP_PER_KEY,
  listKeyCalls,
  recordKeyCall,
  WRITE_EVERY_MS,
  type KeyCall,
} from "@/lib/ops/key-call-log";

import { seedStore } from "../../factories";
import { callApp, envelopeHeaders } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// "Your agent's calls and errors" in /developers: each call made with a developer's platform key is recorded after
// the answer (method, route pattern, status, error code, Request-Id; never the path's values, a query or a body),
// errors included — even one refused before the caller was resolved — and the log of a key stays bounded.

before(prepareTestDatabase);
after(closeTestDatabase);

/** A call of `keyId` answered 200, as the access line records it, for the tests that record calls directly. */
const keyCall = (
  keyId: string,
  requestId: string,
  {
    method = "GET",
    route = "/catalog/search",
    at = new Date(),
  }: Partial<Pick<KeyCall, "method" | "route" | "at">> = {},
): KeyCall => ({ keyId, method, route, status: 200, errorCode: null, requestId, at });

const until = async <T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> => {
  for (let i = 0; i < 100; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return read();
};

test("a call and an error made with a key are in its developer's log, with route pattern, status, code and Request-Id", async () => {
  const developer = await createAccount({
    name: "dev",
    email: `dev-${process.pid}-${Date.now()}@example.com`,
    password: "long enough passphrase",
  });
  const { id, key } = await createApiKey(
    { name: "my agent", permissions: ["orders:read"] },
    { accountId: developer.id },
  );
  const other = await createApiKey({ name: "someone else" });
  const store = await seedStore();

  const okId = randomUUID();
  const ok = await callApp("POST", `/catalog/search?secret=hidden`, {
    headers: { "x-api-key": key, "request-id": okId },
    body: { query: "anything" },
  });
  assert.equal(ok.status, 200, await ok.clone().text());
  const missingId = randomUUID();
  const missing = await callApp("GET", `/s/${store.slug}/orders/ord_nothing_here`, {
    headers: { ...envelopeHeaders({ "request-id": missingId }), "x-api-key": key },
  });
  assert.equal(missing.status, 200, "not_found is a business outcome on UCP: 200 with ucp.status error");
  // refused before the caller is resolved (no Request-Id header): still this key's error
  const refused = await callApp("GET", `/s/${store.slug}/orders/ord_other`, {
    headers: { "x-api-key": key },
  });
  assert.equal(refused.status, 400);
  // another developer's key, and a bad key, are not in this log
  await callApp("POST", "/catalog/search", { headers: { "x-api-key": other.key }, body: { query: "x" } });
  await callApp("POST", "/catalog/search", { headers: { "x-api-key": `${key.slice(0, -2)}xx` }, body: {} });

  const calls = await until(
    () => listKeyCalls([id]),
    (c) => c.length >= 3,
  );
  assert.equal(calls.length, 3, JSON.stringify(calls));
  const byRequest = new Map(calls.map((c) => [c.requestId, c]));
  assert.deepEqual(
    { ...byRequest.get(okId)!, at: null },
    {
      keyId: id,
      method: "POST",
      route: "/catalog/search",
      status: 200,
      errorCode: null,
      requestId: okId,
      at: null,
    },
  );
  assert.deepEqual(
    { ...byRequest.get(missingId)!, at: null },
    {
      keyId: id,
      method: "GET",
      route: "/s/[store_slug]/orders/[id]",
      status: 200,
      errorCode: "not_found",
      requestId: missingId,
      at: null,
    },
  );
  const early = calls.find((c) => c.requestId !== okId && c.requestId !== missingId)!;
  assert.equal(early.status, 400);
  assert.equal(early.route, "/s/[store_slug]/orders/[id]");
  assert.ok(early.errorCode, "the refusal's code is recorded");
  assert.ok(!JSON.stringify(calls).includes("hidden") && !JSON.stringify(calls).includes(key));
  const errors = await listKeyCalls([id], { errorsOnly: true });
  assert.deepEqual(errors.map((c) => c.requestId).sort(), [early.requestId, missingId].sort());
});

test("a key's log is pruned to its newest calls", async () => {
  const keyId = `key_${randomUUID()}`;
  const start = Date.now();
  const call = (i: number) =>
    recordKeyCall(keyCall(keyId, `r${i}`, { at: new Date(start + i * 1000), route: "/catalog/product" }));
  // a first call, then a stream of them: the first is written alone, the rest together after it
  await Promise.all(Array.from({ length: KEEP_PER_KEY + 25 }, (_, i) => call(i)));
  const rows = await (await getDb()).apiKeyCall.findMany({ where: { keyId }, orderBy: { at: "asc" } });
  assert.equal(rows.length, KEEP_PER_KEY, `${rows.length} rows kept`);
  assert.equal(rows.at(-1)?.requestId, `r${KEEP_PER_KEY + 24}`, "the newest call is kept");
  assert.equal(rows[0]?.requestId, "r25", "the oldest are gone");
  assert.deepEqual(
    rows.map((r) => r.at.getTime()),
    rows.map((_, i) => start + (i + 25) * 1000),
    "each call's time as recorded, to the millisecond",
  );
});

test("calls that trickle in are written together, at most one write per interval", async () => {
  const keyId = `key_${randomUUID()}`;
  const inserts: string[] = [];
  const stop = onSqlStatement(({ sql }) => {
    if (/insert into "?(public"?\.)?"?api_key_calls/i.test(sql)) inserts.push(sql);
  });
  const call = (i: number) => recordKeyCall(keyCall(keyId, `t${i}`));
  await new Promise((resolve) => setTimeout(resolve, WRITE_EVERY_MS)); // the previous test's writes are past
  try {
    const started = Date.now();
    await call(0); // after a quiet spell: written at once
    assert.ok(Date.now() - started < WRITE_EVERY_MS, "the first call did not wait");
    const pending: Promise<void>[] = [];
    for (let i = 1; i <= 5; i++) {
      pending.push(call(i));
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    await Promise.all(pending);
    assert.ok(Date.now() - started >= WRITE_EVERY_MS, "the second write waited for the interval");
  } finally {
    stop();
  }
  assert.equal(await (await getDb()).apiKeyCall.count({ where: { keyId } }), 6);
  assert.equal(inserts.length, 2, `${inserts.length} INSERTs for a call and five more 40 ms apart`);
});

test("calls that arrive together are written together: one INSERT for many, none lost below the bound", async () => {
  const keyId = `key_${randomUUID()}`;
  const inserts: string[] = [];
  const stop = onSqlStatement(({ sql }) => {
    if (/insert into "?(public"?\.)?"?api_key_calls/i.test(sql)) inserts.push(sql);
  });
  try {
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        recordKeyCall(keyCall(keyId, `burst${i}`, { method: "POST", at: new Date(Date.now() + i) })),
      ),
    );
  } finally {
    stop();
  }
  const rows = await (await getDb()).apiKeyCall.count({ where: { keyId } });
  assert.equal(rows, 60);
  // the first call starts a write alone (all 60 wait for one write when the last was under WRITE_EVERY_MS ago);
  // the 59 that arrive meanwhile go in one more
  assert.ok(inserts.length >= 1 && inserts.length <= 3, `${inserts.length} INSERTs for 60 calls`);
});

// last in this file: it runs the process's shutdown hooks
test("on shutdown the calls still waiting for the next write are written before the database closes", async () => {
  const keyId = `key_${randomUUID()}`;
  const call = (i: number) => recordKeyCall(keyCall(keyId, `shutdown${i}`));
  await call(0); // written at once; the next calls wait WRITE_EVERY_MS for theirs
  const waiting = [call(1), call(2), call(3)];
  const started = Date.now();
  const { stopped, problems } = await runShutdownHooks(5_000);
  assert.ok(Date.now() - started < WRITE_EVERY_MS, "the hooks did not wait for the interval");
  assert.ok(
    stopped.includes("key call log"),
    `stopped: ${stopped.join(", ")}; problems: ${problems.join("; ")}`,
  );
  assert.equal(await (await getDb()).apiKeyCall.count({ where: { keyId } }), 4, "every call written");
  await Promise.all(waiting);
});
