import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import type { AccountSummary } from "@/lib/accounts/accounts";
import { storeForAccount } from "@/lib/accounts/store-access";
import { acceptInvitation, inviteToStore } from "@/lib/accounts/store-invitations";
import { listStoreTeam, removeStoreMember } from "@/lib/accounts/store-team";
import { getDb } from "@/lib/config/db";
import { toAppError } from "@/lib/core/errors";
import { createStore } from "@/lib/stores/create-store";

import { seedVerifiedAccount } from "../../factories";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// A store's team: owners invite people as owner or staff (store-invitations.test.ts tests the invitations
// themselves) and remove them; staff and outsiders change nothing; a store never loses its last owner, not even
// when two owners remove each other at the same moment.

before(prepareTestDatabase);
after(closeTestDatabase);

let n = 0;
const person = (name: string) =>
  seedVerifiedAccount({
    name,
    email: `${name.toLowerCase()}-${process.pid}-${Date.now()}-${n++}@example.com`,
  });

/** The token of the newest invitation mailed to `email`. */
const invitationToken = async (email: string): Promise<string> => {
  const mail = await (
    await getDb()
  ).capturedMail.findFirstOrThrow({ where: { to: email }, orderBy: { createdAt: "desc" } });
  return /invitations\/accept\?token=([A-Za-z0-9_-]{43})/.exec(mail.text)![1]!;
};
/** Invites `member` and has them accept, as the team page and the mailed link do. */
const addStoreMember = async (
  inviter: AccountSummary,
  slug: string,
  member: AccountSummary,
  role: "owner" | "staff",
) => {
  await inviteToStore(inviter, slug, { email: member.email, role }, { baseUrl: "http://127.0.0.1:3000" });
  await acceptInvitation(member, { token: await invitationToken(member.email) });
};
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
  await addStoreMember(owner, slug, staff, "staff");
  await addStoreMember(owner, slug, second, "owner");
  assert.deepEqual(await roles(slug, owner), ["Olive:owner", "Omar:owner", "Sam:staff"]);
  assert.equal((await storeForAccount(staff, slug, "staff")).role, "staff");
  assert.equal((await refusal(storeForAccount(staff, slug, "owner"))).code, "owner_required");
  assert.deepEqual(await roles(slug, staff), ["Olive:owner", "Omar:owner", "Sam:staff"]);

  const outsider = await person("Xena");
  assert.equal(
    (await refusal(inviteToStore(staff, slug, { email: outsider.email, role: "owner" }))).code,
    "owner_required",
  );
  assert.equal((await refusal(removeStoreMember(staff, slug, owner.id))).code, "owner_required");
  // someone with no part in the store learns nothing about it, not even that it exists
  assert.equal((await refusal(listStoreTeam(outsider, slug))).code, "store_not_found");
  assert.equal(
    (await refusal(inviteToStore(outsider, slug, { email: outsider.email, role: "owner" }))).code,
    "store_not_found",
  );
  assert.deepEqual(await roles(slug, owner), ["Olive:owner", "Omar:owner", "Sam:staff"]);

  await removeStoreMember(second, slug, staff.id);
  assert.equal((await refusal(storeForAccount(staff, slug, "staff"))).code, "store_not_found");
});

test("the last owner cannot be removed", async () => {
  const { owner, slug } = await newStore();
  assert.equal((await refusal(removeStoreMember(owner, slug, owner.id))).code, "last_owner");
  assert.equal((await refusal(removeStoreMember(owner, slug, "acct_nobody"))).code, "not_found");
  assert.deepEqual(await roles(slug, owner), ["Olive:owner"]);
});

test("two owners removing each other at once: one wins, the store keeps an owner", async () => {
  for (let round = 0; round < 5; round++) {
    const { owner, slug } = await newStore();
    const other = await person("Omar");
    await addStoreMember(owner, slug, other, "owner");
    const results = await Promise.allSettled([
      removeStoreMember(owner, slug, other.id),
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
