import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { after, before, describe, test } from "node:test";

import { createAccount, type AccountSummary } from "@/lib/accounts/accounts";
import { grantStoreRole } from "@/lib/accounts/store-access";
import {
  closeOwedBackAs,
  createMerchantKeyAs,
  merchantKeysPageOf,
  railsPageOf,
  revokeMerchantKeyAs,
  setCryptoSettingsAs,
  setStripeKeysAs,
} from "@/lib/accounts/store-rails";
import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import { MERCHANT_PERMISSIONS } from "@/lib/credentials/merchant-keys";
import type { Store } from "@/lib/generated/prisma/client";
import { MERCHANT_ROUTES } from "@/lib/merchant-api/routes";
import { stripeAccountOf } from "@/lib/payments/card/stripe-account";

import { seedPlatformKey, seedProduct, seedShippingRates, seedStore } from "../../factories";
import { callApp, readJson, rest } from "../../helpers/app-client";
import { completeCardOrder, newPlatformSigner, type PlatformSigner } from "../../helpers/paid-order";
import { runAdminCaptured } from "../../helpers/run-admin";
import {
  servePlatformProfile,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../../helpers/webhook-receiver";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The merchant REST API (/merchant/v1/stores/<slug>/…) with merchant keys of one store, and the admin's payment
// rails actions: happy paths over the same operations as the CLI, bad input refused with its field and nothing
// stored, a key of store A answered on store B exactly as an unknown store on every route, merchant and platform
// keys never interchangeable, owner-only changes (staff may look), and Stripe secrets sealed at rest.

type Order = {
  id: string;
  line_items: { id: string; quantity: { original: number; total: number; fulfilled: number } }[];
  adjustments?: { type: string; status: string; totals: { type: string; amount: number }[] }[];
  fulfillment?: { events?: { type: string; carrier?: string }[] };
};

let receiver: WebhookReceiver;
let closeProfile: () => void;
let profileUrl: string;
let signer: PlatformSigner;
let storeA: Store;
let storeB: Store;
let owner: AccountSummary;
let staff: AccountSummary;
let outsider: AccountSummary;
let keyA = "";
let keyB = "";
let platformKey = "";
let variantA = "";
let variantB = "";

const account = (name: string) =>
  createAccount({
    name,
    email: `${name}-${process.pid}-${Date.now()}-${randomUUID().slice(0, 6)}@example.com`,
    password: "long enough passphrase",
  });

before(async () => {
  await prepareTestDatabase();
  receiver = await startWebhookReceiver();
  receiver.setMode("ok");
  signer = newPlatformSigner();
  const profile = await servePlatformProfile(receiver.url("/platform"), { signingKeys: [signer.publicJwk] });
  profileUrl = profile.url;
  closeProfile = profile.close;
  [storeA, storeB] = [await seedStore(), await seedStore()];
  [owner, staff, outsider] = [await account("owner"), await account("staff"), await account("outsider")];
  await grantStoreRole(owner.id, storeA.id, "owner");
  await grantStoreRole(owner.id, storeB.id, "owner");
  await grantStoreRole(staff.id, storeA.id, "staff");
  const all = MERCHANT_PERMISSIONS;
  keyA = (await createMerchantKeyAs(owner, storeA.slug, { name: "A script", permissions: [...all] })).key;
  keyB = (await createMerchantKeyAs(owner, storeB.slug, { name: "B script", permissions: [...all] })).key;
  platformKey = (await seedPlatformKey(["orders:read", "purchase:complete", "orders:request"])).key;
  for (const store of [storeA, storeB])
    await seedShippingRates(store, [{ code: "standard", priceMinor: 500 }]);
  variantA = (await seedProduct(storeA, { variants: [{ priceMinor: 2500, inventory: 100 }] })).variants[0]!
    .id;
  variantB = (await seedProduct(storeB, { variants: [{ priceMinor: 2500, inventory: 100 }] })).variants[0]!
    .id;
});
after(async () => {
  closeProfile();
  await receiver.close();
  await closeTestDatabase();
});

const paidOrder = (store: Store, variantId: string) =>
  completeCardOrder(store, { apiKey: platformKey, profileUrl, signer, lines: [{ variantId, quantity: 2 }] });

const api = async <T = Record<string, unknown>>(
  method: string,
  store: string,
  path: string,
  { key = keyA, body }: { key?: string | null; body?: unknown } = {},
) =>
  readJson<T>(
    await callApp(method, `/merchant/v1/stores/${store}${path}`, {
      headers: key === null ? {} : { "x-api-key": key },
      ...(body === undefined ? {} : { body }),
    }),
  );

const codeOf = (res: { body: unknown }) =>
  (res.body as { messages?: { code?: string; path?: string }[] }).messages?.[0];

const refusal = (code: string) => (error: unknown) => {
  assert.ok(error instanceof AppError, String(error));
  assert.equal(error.code, code, error.message);
  return true;
};

const storeRow = async (id: string) => (await getDb()).store.findUniqueOrThrow({ where: { id } });
const ADDRESS = `0x${"ab".repeat(32)}`;

describe("merchant REST API", () => {
  test("happy paths: settings, rails, webhook, and an order read, fulfilled, refunded in part, another canceled", async () => {
    const settings = await api("GET", storeA.slug, "/settings");
    assert.equal(settings.status, 200, settings.text);
    assert.equal(settings.body.slug, storeA.slug);
    assert.equal(settings.body.currency, "USD");

    const crypto = await api("PUT", storeA.slug, "/payments/crypto", {
      body: { enabled: true, accepted_coins: ["USDC", "SUI"], payout_address: ADDRESS, network: "testnet" },
    });
    assert.equal(crypto.status, 200, crypto.text);
    assert.deepEqual(crypto.body.accepted_coins, ["USDC", "SUI"]);
    const rails = await api<{ crypto: { enabled: boolean; payout_address: string } }>(
      "GET",
      storeA.slug,
      "/payments",
    );
    assert.equal(rails.body.crypto.enabled, true);
    assert.equal(rails.body.crypto.payout_address, ADDRESS);

    const hook = await api("PUT", storeA.slug, "/webhook", {
      body: { webhook_url: receiver.url("/merchant") },
    });
    assert.equal(hook.status, 200, hook.text);
    assert.equal((await api("GET", storeA.slug, "/webhook")).body.webhook_url, receiver.url("/merchant"));
    assert.equal(
      (await api("PUT", storeA.slug, "/webhook", { body: { webhook_url: "" } })).body.webhook_url,
      null,
    );

    const { orderId, total } = await paidOrder(storeA, variantA);
    const read = await api<Order>("GET", storeA.slug, `/orders/${orderId}`);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.body.id, orderId);
    const shipped = await api<Order>("POST", storeA.slug, `/orders/${orderId}/fulfilments`, {
      body: { type: "shipped", carrier: "UPS", tracking_number: "1Z999" },
    });
    assert.equal(shipped.status, 201, shipped.text);
    assert.ok(shipped.body.line_items.every((l) => l.quantity.fulfilled === l.quantity.total));
    const refunded = await api<Order>("POST", storeA.slug, `/orders/${orderId}/refunds`, {
      body: { amount: 700, reason: "damaged box" },
    });
    assert.equal(refunded.status, 201, refunded.text);
    const refund = refunded.body.adjustments?.find((a) => a.type === "refund");
    assert.ok(refund, refunded.text);
    assert.equal(refund.totals.find((t) => t.type === "total")?.amount, -700);
    assert.ok(700 < total);

    const second = await paidOrder(storeA, variantA);
    type OrderList = { orders: { id: string; total: number; status: string }[]; total_count: number };
    const listed = await api<OrderList>("GET", storeA.slug, "/orders");
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      listed.body.orders.slice(0, 2).map((o) => o.id),
      [second.orderId, orderId],
    );
    assert.equal(listed.body.orders[1]!.total, total);
    const found = await api<OrderList>("GET", storeA.slug, `/orders?q=${orderId}`);
    assert.deepEqual(
      found.body.orders.map((o) => o.id),
      [orderId],
    );
    const badFilter = await api("GET", storeA.slug, "/orders?status=lost");
    assert.equal(badFilter.status, 400, badFilter.text);
    assert.match(badFilter.text, /"path":"\$\.status"/);
    const canceled = await api<Order & { status?: string }>(
      "POST",
      storeA.slug,
      `/orders/${second.orderId}/cancel`,
      {
        body: { reason: "out of stock" },
      },
    );
    assert.equal(canceled.status, 200, canceled.text);
    assert.ok(
      canceled.body.line_items.every((l) => l.quantity.total === 0),
      canceled.text,
    );
  });

  test("agents' requests: the policy set and read back (bad values change nothing), a waiting request approved and another declined over the API", async () => {
    const bad = await api("PATCH", storeA.slug, "/settings", { body: { agent_cancellations: "sometimes" } });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(codeOf(bad)?.path, "$.agent_cancellations");
    const negative = await api("PATCH", storeA.slug, "/settings", { body: { agent_refund_auto_minor: -1 } });
    assert.equal(negative.status, 400, negative.text);
    assert.equal((await storeRow(storeA.id)).agentCancellations, "automatic", "refusals changed nothing");
    const set = await api("PATCH", storeA.slug, "/settings", {
      body: { agent_cancellations: "review", agent_refund_auto_minor: 0 },
    });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.agent_cancellations, "review");
    assert.equal((await api("GET", storeA.slug, "/settings")).body.agent_refund_auto_minor, 0);

    // saved addresses: off by default; a non-boolean refused; on, then off again forgets what was kept
    assert.equal((await api("GET", storeA.slug, "/settings")).body.remember_addresses, false);
    const notBoolean = await api("PATCH", storeA.slug, "/settings", { body: { remember_addresses: "yes" } });
    assert.equal(notBoolean.status, 400, notBoolean.text);
    assert.equal(codeOf(notBoolean)?.path, "$.remember_addresses");
    const on = await api("PATCH", storeA.slug, "/settings", { body: { remember_addresses: true } });
    assert.equal(on.body.remember_addresses, true, on.text);
    const db = await getDb();
    const saved = (storeId: string, principalId: string, email: string) => ({
      id: `addr_${randomUUID()}`,
      storeId,
      principalId,
      email,
      fingerprint: randomUUID(),
      address: { street_address: "1 Main St", address_country: "US" },
    });
    await db.savedAddress.createMany({
      data: [
        saved(storeA.id, "key:one", "ada@example.com"),
        saved(storeA.id, "key:two", "ada@example.com"),
        saved(storeA.id, "key:one", "grace@example.com"),
        saved(storeB.id, "key:one", "ada@example.com"),
      ],
    });
    // a buyer asks to be forgotten: every agent's addresses for that e-mail here, and nothing else
    const notEmail = await api("POST", storeA.slug, "/saved-addresses/forget", { body: { email: "ada@" } });
    assert.equal(notEmail.status, 400, notEmail.text);
    assert.equal(codeOf(notEmail)?.path, "$.email");
    assert.equal(
      await db.savedAddress.count({ where: { storeId: storeA.id } }),
      3,
      "the refusal deleted nothing",
    );
    const forgot = await api("POST", storeA.slug, "/saved-addresses/forget", {
      body: { email: " ADA@example.com " },
    });
    assert.equal(forgot.status, 200, forgot.text);
    assert.deepEqual(forgot.body, { email: "ada@example.com", forgotten: 2 });
    const left = await db.savedAddress.findMany({ where: { storeId: { in: [storeA.id, storeB.id] } } });
    assert.deepEqual(left.map((r) => `${r.storeId === storeA.id ? "A" : "B"} ${r.email}`).sort(), [
      "A grace@example.com",
      "B ada@example.com",
    ]);
    const none = await api("POST", storeA.slug, "/saved-addresses/forget", {
      body: { email: "ada@example.com" },
    });
    assert.deepEqual(none.body, { email: "ada@example.com", forgotten: 0 });
    const off = await api("PATCH", storeA.slug, "/settings", { body: { remember_addresses: false } });
    assert.equal(off.body.remember_addresses, false, off.text);
    assert.equal(await db.savedAddress.count({ where: { storeId: storeA.id } }), 0);

    type WithRequests = Order & { requests?: { id: string; status: string; decline_reason?: string }[] };
    const ask = async (orderId: string) => {
      const asked = await readJson<WithRequests>(
        await callApp("POST", `/s/${storeA.slug}/orders/${orderId}/cancellation-requests`, {
          headers: {
            "x-api-key": platformKey,
            "ucp-agent": `profile="${profileUrl}"`,
            "idempotency-key": randomUUID(),
            "request-id": randomUUID(),
          },
          body: { reason: "Ordered the wrong size" },
        }),
      );
      assert.equal(asked.status, 201, asked.text);
      return asked.body.requests![0]!.id;
    };
    const first = await paidOrder(storeA, variantA);
    const approved = await api<WithRequests>(
      "POST",
      storeA.slug,
      `/order-requests/${await ask(first.orderId)}/approve`,
    );
    assert.equal(approved.status, 200, approved.text);
    assert.equal(approved.body.requests?.[0]?.status, "approved");
    assert.ok(approved.body.line_items.every((l) => l.quantity.total === 0));

    const second = await paidOrder(storeA, variantA);
    const requestId = await ask(second.orderId);
    const noReason = await api("POST", storeA.slug, `/order-requests/${requestId}/decline`, { body: {} });
    assert.equal(noReason.status, 400, noReason.text);
    const otherStore = await api("POST", storeB.slug, `/order-requests/${requestId}/decline`, {
      key: keyB,
      body: { reason: "No" },
    });
    assert.equal(codeOf(otherStore)?.code, "not_found", otherStore.text);
    const declined = await api<WithRequests>("POST", storeA.slug, `/order-requests/${requestId}/decline`, {
      body: { reason: "It has already left the warehouse" },
    });
    assert.equal(declined.status, 200, declined.text);
    assert.equal(declined.body.requests?.[0]?.decline_reason, "It has already left the warehouse");
    const again = await api("POST", storeA.slug, `/order-requests/${requestId}/approve`);
    assert.equal(again.status, 409, again.text);
    await api("PATCH", storeA.slug, "/settings", { body: { agent_cancellations: "automatic" } });
  });

  test("a refund retried with its Idempotency-Key is answered again, never made twice; another body with it is refused", async () => {
    const { orderId } = await paidOrder(storeA, variantA);
    const refund = (key: string, amount: number) =>
      callApp("POST", `/merchant/v1/stores/${storeA.slug}/orders/${orderId}/refunds`, {
        headers: { "x-api-key": keyA, "idempotency-key": key },
        body: { amount, reason: "retried" },
      });
    const key = randomUUID();
    const first = await refund(key, 300);
    assert.equal(first.status, 201, await first.clone().text());
    const again = await refund(key, 300);
    assert.equal(again.status, 201);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.equal(await again.text(), await first.text());
    const reused = await readJson(await refund(key, 400));
    assert.equal(reused.status, 409, reused.text);
    assert.equal(codeOf(reused)?.code, "idempotency_key_reused");
    const refunds = await (await getDb()).orderAdjustment.findMany({ where: { orderId, type: "refund" } });
    assert.deepEqual(
      refunds.map((r) => r.refundMinor),
      [300],
    );
    // without a key, each call is a refund of its own (the merchant asked twice)
    const plain = await api("POST", storeA.slug, `/orders/${orderId}/refunds`, { body: { amount: 100 } });
    assert.equal(plain.status, 201, plain.text);
    assert.equal(await (await getDb()).orderAdjustment.count({ where: { orderId, type: "refund" } }), 2);
  });

  test("bad input is refused with its field and changes nothing", async () => {
    const before = await storeRow(storeA.id);
    const cases: [string, string, unknown, string, string | undefined][] = [
      ["PUT", "/payments/crypto", { accepted_coins: ["NOPE"] }, "unsupported_coin", "$.accepted_coins[0]"],
      ["PUT", "/payments/crypto", { accepted_coins: [] }, "invalid_request", "$.accepted_coins"],
      ["PUT", "/payments/crypto", { payout_address: "0xnot-hex" }, "invalid_request", "$.payout_address"],
      ["PUT", "/payments/crypto", { enabled: "yes" }, "invalid_request", "$.enabled"],
      ["PUT", "/payments/crypto", { surprise: 1 }, "invalid_request", undefined],
      ["PUT", "/webhook", { webhook_url: "not a url" }, "invalid_request", "$.webhook_url"],
      ["PUT", "/webhook", {}, "invalid_request", "$.webhook_url"],
    ];
    for (const [method, path, body, code, at] of cases) {
      const res = await api(method, storeA.slug, path, { body });
      assert.ok(res.status >= 400 && res.status < 500, `${path} ${JSON.stringify(body)}: ${res.text}`);
      const message = codeOf(res);
      assert.equal(message?.code, code, res.text);
      if (at) assert.equal(message?.path, at, res.text);
    }
    const malformed = readJson(
      await callApp("PUT", `/merchant/v1/stores/${storeA.slug}/webhook`, {
        headers: { "x-api-key": keyA, "content-type": "application/json" },
        rawBody: "{oops",
      }),
    );
    assert.equal(codeOf(await malformed)?.code, "malformed_json");
    const after = await storeRow(storeA.id);
    assert.deepEqual(
      [after.acceptedCoins, after.suiRecipient, after.cryptoEnabled, after.webhookUrl],
      [before.acceptedCoins, before.suiRecipient, before.cryptoEnabled, before.webhookUrl],
    );

    const { orderId } = await paidOrder(storeA, variantA);
    const snapshot = await (
      await getDb()
    ).order.findUniqueOrThrow({
      where: { id: orderId },
      include: { adjustments: true, lineItems: true },
    });
    const orderCases: [string, unknown, string][] = [
      [`/orders/${orderId}/refunds`, { amount: 1.5 }, "$.amount"],
      [`/orders/${orderId}/refunds`, { amount: "100" }, "$.amount"],
      [`/orders/${orderId}/refunds`, { amount: 0 }, "$.amount"],
      [`/orders/${orderId}/refunds`, { amount: 10_000_000 }, ""],
      [`/orders/${orderId}/fulfilments`, { type: "Shipped!" }, "$.type"],
      [`/orders/${orderId}/fulfilments`, { type: "shipped", tracking_url: "http://x" }, "$.tracking_url"],
      [`/orders/${orderId}/fulfilments`, { type: "shipped", line_items: [{ id: "nope", quantity: 1 }] }, ""],
      [`/orders/${orderId}/cancel`, { reason: "" }, "$.reason"],
      [`/orders/ord_missing/refunds`, {}, ""],
    ];
    for (const [path, body, at] of orderCases) {
      const res = await api("POST", storeA.slug, path, { body });
      assert.ok(res.status >= 400 && res.status < 500, `${path} ${JSON.stringify(body)}: ${res.text}`);
      if (at) assert.equal(codeOf(res)?.path, at, res.text);
    }
    const unchanged = await (
      await getDb()
    ).order.findUniqueOrThrow({
      where: { id: orderId },
      include: { adjustments: true, lineItems: true },
    });
    assert.deepEqual(unchanged, snapshot, "no refused call touched the order");
    assert.equal((await api("GET", storeA.slug, "/nowhere")).status, 404);
    const wrongMethod = await api("DELETE", storeA.slug, "/webhook");
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.headers.get("allow"), "GET, PUT");
  });

  test("a key of store A on store B: answered as an unknown store on every route, and nothing changes in B", async () => {
    const { orderId } = await paidOrder(storeB, variantB);
    const db = await getDb();
    const owed = await db.cryptoOwedBack.create({
      data: {
        id: newId("owedBack"),
        storeId: storeB.id,
        checkoutId: `chk_${randomUUID()}`,
        buyerAddress: ADDRESS,
        paymentDigest: randomBytes(32).toString("base64url"),
        amounts: [{ coin_type: "0x2::sui::SUI", symbol: "SUI", decimals: 9, amount: "1000" }],
        reason: "over-payment",
      },
    });
    const beforeStore = await storeRow(storeB.id);
    const beforeOrder = await db.order.findUniqueOrThrow({
      where: { id: orderId },
      include: { adjustments: true },
    });
    const unknown = await api("GET", "no-such-store-here", "/settings");
    assert.equal(unknown.status, 404);
    assert.equal(codeOf(unknown)?.code, "store_not_found");
    const bodies: Record<string, unknown> = {
      merchant_set_crypto_settings: { enabled: false },
      merchant_set_webhook: { webhook_url: "" },
      merchant_fulfil_order: { type: "shipped" },
      merchant_refund_order: { amount: 100 },
      merchant_close_owed_back: { refund_digest: "x" },
      merchant_update_store: { name: "Taken over" },
    };
    for (const route of MERCHANT_ROUTES) {
      const path = route.path.replace("{id}", route.path.startsWith("/owed-back") ? owed.id : orderId);
      const res = await api(route.method, storeB.slug, path, { key: keyA, body: bodies[route.name] });
      assert.equal(res.status, unknown.status, `${route.name}: ${res.text}`);
      assert.equal(codeOf(res)?.code, "store_not_found", route.name);
      assert.equal(codeOf(res)?.path, codeOf(unknown)?.path, route.name);
      // the same call with B's own key reaches the route (so the refusal above was the store check)
      // (the catalog routes' ids of B are checked in merchant-catalog.test.ts)
      if (route.method === "GET" && (!route.path.includes("{id}") || route.path.startsWith("/orders"))) {
        assert.equal((await api(route.method, storeB.slug, path, { key: keyB })).status, 200, route.name);
      }
    }
    assert.deepEqual(await storeRow(storeB.id), beforeStore);
    assert.deepEqual(
      await db.order.findUniqueOrThrow({ where: { id: orderId }, include: { adjustments: true } }),
      beforeOrder,
    );
    assert.equal((await db.cryptoOwedBack.findUniqueOrThrow({ where: { id: owed.id } })).status, "open");
  });

  test("merchant and platform keys are not interchangeable; revoked keys and missing permissions are refused", async () => {
    const { orderId } = await paidOrder(storeA, variantA);
    const shopping = await rest("GET", `/s/${storeA.slug}/orders/${orderId}`, {
      headers: { "x-api-key": keyA },
    });
    assert.equal(shopping.status, 401, shopping.text);
    assert.equal(codeOf(shopping)?.code, "invalid_api_key");
    const merchantWithPlatform = await api("GET", storeA.slug, `/orders/${orderId}`, { key: platformKey });
    assert.equal(merchantWithPlatform.status, 401);
    assert.equal(codeOf(merchantWithPlatform)?.code, "invalid_merchant_key");
    assert.equal(
      codeOf(await api("GET", storeA.slug, "/settings", { key: null }))?.code,
      "invalid_merchant_key",
    );

    const readOnly = await createMerchantKeyAs(owner, storeA.slug, {
      name: "ro",
      permissions: ["orders:read"],
    });
    assert.equal((await api("GET", storeA.slug, `/orders/${orderId}`, { key: readOnly.key })).status, 200);
    const denied = await api("POST", storeA.slug, `/orders/${orderId}/refunds`, {
      key: readOnly.key,
      body: { amount: 100 },
    });
    assert.equal(denied.status, 403);
    assert.equal(codeOf(denied)?.code, "insufficient_scope");
    const listed = (await merchantKeysPageOf(owner, storeA.slug)).keys.find((k) => k.id === readOnly.id);
    assert.ok(listed?.lastUsedAt, "last used is recorded");
    await revokeMerchantKeyAs(owner, storeA.slug, readOnly.id);
    const revoked = await api("GET", storeA.slug, `/orders/${orderId}`, { key: readOnly.key });
    assert.equal(revoked.status, 401);
    assert.equal(codeOf(revoked)?.code, "invalid_merchant_key");
    // another store's key id is not this store's to revoke
    const bKey = (await merchantKeysPageOf(owner, storeB.slug)).keys[0]!;
    await assert.rejects(revokeMerchantKeyAs(owner, storeA.slug, bKey.id), refusal("not_found"));
    assert.equal((await api("GET", storeB.slug, "/settings", { key: keyB })).status, 200);
  });
});

describe("payment rails in the admin", () => {
  test("owner changes, staff only looks, an outsider does not learn the store exists", async () => {
    assert.equal((await railsPageOf(staff, storeA.slug)).role, "staff");
    await assert.rejects(railsPageOf(outsider, storeA.slug), refusal("store_not_found"));
    const before = await storeRow(storeA.id);
    await assert.rejects(
      setStripeKeysAs(staff, storeA.slug, { secret_key: "sk_live_staffwasHere123" }),
      refusal("owner_required"),
    );
    await assert.rejects(
      setCryptoSettingsAs(staff, storeA.slug, { enabled: false }),
      refusal("owner_required"),
    );
    await assert.rejects(
      closeOwedBackAs(staff, storeA.slug, { id: "owe_x", refund_digest: "x" }),
      refusal("owner_required"),
    );
    await assert.rejects(
      createMerchantKeyAs(staff, storeA.slug, { name: "x", permissions: ["orders:read"] }),
      refusal("owner_required"),
    );
    await assert.rejects(
      setStripeKeysAs(outsider, storeA.slug, { secret_key: "sk_live_outsider12345" }),
      refusal("store_not_found"),
    );
    assert.deepEqual(await storeRow(storeA.id), before, "no refused action changed the store");

    await assert.rejects(
      setStripeKeysAs(owner, storeA.slug, { secret_key: "pk_live_wrongkind1234" }),
      (e: unknown) => e instanceof AppError && e.code === "invalid_request" && e.path === "$.secret_key",
    );
    assert.equal((await storeRow(storeA.id)).stripeSecretKey, before.stripeSecretKey);
  });

  test("live Stripe keys are sealed at rest, shown as their last four, read decrypted by card payments, re-sealed by rotation", async () => {
    const store = await seedStore({ mode: "live" });
    await grantStoreRole(owner.id, store.id, "owner");
    const secret = `sk_live_${randomBytes(12).toString("hex")}`;
    await setStripeKeysAs(owner, store.slug, {
      secret_key: secret,
      publishable_key: "pk_live_publicKey1234",
      webhook_secret: "whsec_signingSecret99",
    });
    const row = await storeRow(store.id);
    assert.match(row.stripeSecretKey ?? "", /^enc:v1:/);
    assert.ok(!row.stripeSecretKey!.includes(secret.slice(8)), "the secret is not stored in clear");
    assert.match(row.stripeWebhookSecret ?? "", /^enc:v1:/);
    const { rails } = await railsPageOf(owner, store.slug);
    assert.equal(rails.card.stripe_secret_key_last4, secret.slice(-4));
    assert.equal(rails.card.stripe_webhook_secret_last4, "et99");
    assert.equal(rails.card.stripe_publishable_key, "pk_live_publicKey1234");
    assert.ok(!JSON.stringify(rails).includes(secret));
    assert.deepEqual(stripeAccountOf(row), {
      kind: "stripe",
      secretKey: secret,
      webhookSecret: "whsec_signingSecret99",
      livemode: true,
    });
    // a blank secret keeps the stored one
    await setStripeKeysAs(owner, store.slug, { secret_key: "", publishable_key: "pk_live_otherKey5678" });
    assert.equal((await storeRow(store.id)).stripeSecretKey, row.stripeSecretKey);
    // a sealed value moved to another store's row does not open there
    const other = await seedStore({ mode: "live" });
    const moved = await (
      await getDb()
    ).store.update({
      where: { id: other.id },
      data: { stripeSecretKey: row.stripeSecretKey },
    });
    assert.throws(() => stripeAccountOf(moved));
    await (await getDb()).store.update({ where: { id: other.id }, data: { stripeSecretKey: null } });

    // a row from before encryption (plain text) is read as it is, then sealed by the rotation command
    const legacy = `sk_live_${randomBytes(12).toString("hex")}`;
    await (await getDb()).store.update({ where: { id: store.id }, data: { stripeSecretKey: legacy } });
    const rotated = await runAdminCaptured("rotate-store-secrets", "--json");
    assert.equal(rotated.code, 0, rotated.err);
    assert.ok((JSON.parse(rotated.out) as { resealed: number }).resealed >= 1, rotated.out);
    const after = await storeRow(store.id);
    assert.match(after.stripeSecretKey ?? "", /^enc:v1:/);
    assert.equal((stripeAccountOf(after) as { secretKey: string }).secretKey, legacy);
    const again = await runAdminCaptured("rotate-store-secrets", "--json");
    assert.equal((JSON.parse(again.out) as { resealed: number }).resealed, 0, "nothing left to re-seal");
  });

  test("money owed back: listed to the merchant, a bad digest or another store's record refused, nothing closed", async () => {
    const db = await getDb();
    const mine = await db.cryptoOwedBack.create({
      data: {
        id: newId("owedBack"),
        storeId: storeA.id,
        checkoutId: `chk_${randomUUID()}`,
        buyerAddress: ADDRESS,
        paymentDigest: randomBytes(32).toString("base64url"),
        amounts: [{ coin_type: "0x2::sui::SUI", symbol: "SUI", decimals: 9, amount: "2500000000" }],
        reason: "late payment",
      },
    });
    const listed = await api<{ owed_back: { id: string; amounts: { amount: string }[] }[] }>(
      "GET",
      storeA.slug,
      "/owed-back",
    );
    assert.equal(listed.status, 200, listed.text);
    const row = listed.body.owed_back.find((r) => r.id === mine.id);
    assert.equal(row?.amounts[0]?.amount, "2500000000");
    assert.ok((await railsPageOf(staff, storeA.slug)).owedBack.some((r) => r.id === mine.id));

    const bad = await api("POST", storeA.slug, `/owed-back/${mine.id}/close`, {
      body: { refund_digest: "nope" },
    });
    assert.equal(bad.status, 400, bad.text);
    assert.equal(codeOf(bad)?.path, "$.refund_digest");
    await assert.rejects(
      closeOwedBackAs(owner, storeA.slug, { id: mine.id, refund_digest: "" }),
      refusal("invalid_request"),
    );
    await assert.rejects(
      closeOwedBackAs(owner, storeB.slug, { id: mine.id, refund_digest: "nope" }),
      refusal("not_found"),
    );
    assert.equal((await db.cryptoOwedBack.findUniqueOrThrow({ where: { id: mine.id } })).status, "open");
  });
});
