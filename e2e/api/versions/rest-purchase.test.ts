import assert from "node:assert/strict";
import { createPublicKey, randomUUID, verify, type JsonWebKey } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";

import { mandateTerms, signCheckoutMandate } from "@agent-commerce/agent-kit/mandate";
import canonicalize from "canonicalize";
import { compactVerify, importJWK, type JWK } from "jose";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";
import { webhookWorkerStep } from "@/lib/webhooks/worker";

import {
  seedDiscountCodes,
  seedPlatformKey,
  seedProduct,
  seedShippingRates,
  seedStore,
} from "../../factories";
import { profileServer } from "../../helpers/agent-profile-server";
import { rest } from "../../helpers/app-client";
import { agentProfile0111, agentProfile0123 } from "../../helpers/older-agent-profiles";
import { assertOlderRequest, CARD_0111, wholeUpdate } from "../../helpers/older-requests";
import { assertUcpSchema, type SchemaVersion } from "../../helpers/ucp-schema";
import { startWebhookReceiver, type WebhookReceiver } from "../../helpers/webhook-receiver";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// A whole card purchase over REST at each older version — discovery of the leaf profile, create, get, update with
// fulfillment and a discount, complete by card with an AP2 mandate, the order webhook — every answer checked
// against that version's official schemas (the translations of lib/ucp/versions at the REST edge), plus cancel,
// the error shape, the refusal of what the version lacks, and the version pinned on the checkout.

type Json = Record<string, unknown>;
type Version = "2026-01-11" | "2026-01-23";

const REFS: Record<Version, string[]> = {
  "2026-01-11": [
    "shopping/fulfillment.json#/$defs/checkout",
    "shopping/discount.json#/$defs/checkout",
    "shopping/buyer_consent.json#/$defs/checkout",
  ],
  "2026-01-23": [
    "shopping/fulfillment.json#/$defs/checkout",
    "shopping/discount.json#/$defs/checkout",
    "shopping/buyer_consent.json#/$defs/checkout",
  ],
};
const AP2_REF: Record<Version, string> = {
  "2026-01-11": "shopping/ap2_mandate.json#/$defs/checkout_response_with_ap2",
  "2026-01-23": "shopping/ap2_mandate.json#/$defs/checkout",
};

const assertCheckout = (version: Version, body: unknown, ap2 = true) => {
  for (const ref of REFS[version]) assertUcpSchema(ref, body, version as SchemaVersion);
  if (ap2) assertUcpSchema(AP2_REF[version], body, version as SchemaVersion);
  assert.equal((body as { ucp: { version: string } }).ucp.version, version);
};

/** `ap2.merchant_authorization` verifies over the body as received, at its version, with the store's key. */
const assertMerchantAuthorization = async (body: Json) => {
  const jws = (body.ap2 as { merchant_authorization?: string } | undefined)?.merchant_authorization ?? "";
  assert.match(jws, /^[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+$/);
  const profile = await rest<{ signing_keys: { kid: string }[] }>("GET", `/s/${store.slug}/.well-known/ucp`);
  const [h, sig] = jws.split("..");
  const { kid } = JSON.parse(Buffer.from(h!, "base64url").toString()) as { kid: string };
  const jwk = profile.body.signing_keys.find((k) => k.kid === kid);
  assert.ok(jwk, "signed by a key in the store profile");
  const { ap2: _drop, ...unsigned } = body;
  const payload = Buffer.from(canonicalize(unsigned) ?? "").toString("base64url");
  await compactVerify(`${h}.${payload}.${sig}`, await importJWK(jwk as JWK, "ES256"));
};

let store: Store;
let key: string;
let mug: { id: string };
let agentKey: { kid: string; privateJwk: JWK };
const servers = await profileServer();
let receiver: WebhookReceiver;
let storeJwk: JsonWebKey & { kid: string };
/** Each version's agent profile (AP2 + its key, webhooks to the receiver at /platform-<version>). */
const profiles: Record<string, string> = {};
const profileHost = createServer((req, res) => {
  const version = (req.url ?? "").split("/")[1] ?? "";
  const base = `http://127.0.0.1:${(profileHost.address() as AddressInfo).port}`;
  const options = {
    mandateKey: servers.agentKey.publicJwk,
    webhookUrl: receiver.url(`/platform-${version}`),
  };
  const body =
    version === "2026-01-11"
      ? agentProfile0111(base, version, options)
      : version === "2026-01-23"
        ? agentProfile0123(base, version, options)
        : null;
  res.writeHead(body ? 200 : 404, { "content-type": "application/json", "cache-control": "max-age=300" });
  res.end(JSON.stringify(body));
});

before(async () => {
  await prepareTestDatabase();
  receiver = await startWebhookReceiver();
  receiver.setMode("ok");
  await new Promise<void>((resolve) => profileHost.listen(0, "127.0.0.1", resolve));
  profileHost.unref();
  for (const v of ["2026-01-11", "2026-01-23"]) {
    profiles[v] = `http://127.0.0.1:${(profileHost.address() as AddressInfo).port}/${v}/.well-known/ucp`;
  }
  agentKey = servers.agentKey as never;
  store = await seedStore({ taxRateBps: 1000 });
  mug = (await seedProduct(store, { title: "Mug", variants: [{ priceMinor: 2000, inventory: 50 }] }))
    .variants[0]!;
  await seedShippingRates(store, [{ code: "standard", title: "Standard", priceMinor: 500 }]);
  await seedDiscountCodes(store, [{ code: "SAVE10", kind: "percentage", value: 1000 }]);
  key = (await seedPlatformKey(["purchase:complete"])).key;
  const signingKey = await (await getDb()).storeSigningKey.findFirstOrThrow({ where: { storeId: store.id } });
  storeJwk = { ...(signingKey.publicJwk as JsonWebKey), kid: signingKey.kid };
  receiver.trust(storeJwk);
});
after(async () => {
  profileHost.close();
  await receiver.close();
  await closeTestDatabase();
});

/** A `Request-Signature` (RFC 7797 detached JWS, unencoded payload) verifies over the body bytes received. */
const assertRequestSignature = (signature: string | undefined, body: string) => {
  const [h, sig] = (signature ?? "").split("..");
  const header = JSON.parse(Buffer.from(h!, "base64url").toString()) as Record<string, unknown>;
  assert.deepEqual(header, { alg: "ES256", kid: storeJwk.kid, b64: false, crit: ["b64"] });
  const ok = verify(
    "sha256",
    Buffer.concat([Buffer.from(`${h}.`), Buffer.from(body)]),
    { key: createPublicKey({ key: storeJwk, format: "jwk" }), dsaEncoding: "ieee-p1363" },
    Buffer.from(sig!, "base64url"),
  );
  assert.ok(ok, "Request-Signature verifies with the store's published key");
};

const call = (version: Version, method: string, path: string, body?: unknown) =>
  rest<Json>(method, `/s/${store.slug}${path}`, {
    headers: {
      "x-api-key": key,
      "ucp-agent": `profile="${profiles[version]}"`,
      ...(method === "GET" ? {} : { "idempotency-key": randomUUID() }),
    },
    ...(body === undefined ? {} : { body }),
  });

const ADDRESS = {
  street_address: "1 Market St",
  address_locality: "San Francisco",
  address_region: "CA",
  postal_code: "94105",
  address_country: "US",
};

/** The create request as each version writes it (01-11: `currency` and `payment` required, `full_name`). */
const createBody = (version: Version) =>
  version === "2026-01-11"
    ? {
        currency: "USD",
        line_items: [{ item: { id: mug.id }, quantity: 2 }],
        buyer: { full_name: "Ada Lovelace", email: "ada@example.com" },
        fulfillment: { methods: [{ type: "shipping", destinations: [{ id: "dest_1", ...ADDRESS }] }] },
        discounts: { codes: ["SAVE10"] },
        payment: CARD_0111,
      }
    : {
        line_items: [{ item: { id: mug.id }, quantity: 2 }],
        buyer: { first_name: "Ada", last_name: "Lovelace", email: "ada@example.com" },
        fulfillment: { methods: [{ type: "shipping", destinations: [{ id: "dest_1", ...ADDRESS }] }] },
        discounts: { codes: ["SAVE10"] },
      };

/** The complete request: 01-11 `{payment_data, ap2}`, 01-23 the checkout's `payment` + `ap2`. */
const completeBody = (version: Version, mandate: string) => {
  const instrument = {
    id: "card-1",
    handler_id: "svc.card",
    type: "card",
    credential: { type: "stripe_token", token: "pm_card_visa" },
  };
  return version === "2026-01-11"
    ? {
        payment_data: { ...instrument, brand: "visa", last_digits: "4242" },
        risk_signals: {},
        ap2: { checkout_mandate: mandate },
      }
    : { payment: { instruments: [{ ...instrument, selected: true }] }, ap2: { checkout_mandate: mandate } };
};

for (const version of ["2026-01-11", "2026-01-23"] as const) {
  describe(`REST purchase at ${version}`, () => {
    test("discovery: supported_versions names the leaf profile, a valid profile of that version", async () => {
      const current = await rest<{ ucp: { supported_versions?: Record<string, string> } }>(
        "GET",
        `/s/${store.slug}/.well-known/ucp`,
      );
      assertUcpSchema("discovery/profile.json", current.body);
      const url = current.body.ucp.supported_versions?.[version];
      assert.ok(url, JSON.stringify(current.body.ucp.supported_versions));
      const leaf = await rest<Json>("GET", new URL(url).pathname);
      assert.equal(leaf.status, 200, leaf.text);
      assert.match(leaf.headers.get("cache-control") ?? "", /public, max-age=\d+/);
      assertUcpSchema("discovery/profile.json", leaf.body, version as SchemaVersion);
      const ucp = leaf.body.ucp as Json;
      assert.equal(ucp.version, version);
      assert.equal("supported_versions" in ucp, false);
      const text = JSON.stringify(leaf.body);
      assert.ok(text.includes(`/s/${store.slug}/mcp`), "the MCP endpoint is listed");
      assert.equal(text.includes("dev.ucp.shopping.cart"), false);
      assert.equal(text.includes("dev.ucp.shopping.catalog"), false);
      // every handler document a 2026-01-11 entry names resolves to JSON
      if (version === "2026-01-11") {
        const handlers = (leaf.body.payment as { handlers: Record<string, unknown>[] }).handlers;
        assert.ok(handlers.length > 0);
        for (const h of handlers) {
          for (const doc of [h.spec, h.config_schema, ...(h.instrument_schemas as string[])]) {
            const res = await rest("GET", new URL(doc as string).pathname);
            assert.equal(res.status, 200, `${String(doc)}: ${res.text}`);
          }
        }
      }
    });

    test("create → get → update → complete by card: every answer is a valid checkout of that version", async () => {
      assertOlderRequest(version, "create", createBody(version));
      const created = await call(version, "POST", "/checkout-sessions", createBody(version));
      assert.equal(created.status, 201, created.text);
      assertCheckout(version, created.body);
      const id = created.body.id as string;
      assert.deepEqual(created.body.buyer, {
        email: "ada@example.com",
        first_name: "Ada",
        last_name: "Lovelace",
      });
      const discount = (created.body.totals as { type: string; amount: number }[]).find(
        (t) => t.type === "discount",
      );
      assert.equal(discount?.amount, 400, "the discount is unsigned at this version");

      const read = await call(version, "GET", `/checkout-sessions/${id}`);
      assert.equal(read.status, 200, read.text);
      assertCheckout(version, read.body);

      // the older update is a whole checkout (PUT replaces): what was read, the shipping option chosen
      const update = wholeUpdate(version, read.body, "standard");
      assertOlderRequest(version, "update", update);
      const updated = await call(version, "PUT", `/checkout-sessions/${id}`, update);
      assert.equal(updated.status, 200, updated.text);
      assertCheckout(version, updated.body);
      assert.equal(updated.body.status, "ready_for_complete", JSON.stringify(updated.body.messages));
      await assertMerchantAuthorization(updated.body);

      // the agent signs the terms of the checkout as it received it, at its version
      const mandate = await signCheckoutMandate(mandateTerms(updated.body as never, store.slug), {
        privateJwk: agentKey.privateJwk,
        kid: agentKey.kid,
        exp: Math.floor(Date.now() / 1000) + 600,
      });
      assertOlderRequest(version, "complete", completeBody(version, mandate));
      const completed = await call(
        version,
        "POST",
        `/checkout-sessions/${id}/complete`,
        completeBody(version, mandate),
      );
      assert.equal(completed.status, 200, completed.text);
      assertCheckout(version, completed.body);
      assert.equal(completed.body.status, "completed", JSON.stringify(completed.body.messages));
      await assertMerchantAuthorization(completed.body);
      const order = completed.body.order as { id: string; permalink_url: string };
      assert.ok(order.id && order.permalink_url);
      const total = (completed.body.totals as { type: string; amount: number }[]).find(
        (t) => t.type === "total",
      );
      // 2 × 20.00 − 10 % + 5.00 shipping, + 10 % tax on both
      assert.equal(total?.amount, (4000 - 400 + 500) * 1.1);

      // the order webhook reaches the platform in its version's shape, signed both ways
      await webhookWorkerStep(new Date(), { storeId: store.id });
      const hooks = receiver.received.filter(
        (r) => r.path === `/platform-${version}` && r.body.includes(order.id),
      );
      assert.ok(
        hooks.length > 0,
        `a webhook for ${order.id}: ${JSON.stringify(receiver.received.map((r) => r.path))}`,
      );
      for (const hook of hooks) {
        const body = JSON.parse(hook.body) as Json;
        assertUcpSchema("shopping/order.json", body, version as SchemaVersion);
        assert.equal((body.ucp as { version: string }).version, version);
        assert.equal(body.event_id, hook.webhookId);
        assert.equal(body.created_time, new Date(Number(hook.timestamp) * 1000).toISOString());
        assert.equal("currency" in body, false);
        assert.ok(hook.verified, "the RFC 9421 signature still verifies");
        assertRequestSignature(hook.requestSignature, hook.body);
      }
    });

    test("cancel answers a canceled checkout of that version", async () => {
      const created = await call(version, "POST", "/checkout-sessions", createBody(version));
      assert.equal(created.status, 201, created.text);
      const canceled = await call(version, "POST", `/checkout-sessions/${created.body.id as string}/cancel`);
      assert.equal(canceled.status, 200, canceled.text);
      assertCheckout(version, canceled.body);
      assert.equal(canceled.body.status, "canceled");
    });

    test("a replay with the same Idempotency-Key answers the same bytes, in that version's shape", async () => {
      const headers = {
        "x-api-key": key,
        "ucp-agent": `profile="${profiles[version]}"`,
        "idempotency-key": randomUUID(),
      };
      const path = `/s/${store.slug}/checkout-sessions`;
      const first = await rest<Json>("POST", path, { headers, body: createBody(version) });
      const again = await rest<Json>("POST", path, { headers, body: createBody(version) });
      assert.equal(first.status, 201, first.text);
      assert.equal(again.status, 201, again.text);
      assert.equal(again.headers.get("idempotent-replayed"), "true");
      assert.equal(again.text, first.text);
      assertCheckout(version, again.body, false);
      const other = await rest<Json>("POST", path, {
        headers,
        body: { ...createBody(version), line_items: [{ item: { id: mug.id }, quantity: 3 }] },
      });
      assert.equal(other.status, 409, other.text);
      assert.equal(other.body.code, "idempotency_key_reused");
    });

    test("an unknown checkout → 404 in that version's error shape", async () => {
      const res = await call(version, "GET", "/checkout-sessions/chk_missing");
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.status, "requires_escalation");
      assert.equal(res.body.code, "not_found");
      assert.equal((res.body.ucp as { version: string }).version, version);
      for (const m of res.body.messages as unknown[]) {
        assertUcpSchema("shopping/types/message.json", m, version as SchemaVersion);
      }
    });

    test("cart and catalog calls → capabilities_incompatible (that version has none); nothing stored", async () => {
      const db = await getDb();
      const carts = await db.cart.count({ where: { storeId: store.id } });
      const cart = await call(version, "POST", "/carts", {
        line_items: [{ item: { id: mug.id }, quantity: 1 }],
      });
      assert.equal(cart.status, 200, cart.text);
      assert.equal(cart.body.code, "capabilities_incompatible");
      assert.match(cart.body.content as string, /exists from UCP 2026-04-08/);
      assert.equal(await db.cart.count({ where: { storeId: store.id } }), carts);
      const search = await call(version, "POST", "/catalog/search", { query: "mug" });
      assert.equal(search.body.code, "capabilities_incompatible", search.text);
    });
  });
}

test("a version not served has no leaf profile", async () => {
  assert.equal((await rest("GET", `/s/${store.slug}/.well-known/ucp/2026-02-15`)).status, 404);
  assert.equal((await rest("GET", "/ucp/handlers/sh.svc.nope/config.json")).status, 404);
});

describe("one checkout, one version (switching mid-checkout)", () => {
  test("a checkout created at 2026-01-11 refuses calls at 2026-01-23 and 2026-04-08 with 409 version_mismatch; nothing changes", async () => {
    const created = await call("2026-01-11", "POST", "/checkout-sessions", createBody("2026-01-11"));
    assert.equal(created.status, 201, created.text);
    const id = created.body.id as string;
    const db = await getDb();
    const before = await db.checkoutSession.findUniqueOrThrow({ where: { id } });
    assert.equal(before.ucpVersion, "2026-01-11");

    const update = await call("2026-01-23", "PUT", `/checkout-sessions/${id}`, {
      buyer: { email: "x@example.com" },
    });
    assert.equal(update.status, 409, update.text);
    assert.equal(update.body.code, "version_mismatch");
    assert.equal((update.body.ucp as { version: string }).version, "2026-01-23");
    assert.match(update.body.content as string, /created at UCP 2026-01-11/);

    const current = await rest<Json>("POST", `/s/${store.slug}/checkout-sessions/${id}/cancel`, {
      headers: {
        "x-api-key": key,
        "ucp-agent": `profile="${servers.url("signed")}"`,
        "idempotency-key": randomUUID(),
      },
    });
    assert.equal(current.status, 409, current.text);
    assert.equal((current.body.messages as { code: string }[])[0]!.code, "version_mismatch");

    const after = await db.checkoutSession.findUniqueOrThrow({ where: { id } });
    assert.equal(after.version, before.version);
    assert.equal(after.status, before.status);
    assert.deepEqual(after.buyer, before.buyer);
  });

  test("a 2026-04-08 checkout is refused at 2026-01-23, in that version's error shape", async () => {
    const created = await rest<Json>("POST", `/s/${store.slug}/checkout-sessions`, {
      headers: {
        "x-api-key": key,
        "ucp-agent": `profile="${servers.url("signed")}"`,
        "idempotency-key": randomUUID(),
      },
      body: { line_items: [{ item: { id: mug.id }, quantity: 1 }] },
    });
    assert.equal(created.status, 201, created.text);
    const read = await call("2026-01-23", "GET", `/checkout-sessions/${created.body.id as string}`);
    assert.equal(read.status, 409, read.text);
    assert.equal(read.body.status, "requires_escalation");
    assert.equal(read.body.code, "version_mismatch");
  });
});
