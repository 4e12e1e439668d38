import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { createAccount } from "@/lib/accounts/accounts";
import { storeForAccount, storesOfAccount } from "@/lib/accounts/store-access";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { createStore } from "@/lib/stores/create-store";

import { callApp, readJson } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// A merchant creates a store: validated name, slug, currency and country; the store starts in test mode with a
// signing key (its profile publishes it at once) and the creator as its owner; a taken slug and bad fields are
// refused with their path and create nothing.

before(prepareTestDatabase);
after(closeTestDatabase);

const owner = () =>
  createAccount({
    name: "Owner",
    email: `owner-${process.pid}-${Date.now()}-${Math.random()}@example.com`,
    password: "long enough passphrase",
  });
const slug = () => `shop-${process.pid}-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6)}`;

test("a new store: test mode, a published signing key, its creator as owner", async () => {
  const account = await owner();
  const wanted = slug();
  const store = await createStore(
    { name: " Corner Shop ", slug: wanted.toUpperCase(), currency: "eur", country: "de" },
    account.id,
  );
  assert.deepEqual(
    [store.slug, store.name, store.currency, store.country, store.mode],
    [wanted, "Corner Shop", "EUR", "DE", "test"],
  );
  assert.equal((await storeForAccount(account, wanted, "owner")).role, "owner");
  assert.deepEqual(
    (await storesOfAccount(account)).map((s) => s.store.slug),
    [wanted],
  );
  const profile = await readJson<{ signing_keys: { kid: string }[] }>(
    await callApp("GET", `/s/${wanted}/.well-known/ucp`),
  );
  assert.equal(profile.status, 200);
  const [key] = await (await getDb()).storeSigningKey.findMany({ where: { storeId: store.id } });
  assert.deepEqual(
    profile.body.signing_keys.map((k) => k.kid),
    [key!.kid],
  );
});

test("bad fields and a taken slug are refused with their path; nothing is created", async () => {
  const account = await owner();
  const taken = slug();
  await createStore({ name: "First", slug: taken, currency: "USD", country: "US" }, account.id);
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ name: "", slug: slug(), currency: "USD", country: "US" }, "$.name", /Name the store/],
    [{ name: "X", slug: "-bad-", currency: "USD", country: "US" }, "$.slug", /lower-case letters/],
    [{ name: "X", slug: "ab", currency: "USD", country: "US" }, "$.slug", /at least 3/],
    [{ name: "X", slug: slug(), currency: "XYZ", country: "US" }, "$.currency", /ISO 4217/],
    [{ name: "X", slug: slug(), currency: "USD", country: "ZZ" }, "$.country", /ISO 3166/],
    [{ name: "X", slug: slug(), currency: "USD", country: "US", mode: "live" }, "$", /Unrecognized key/i],
    [{ name: "Second", slug: taken, currency: "USD", country: "US" }, "$.slug", /is taken/],
  ];
  for (const [input, path, pattern] of cases) {
    await assert.rejects(createStore(input, account.id), (error: unknown) => {
      assert.ok(error instanceof AppError, String(error));
      assert.equal(error.code, "invalid_request");
      assert.equal(error.path, path);
      assert.match(error.message, pattern);
      return true;
    });
  }
  assert.deepEqual(
    (await storesOfAccount(account)).map((s) => s.store.slug),
    [taken],
  );
});
