import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { createAccount, makeOperator } from "@/lib/accounts/accounts";
import { operatorListKeys, operatorRevokeKey } from "@/lib/accounts/operator";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { createApiKey } from "@/lib/credentials/create-api-key";
import { listApiKeys, revokeApiKey } from "@/lib/credentials/manage-api-keys";
import { resolvePrincipal } from "@/lib/credentials/resolve-principal";

import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The developer area's keys: an account makes keys it owns, sees only those, revokes only those (another's key is
// not_found and keeps working), and each key's "last used" is written on use, at most once a minute.

before(prepareTestDatabase);
after(closeTestDatabase);

const account = (name: string) =>
  createAccount({
    name,
    email: `${name}-${process.pid}-${Date.now()}@example.com`,
    password: "long enough passphrase",
  });

test("keys belong to their account: listed, revoked and refused per account", async () => {
  const [alice, bob] = [await account("alice"), await account("bob")];
  const mine = await createApiKey(
    { name: "alice agent", permissions: ["purchase:complete"] },
    { accountId: alice.id },
  );
  const theirs = await createApiKey({ name: "bob agent" }, { accountId: bob.id });
  assert.deepEqual(
    (await listApiKeys({ accountId: alice.id })).map((k) => k.name),
    ["alice agent"],
  );
  assert.deepEqual(
    (await listApiKeys({ accountId: bob.id })).map((k) => k.name),
    ["bob agent"],
  );
  assert.ok(
    (await listApiKeys()).some((k) => k.id === mine.id) &&
      (await listApiKeys()).some((k) => k.id === theirs.id),
  );

  await assert.rejects(revokeApiKey(theirs.id, new Date(), { accountId: alice.id }), (error: unknown) => {
    assert.ok(error instanceof AppError);
    assert.equal(error.code, "not_found");
    return true;
  });
  assert.equal((await resolvePrincipal({ apiKey: theirs.key, authorization: null })).kind, "platform");
  const revoked = await revokeApiKey(mine.id, new Date(), { accountId: alice.id });
  assert.ok(revoked.revokedAt);
  await assert.rejects(resolvePrincipal({ apiKey: mine.key, authorization: null }), /revoked/);
});

test("last used: written on the first use, then at most once a minute", async () => {
  const owner = await account("carol");
  const key = await createApiKey({ name: "carol agent" }, { accountId: owner.id });
  const lastUsed = async () =>
    (await (await getDb()).platformApiKey.findUniqueOrThrow({ where: { id: key.id } })).lastUsedAt;
  assert.equal(await lastUsed(), null);
  await resolvePrincipal({ apiKey: key.key, authorization: null });
  const first = await lastUsed();
  assert.ok(first);
  await resolvePrincipal({ apiKey: key.key, authorization: null });
  assert.deepEqual(await lastUsed(), first, "a second use within the minute writes nothing");
  await (
    await getDb()
  ).platformApiKey.update({
    where: { id: key.id },
    data: { lastUsedAt: new Date(Date.now() - 120_000) },
  });
  await resolvePrincipal({ apiKey: key.key, authorization: null });
  assert.ok((await lastUsed())!.getTime() > Date.now() - 10_000, "an old stamp is refreshed");
});

test("the operator sees every developer's keys with their owner and revokes any; nobody else can", async () => {
  const [dev, other] = [await account("dev"), await account("other")];
  const made = await createApiKey({ name: "dev agent", permissions: ["orders:read"] }, { accountId: dev.id });
  const cli = await createApiKey({ name: "cli key" });
  const operator = await makeOperator(other.email);

  const seen = await operatorListKeys(operator);
  const devRow = seen.find((k) => k.id === made.id)!;
  assert.deepEqual(devRow.owner, { name: dev.name, email: dev.email });
  assert.deepEqual(devRow.permissions, ["orders:read"]);
  assert.equal(seen.find((k) => k.id === cli.id)?.owner, null);
  assert.ok(seen.every((k) => !("secretHash" in k) && !("accountId" in k)));

  // a developer is not the operator: the operator's view does not exist for them, and nothing is revoked
  for (const attempt of [operatorListKeys(dev), operatorRevokeKey(dev, made.id)]) {
    await assert.rejects(attempt, (e: AppError) => e.code === "not_found");
  }
  assert.equal((await resolvePrincipal({ apiKey: made.key, authorization: null })).kind, "platform");

  await operatorRevokeKey(operator, made.id);
  await assert.rejects(resolvePrincipal({ apiKey: made.key, authorization: null }), /revoked/);
});
