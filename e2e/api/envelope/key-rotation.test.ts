import assert from "node:assert/strict";
import { randomUUID, type JsonWebKey } from "node:crypto";
import { after, before, beforeEach, describe, mock, test } from "node:test";

import { clearAgentProfileCache } from "@/lib/agents/agent-profile";
import type { Store } from "@/lib/generated/prisma/client";
import { signRequest } from "@/lib/httpsig/signature";

import { seedStore } from "../../factories";
import { makeAgentKey, profileServer } from "../../helpers/agent-profile-server";
import { callApp, readJson, TEST_BASE_URL } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// Agent key rotation (DECISIONS.md B13; UCP overview.md "Fetching" 6): agents rotate the keys in their profile
// without telling us. A key id we do not know makes us refetch the profile once before refusing — at most once per
// 60 s per origin (UCP's MUST, within B13's "at most every 30 s") — and a key is trusted from a cached copy for at
// most 5 minutes whatever the profile's Cache-Control says, so a removed key stops working within that bound.
// The profile double serves every profile from one origin, so each test starts from an empty cache.

const profiles = await profileServer();

type Body = { messages?: { code: string; content: string }[] };

let store: Store;

before(async () => {
  await prepareTestDatabase();
  store = await seedStore();
});
after(closeTestDatabase);

type Key = ReturnType<typeof makeAgentKey>;

/** A signed read of a cart that does not exist: 200 with not_found when the signature verifies. */
const signedRead = async (profile: string, key: Key) => {
  const path = `/s/${store.slug}/carts/cart_none`;
  const headers = new Headers({ "request-id": randomUUID(), "ucp-agent": `profile="${profile}"` });
  const signed = await signRequest(
    { method: "GET", url: `${TEST_BASE_URL}${path}`, headers, body: "" },
    { privateJwk: key.privateJwk as JsonWebKey, keyid: key.kid, created: new Date() },
  );
  return readJson<Body>(await callApp("GET", path, { headers: Object.fromEntries(signed.entries()) }));
};

const codeOf = (res: { body: Body }) => res.body.messages?.[0]?.code;

describe("agent key rotation", () => {
  beforeEach(clearAgentProfileCache);

  test("a rotated-in key is accepted on first use; an unknown key refetches at most every 60 s", async () => {
    const oldKey = makeAgentKey("rot-old");
    const newKey = makeAgentKey("rot-new");
    const url = profiles.publish("agent-rotating-first-use", [oldKey.publicJwk]);

    const before = await signedRead(url, oldKey);
    assert.equal(before.status, 200, before.text);
    assert.equal(profiles.hits("agent-rotating-first-use"), 1);

    // The agent rotates (the profile says max-age=3600): the new key works at once, through one refetch.
    profiles.publish("agent-rotating-first-use", [newKey.publicJwk]);
    const rotated = await signedRead(url, newKey);
    assert.equal(rotated.status, 200, rotated.text);
    assert.equal(profiles.hits("agent-rotating-first-use"), 2);

    // Another unknown key within 60 s: refused without a refetch, saying when a refetch will happen.
    const stranger = await signedRead(url, makeAgentKey("rot-stranger"));
    assert.equal(stranger.status, 401);
    assert.equal(codeOf(stranger), "key_not_found");
    assert.match(stranger.body.messages?.[0]?.content ?? "", /at most every 60 s: retry in \d+ s/);
    assert.equal(profiles.hits("agent-rotating-first-use"), 2);
  });

  test("an unknown key refetches again once 60 s have passed, and says it looked at a fresh copy", async () => {
    const key = makeAgentKey("rot-throttle");
    const url = profiles.publish("agent-rotating-throttle", [key.publicJwk]);
    mock.timers.enable({ apis: ["Date"], now: Date.now() });
    try {
      assert.equal((await signedRead(url, key)).status, 200);
      mock.timers.tick(2_000);
      const first = await signedRead(url, makeAgentKey("rot-unknown-1"));
      assert.equal(codeOf(first), "key_not_found");
      assert.match(first.body.messages?.[0]?.content ?? "", /refetched just now/);
      assert.equal(profiles.hits("agent-rotating-throttle"), 2);
      mock.timers.tick(10_000);
      assert.equal(codeOf(await signedRead(url, makeAgentKey("rot-unknown-2"))), "key_not_found");
      assert.equal(profiles.hits("agent-rotating-throttle"), 2, "no refetch within 60 s");
      mock.timers.tick(51_000);
      assert.equal(codeOf(await signedRead(url, makeAgentKey("rot-unknown-3"))), "key_not_found");
      assert.equal(profiles.hits("agent-rotating-throttle"), 3, "one refetch after 60 s");
    } finally {
      mock.timers.reset();
    }
  });

  test("a removed key is refused within 5 minutes although the profile said max-age=3600", async () => {
    const compromised = makeAgentKey("rot-compromised");
    const replacement = makeAgentKey("rot-replacement");
    const url = profiles.publish("agent-rotating-removed", [compromised.publicJwk]);
    mock.timers.enable({ apis: ["Date"], now: Date.now() });
    try {
      assert.equal((await signedRead(url, compromised)).status, 200);
      profiles.publish("agent-rotating-removed", [replacement.publicJwk]);
      mock.timers.tick(4 * 60_000);
      // Still inside the bound: the cached copy is trusted (no fetch per request).
      assert.equal((await signedRead(url, compromised)).status, 200);
      assert.equal(profiles.hits("agent-rotating-removed"), 1);
      mock.timers.tick(61_000);
      const refused = await signedRead(url, compromised);
      assert.equal(refused.status, 401);
      assert.equal(codeOf(refused), "key_not_found");
      assert.equal(profiles.hits("agent-rotating-removed"), 2);
    } finally {
      mock.timers.reset();
    }
  });
});
