import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { createAccount, type AccountSummary } from "@/lib/accounts/accounts";
import { grantStoreRole } from "@/lib/accounts/store-access";
import {
  acceptInvitation,
  INVITATION_TTL_MS,
  inviteToStore,
  listOpenInvitations,
  revokeInvitation,
  viewInvitation,
} from "@/lib/accounts/store-invitations";
import { listStoreTeam } from "@/lib/accounts/store-team";
import { getDb } from "@/lib/config/db";
import { toAppError } from "@/lib/core/errors";
import { createStore } from "@/lib/stores/create-store";

import { seedVerifiedAccount } from "../../factories";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// Team invitations: an owner invites an address with a role; the mailed link names the store and the role, works
// once, expires, and is accepted only by a signed-in, verified account of that address while the inviter is still
// an owner. Every refusal is a clear error and leaves the team and the invitation as they were.

before(prepareTestDatabase);
after(closeTestDatabase);

const BASE = "http://127.0.0.1:3000";
let n = 0;
const address = (name: string) => `${name.toLowerCase()}-${process.pid}-${Date.now()}-${n++}@example.com`;
const person = (name: string) => seedVerifiedAccount({ name, email: address(name) });
const newStore = async () => {
  const owner = await person("Olive");
  const slug = `inv-${process.pid}-${Date.now().toString(36)}-${n++}`;
  const store = await createStore(
    { name: "Invite Shop", slug, currency: "USD", country: "US", shipping: "later" },
    owner.id,
  );
  return { owner, slug, storeId: store.id };
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
const team = async (slug: string, as: AccountSummary) =>
  (await listStoreTeam(as, slug)).map((m) => `${m.name}:${m.role}`).sort();

/** The newest invitation mailed to `email`: its subject and the link's token. */
const invitationMail = async (email: string) => {
  const mail = await (
    await getDb()
  ).capturedMail.findFirstOrThrow({ where: { to: email }, orderBy: { createdAt: "desc" } });
  const token = /\/admin\/invitations\/accept\?token=([A-Za-z0-9_-]{43})/.exec(mail.text)![1]!;
  return { subject: mail.subject, text: mail.text, token };
};

test("the invited address accepts once with its verified account; the link then works no more", async () => {
  const { owner, slug } = await newStore();
  const sam = await person("Sam");
  const invitation = await inviteToStore(
    owner,
    slug,
    { email: ` ${sam.email.toUpperCase()} `, role: "staff" },
    { baseUrl: BASE },
  );
  assert.equal(invitation.email, sam.email);
  const mail = await invitationMail(sam.email);
  assert.match(mail.subject, /Olive invites you to Invite Shop as staff/);
  assert.match(mail.text, /7 days/);
  // the link's page says what it invites to; nothing but its hash is stored
  assert.deepEqual(
    { ...(await viewInvitation({ token: mail.token })), expiresAt: undefined },
    { storeName: "Invite Shop", role: "staff", email: sam.email, invitedBy: "Olive", expiresAt: undefined },
  );
  const row = await (await getDb()).storeInvitation.findUniqueOrThrow({ where: { id: invitation.id } });
  assert.notEqual(row.tokenHash, mail.token);
  assert.deepEqual(
    (await listOpenInvitations(owner, slug)).map((i) => [i.email, i.role]),
    [[sam.email, "staff"]],
  );

  assert.deepEqual(await acceptInvitation(sam, { token: mail.token }), {
    storeSlug: slug,
    storeName: "Invite Shop",
    role: "staff",
  });
  assert.deepEqual(await team(slug, owner), ["Olive:owner", "Sam:staff"]);
  assert.deepEqual(await listOpenInvitations(owner, slug), []);

  const reused = await refusal(acceptInvitation(sam, { token: mail.token }));
  assert.equal(reused.code, "invalid_request");
  assert.equal(reused.path, "$.token");
  assert.match(reused.message, /already accepted/);
  assert.match((await refusal(viewInvitation({ token: mail.token }))).message, /already accepted/);

  // already on the team: no second invitation
  const twice = await refusal(
    inviteToStore(owner, slug, { email: sam.email, role: "owner" }, { baseUrl: BASE }),
  );
  assert.equal(twice.code, "conflict");
  assert.deepEqual(await team(slug, owner), ["Olive:owner", "Sam:staff"]);
});

test("an unverified account of the invited address cannot accept until it verifies", async () => {
  const { owner, slug } = await newStore();
  const email = address("Uma");
  // someone signs up with the address before (or after) the owner invites it: the sign-up alone joins nothing
  const uma = await createAccount({ name: "Uma", email, password: "long enough passphrase" });
  await inviteToStore(owner, slug, { email, role: "owner" }, { baseUrl: BASE });
  const { token } = await invitationMail(email);
  const unverified = await refusal(acceptInvitation(uma, { token }));
  assert.equal(unverified.code, "invalid_request");
  assert.match(unverified.message, /Verify .* first/);
  assert.deepEqual(await team(slug, owner), ["Olive:owner"]);

  // the invitation is still open: once the address is verified, it works
  await (
    await getDb()
  ).merchantAccount.update({ where: { id: uma.id }, data: { emailVerifiedAt: new Date() } });
  await acceptInvitation(uma, { token });
  assert.deepEqual(await team(slug, owner), ["Olive:owner", "Uma:owner"]);
});

test("refused: another address, an expired link, a withdrawn one, an inviter no longer owner, an unknown role", async () => {
  const { owner, slug, storeId } = await newStore();
  const sam = await person("Sam");
  const eve = await person("Eve");
  const t0 = new Date();
  await inviteToStore(owner, slug, { email: sam.email, role: "staff" }, { baseUrl: BASE, now: t0 });
  const { token } = await invitationMail(sam.email);

  const other = await refusal(acceptInvitation(eve, { token }));
  assert.equal(other.code, "invalid_request");
  assert.match(other.message, new RegExp(`for ${sam.email.replace(/[.+]/g, "\\$&")}`));

  const expired = await refusal(
    acceptInvitation(sam, { token }, { now: new Date(t0.getTime() + INVITATION_TTL_MS + 1) }),
  );
  assert.equal(expired.code, "invalid_request");
  assert.match(expired.message, /expired: ask an owner of Invite Shop/);

  const garbage = await refusal(acceptInvitation(sam, { token: "nope" }));
  assert.match(garbage.message, /not valid/);
  assert.match((await refusal(acceptInvitation(sam, { token: "B".repeat(43) }))).message, /not valid/);

  // the inviter is made staff: the invitation no longer stands
  const second = await person("Omar");
  await grantStoreRole(second.id, storeId, "owner");
  await grantStoreRole(owner.id, storeId, "staff");
  const demoted = await refusal(acceptInvitation(sam, { token }));
  assert.equal(demoted.code, "owner_required");
  assert.match(demoted.message, /Olive is no longer an owner of Invite Shop/);
  // ... nor once removed from the team
  await (await getDb()).storeMembership.deleteMany({ where: { storeId, accountId: owner.id } });
  assert.equal((await refusal(acceptInvitation(sam, { token }))).code, "owner_required");
  assert.deepEqual(await team(slug, second), ["Omar:owner"]);

  // a role that does not exist (a row edited by hand) is refused at acceptance too
  await inviteToStore(second, slug, { email: sam.email, role: "staff" }, { baseUrl: BASE });
  const fresh = await invitationMail(sam.email);
  await (
    await getDb()
  ).storeInvitation.updateMany({
    where: { storeId, email: sam.email, acceptedAt: null, revokedAt: null },
    data: { role: "admin" },
  });
  assert.match((await refusal(acceptInvitation(sam, { token: fresh.token }))).message, /no role we know/);

  // a withdrawn invitation: the link stops working
  await inviteToStore(second, slug, { email: eve.email, role: "staff" }, { baseUrl: BASE });
  const eveMail = await invitationMail(eve.email);
  const [open] = (await listOpenInvitations(second, slug)).filter((i) => i.email === eve.email);
  await revokeInvitation(second, slug, open!.id);
  assert.match((await refusal(acceptInvitation(eve, { token: eveMail.token }))).message, /withdrawn/);
  assert.equal((await refusal(revokeInvitation(second, slug, open!.id))).code, "not_found");

  assert.deepEqual(await team(slug, second), ["Omar:owner"]);
  const accepted = await (
    await getDb()
  ).storeInvitation.count({ where: { storeId, acceptedAt: { not: null } } });
  assert.equal(accepted, 0);
});

test("only an owner invites, with a valid address and a role that exists; a refusal sends nothing", async () => {
  const { owner, slug } = await newStore();
  const sam = await person("Sam");
  await inviteToStore(owner, slug, { email: sam.email, role: "staff" }, { baseUrl: BASE });
  await acceptInvitation(sam, { token: (await invitationMail(sam.email)).token });
  const outsider = await person("Xena");
  const target = address("Target");
  assert.equal(
    (await refusal(inviteToStore(sam, slug, { email: target, role: "staff" }))).code,
    "owner_required",
  );
  assert.equal(
    (await refusal(inviteToStore(outsider, slug, { email: target, role: "staff" }))).code,
    "store_not_found",
  );
  const cases: [unknown, string, RegExp][] = [
    [{ email: "not an email", role: "staff" }, "$.email", /email address/],
    [{ email: target, role: "admin" }, "$.role", /owner or staff/],
    [{ email: target, role: "staff", extra: 1 }, "$.", /./],
  ];
  for (const [input, path, message] of cases) {
    const r = await refusal(inviteToStore(owner, slug, input, { baseUrl: BASE }));
    assert.equal(r.code, "invalid_request", JSON.stringify(input));
    assert.ok(r.path?.startsWith(path), `${JSON.stringify(input)} → ${r.path}`);
    assert.match(r.message, message);
  }
  assert.equal(await (await getDb()).capturedMail.count({ where: { to: target } }), 0);
  assert.deepEqual(await listOpenInvitations(owner, slug), []);
  assert.equal((await refusal(revokeInvitation(sam, slug, "inv_x"))).code, "owner_required");
});

test("a newer invitation of the same address replaces the open one", async () => {
  const { owner, slug } = await newStore();
  const sam = await person("Sam");
  await inviteToStore(owner, slug, { email: sam.email, role: "owner" }, { baseUrl: BASE });
  const first = await invitationMail(sam.email);
  await inviteToStore(owner, slug, { email: sam.email, role: "staff" }, { baseUrl: BASE });
  const second = await invitationMail(sam.email);
  assert.deepEqual(
    (await listOpenInvitations(owner, slug)).map((i) => i.role),
    ["staff"],
  );
  assert.match((await refusal(acceptInvitation(sam, { token: first.token }))).message, /withdrawn/);
  await acceptInvitation(sam, { token: second.token });
  assert.deepEqual(await team(slug, owner), ["Olive:owner", "Sam:staff"]);
});
