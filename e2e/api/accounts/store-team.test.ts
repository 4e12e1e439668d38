import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { createAccount } from "@/lib/accounts/accounts";
import { storeForAccount } from "@/lib/accounts/store-access";
import { addStoreMember, listStoreTeam, removeStoreMember } from "@/lib/accounts/store-team";
import { getDb } from "@/lib/config/db";
import { toAppError } from "@/lib/core/errors";
import { createStore } from "@/lib/stores/create-store";

import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// A store's team: owners add existing accounts as owner or staff and remove them; staff and outsiders change
// nothing; a store never loses its last owner, not even when two owners demote each other at the same moment.

before(prepareTestDatabase);
after(closeTestDatabase);

let n = 0;
const person = (name: string) =>
  createAccount({
    name,
    email: `${name.toLowerCase()}-${process.pid}-${Date.now()}-${n++}@example.com`,
    password: "long enough passphrase",
  });
const newStore = async () => {
  const owner = await person("Olive");
  const slug = `team-${process.pid}-${Date.now().toString(36)}-${n++}`;
  await createStore({ name: "Team Shop", slug, currency: "USD", country: "US", shipping: "later" }, owner.id);
  return { owner, slug };
};
const refusal = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (thrown) {
    const error = toAppError(thrown);
    return { code: error.code, path: error.path, message: error.message };
  }
  assert.fail("expected a refusal");
};
const roles = async (slug: string, as: Awaited<ReturnType<typeof person>>) =>
  (await listStoreTeam(as, slug)).map((m) => `${m.name}:${m.role}`).sort();

test("an owner adds staff and another owner; staff may then see the team and work, not change it", async () => {
  const { owner, slug } = await newStore();
  const staff = await person("Sam");
  const second = await person("Omar");
  await addStoreMember(owner, slug, { email: ` ${staff.email.toUpperCase()} `, role: "staff" });
  await addStoreMember(owner, slug, { email: second.email, role: "owner" });
  assert.deepEqual(await roles(slug, owner), ["Olive:owner", "Omar:owner", "Sam:staff"]);
  assert.equal((await storeForAccount(staff, slug, "staff")).role, "staff");
  assert.equal((await refusal(storeForAccount(staff, slug, "owner"))).code, "owner_required");
  assert.deepEqual(await roles(slug, staff), ["Olive:owner", "Omar:owner", "Sam:staff"]);

  const outsider = await person("Xena");
  assert.equal(
    (await refusal(addStoreMember(staff, slug, { email: outsider.email, role: "owner" }))).code,
    "owner_required",
  );
  assert.equal((await refusal(removeStoreMember(staff, slug, owner.id))).code, "owner_required");
  // someone with no part in the store learns nothing about it, not even that it exists
  assert.equal((await refusal(listStoreTeam(outsider, slug))).code, "store_not_found");
  assert.equal(
    (await refusal(addStoreMember(outsider, slug, { email: outsider.email, role: "owner" }))).code,
    "store_not_found",
  );
  assert.deepEqual(await roles(slug, owner), ["Olive:owner", "Omar:owner", "Sam:staff"]);

  await removeStoreMember(second, slug, staff.id);
  assert.equal((await refusal(storeForAccount(staff, slug, "staff"))).code, "store_not_found");
});

test("bad input is refused beside its field and changes nothing", async () => {
  const { owner, slug } = await newStore();
  const cases: [unknown, string, RegExp][] = [
    [{ email: "not an email", role: "staff" }, "$.email", /email address/],
    [{ email: "nobody-here@example.com", role: "staff" }, "$.email", /sign up at \/admin\/sign-up/],
    [{ email: owner.email, role: "admin" }, "$.role", /owner or staff/],
    [{ email: owner.email, role: "staff", extra: 1 }, "$.", /./],
  ];
  for (const [input, path, message] of cases) {
    const r = await refusal(addStoreMember(owner, slug, input));
    assert.equal(r.code, "invalid_request", JSON.stringify(input));
    assert.ok(r.path?.startsWith(path), `${JSON.stringify(input)} → ${r.path}`);
    assert.match(r.message, message);
  }
  assert.equal((await refusal(removeStoreMember(owner, slug, "acct_nobody"))).code, "not_found");
  assert.deepEqual(await roles(slug, owner), ["Olive:owner"]);
});

test("the last owner can be neither removed nor made staff", async () => {
  const { owner, slug } = await newStore();
  assert.equal((await refusal(removeStoreMember(owner, slug, owner.id))).code, "last_owner");
  assert.equal(
    (await refusal(addStoreMember(owner, slug, { email: owner.email, role: "staff" }))).code,
    "last_owner",
  );
  assert.deepEqual(await roles(slug, owner), ["Olive:owner"]);
});

test("two owners demoting each other at once: one wins, the store keeps an owner", async () => {
  for (let round = 0; round < 5; round++) {
    const { owner, slug } = await newStore();
    const other = await person("Omar");
    await addStoreMember(owner, slug, { email: other.email, role: "owner" });
    const results = await Promise.allSettled([
      addStoreMember(owner, slug, { email: other.email, role: "staff" }),
      removeStoreMember(other, slug, owner.id),
    ]);
    const store = await (await getDb()).store.findUniqueOrThrow({ where: { slug } });
    const owners = await (
      await getDb()
    ).storeMembership.count({ where: { storeId: store.id, role: "owner" } });
    assert.equal(owners, 1, `round ${round}: ${results.map((r) => r.status).join(", ")}`);
    const failed = results.filter((r) => r.status === "rejected");
    assert.equal(failed.length, 1, `round ${round}`);
    // the loser was refused for the rule (or lost its own access with the winner's change), never a crash
    assert.ok(
      ["last_owner", "store_not_found", "owner_required"].includes(
        toAppError((failed[0] as PromiseRejectedResult).reason).code,
      ),
    );
  }
});
