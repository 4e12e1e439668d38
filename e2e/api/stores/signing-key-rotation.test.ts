import assert from "node:assert/strict";
import { createPublicKey, type JsonWebKey } from "node:crypto";
import { after, before, test } from "node:test";

import { createVerifier, httpbis } from "http-message-signatures";
import { flattenedVerify, importJWK } from "jose";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
import { rotateDueSigningKeys, rotateStoreSigningKey } from "@/lib/stores/rotate-signing-key";
import { signDetachedWithStoreKey } from "@/lib/stores/sign-detached";
import { signedByStore } from "@/lib/stores/sign-response";
import { getStoreProfile } from "@/lib/stores/store-profile";
import { webhookWorkerStep } from "@/lib/webhooks/worker";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { rest, TEST_BASE_URL } from "../../helpers/app-client";
import { completeCardOrder, newPlatformSigner, type PlatformSigner } from "../../helpers/paid-order";
import { runAdminCaptured } from "../../helpers/run-admin";
import {
  servePlatformProfile,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../../helpers/webhook-receiver";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// Store signing key rotation (UCP signatures.md; CONTRACT.md §13): the new key is published beside the old one and
// signs everything from then on (completion responses, AP2 detached signatures, webhooks), each verifying
// against the profile; the old key stays published for the 7-day grace and is then deleted (clock injected).
// The schedule rotates only keys older than the maximum age, once however many instances run it at the same time.
// Every sweep here is scoped to this file's stores: files run in parallel on one PostgreSQL, and rotating their
// stores' keys would break their signature checks.

const DAY = 24 * 60 * 60 * 1000;

let receiver: WebhookReceiver;
let profileUrl: string;
let closeProfile: () => void;
let signer: PlatformSigner;
let store: Store;
let variantId: string;
let apiKey: string;

before(async () => {
  await prepareTestDatabase();
  receiver = await startWebhookReceiver();
  signer = newPlatformSigner();
  const profile = await servePlatformProfile(receiver.url("/platform"), { signingKeys: [signer.publicJwk] });
  profileUrl = profile.url;
  closeProfile = profile.close;
  store = await seedStore();
  await seedShippingRates(store, [{ code: "standard", priceMinor: 500 }]);
  variantId = (await seedProduct(store, { variants: [{ priceMinor: 3100, inventory: 5 }] })).variants[0]!.id;
  apiKey = (await seedPlatformKey(["orders:read", "purchase:complete"])).key;
});
after(async () => {
  closeProfile();
  await receiver.close();
  await closeTestDatabase();
});

type Jwk = JsonWebKey & { kid: string };

const admin = async (...argv: string[]) => {
  const { code, out } = await runAdminCaptured(...argv);
  return { code, out };
};

const publishedKeys = async (slug: string): Promise<Jwk[]> =>
  (await rest<{ signing_keys: Jwk[] }>("GET", `/s/${slug}/.well-known/ucp`)).body.signing_keys;

const keysOf = async (storeId: string) =>
  (await getDb()).storeSigningKey.findMany({ where: { storeId }, orderBy: { createdAt: "asc" } });

test("rotate-signing-key: both keys published; responses, detached signatures and webhooks use the new kid and verify against the profile", async () => {
  const [first] = await keysOf(store.id);
  const oldKid = first!.kid;
  assert.deepEqual(
    (await publishedKeys(store.slug)).map((k) => k.kid),
    [oldKid],
  );

  const { code, out } = await admin("rotate-signing-key", "--store", store.slug, "--json");
  assert.equal(code, 0);
  const rotation = JSON.parse(out) as { kid: string; retired: string[] };
  assert.notEqual(rotation.kid, oldKid);
  assert.deepEqual(rotation.retired, [oldKid]);

  const published = await publishedKeys(store.slug);
  assert.deepEqual(
    published.map((k) => k.kid),
    [oldKid, rotation.kid],
    "the new key beside the old one",
  );
  assert.ok(
    published.every((k) => !("d" in k)),
    "never a private member",
  );
  const newJwk = published.find((k) => k.kid === rotation.kid)!;

  // a signed response (the completion route's wrapper) carries the new kid and verifies with the published key
  const handler = signedByStore(
    async () => new Response('{"ok":true}', { status: 200, headers: { "content-type": "application/json" } }),
  );
  const res = await handler(new Request(`${TEST_BASE_URL}/s/${store.slug}/x`), {
    params: Promise.resolve({ store_slug: store.slug }),
  });
  const input = res.headers.get("signature-input") ?? "";
  assert.match(input, new RegExp(`keyid="${rotation.kid}"`));
  const verified = await httpbis.verifyMessage(
    {
      keyLookup: async (params) =>
        params.keyid === newJwk.kid
          ? {
              id: newJwk.kid,
              algs: ["ecdsa-p256-sha256"],
              verify: createVerifier(createPublicKey({ key: newJwk, format: "jwk" }), "ecdsa-p256-sha256"),
            }
          : null,
    },
    { status: 200, headers: Object.fromEntries(res.headers.entries()) },
  );
  assert.equal(verified, true);
  assert.equal(await res.text(), '{"ok":true}', "the body a handler streamed is passed on, not used up");

  // the AP2 merchant authorization (detached JWS) too
  const payload = new TextEncoder().encode('{"checkout":"chk_1"}');
  const detached = await signDetachedWithStoreKey(await getDb(), store.id, payload);
  const [protectedHeader, , signature] = detached!.split(".");
  const header = JSON.parse(Buffer.from(protectedHeader!, "base64url").toString()) as { kid: string };
  assert.equal(header.kid, rotation.kid);
  await flattenedVerify(
    {
      protected: protectedHeader!,
      payload: Buffer.from(payload).toString("base64url"),
      signature: signature!,
    },
    await importJWK({ ...newJwk, alg: "ES256" }, "ES256"),
  );

  // and an order webhook to the platform, verified by a receiver that trusts only the published new key
  receiver.trust(newJwk);
  const { orderId } = await completeCardOrder(store, {
    apiKey,
    profileUrl,
    signer,
    lines: [{ variantId, quantity: 1 }],
  });
  await webhookWorkerStep(new Date(), { storeId: store.id });
  const deliveries = receiver.received.filter((r) => r.path === "/platform" && r.body.includes(orderId));
  assert.ok(deliveries.length > 0, "a webhook was delivered");
  assert.ok(
    deliveries.every((r) => r.verified && r.digestOk),
    "signed with the new key",
  );
});

test("the retired key stays published for 7 days, then the schedule deletes it (clock injected)", async () => {
  const keys = await keysOf(store.id);
  const retired = keys.find((k) => k.retiredAt !== null)!;
  const current = keys.find((k) => k.retiredAt === null)!;
  const kidsAt = async (at: Date) =>
    (await getStoreProfile(store.slug, TEST_BASE_URL, at)).signing_keys.map((k) => k.kid);

  const almost = new Date(retired.retiredAt!.getTime() + 7 * DAY - 60_000);
  assert.deepEqual(await kidsAt(almost), [retired.kid, current.kid]);
  assert.equal((await rotateDueSigningKeys({ now: almost, maxAgeDays: 90, storeId: store.id })).dropped, 0);
  assert.equal((await keysOf(store.id)).length, 2, "kept within the grace");

  const past = new Date(retired.retiredAt!.getTime() + 7 * DAY + 1_000);
  assert.deepEqual(await kidsAt(past), [current.kid], "no longer published");
  const swept = await rotateDueSigningKeys({ now: past, maxAgeDays: 90, storeId: store.id });
  assert.equal(swept.dropped, 1);
  assert.deepEqual(
    swept.rotated.filter((r) => r.storeId === store.id),
    [],
    "a young key is not rotated",
  );
  assert.deepEqual(
    (await keysOf(store.id)).map((k) => k.kid),
    [current.kid],
    "the old row is gone",
  );
});

test("the schedule rotates keys older than the maximum age, once even when two instances run it at the same moment", async () => {
  const other = await seedStore();
  const [original] = await keysOf(other.id);
  const created = original!.createdAt.getTime();

  const young = await rotateDueSigningKeys({
    now: new Date(created + 89 * DAY),
    maxAgeDays: 90,
    storeId: other.id,
  });
  assert.equal(young.rotated.filter((r) => r.storeId === other.id).length, 0, "89 days old: kept");

  const due = new Date(created + 91 * DAY);
  const [a, b] = await Promise.all([
    rotateDueSigningKeys({ now: due, maxAgeDays: 90, storeId: other.id }),
    rotateDueSigningKeys({ now: due, maxAgeDays: 90, storeId: other.id }),
  ]);
  const rotations = [...a.rotated, ...b.rotated].filter((r) => r.storeId === other.id);
  assert.equal(rotations.length, 1, "one instance rotated, the other found the fresh key");
  const keys = await keysOf(other.id);
  assert.equal(keys.filter((k) => k.retiredAt === null).length, 1, "one current key");
  assert.equal(keys.length, 2);

  // a rotation of a store with no key yet gives it its first one
  const db = await getDb();
  await db.storeSigningKey.deleteMany({ where: { storeId: other.id } });
  const first = await rotateStoreSigningKey(other.id);
  assert.deepEqual(first?.retired, []);
  assert.equal((await keysOf(other.id)).length, 1);
});

test("rotate-signing-key: an unknown store is refused and nothing changes; --help explains the command", async () => {
  // the keys of this file's store (other files' stores get keys meanwhile on a shared PostgreSQL)
  const before = await keysOf(store.id);
  await assert.rejects(admin("rotate-signing-key", "--store", "no-such-store"), /no-such-store|store/i);
  assert.deepEqual(await keysOf(store.id), before);
  const help = await admin("rotate-signing-key", "--help");
  assert.equal(help.code, 0);
  assert.match(help.out, /^Usage: npm run admin -- rotate-signing-key --store <slug>/);
  assert.match(help.out, /7 days/);
});
