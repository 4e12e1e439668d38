import "./production-env";

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { hostname } from "node:os";
import { after, before, describe, test } from "node:test";

import { getDb } from "@/lib/config/db";
import { allowsPrivateOutbound } from "@/lib/config/env";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";
import { resolveCimdClient } from "@/lib/oauth/cimd";
import { setStoreWebhookUrl } from "@/lib/stores/set-webhook-url";
import { appendOrderEvent } from "@/lib/webhooks/append-order-event";
import { webhookWorkerStep } from "@/lib/webhooks/worker";

import { seedPlatformKey, seedProduct, seedStore } from "../../factories";
import { rest, type JsonResponse } from "../../helpers/app-client";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// A production deployment (NODE_ENV=production, OUTBOUND_ALLOW_PRIVATE unset) never connects to loopback, whatever
// the store's mode: agent profiles named by anonymous callers and by platforms, CIMD documents, and webhook URLs
// (the store's and a platform's). A local TCP server stands where an internal service would be and counts the
// connections it accepts: every refusal must leave it at zero, and no answer may carry the socket's own text.

const accepted: Socket[] = [];
const internal = createServer((socket) => {
  accepted.push(socket);
  socket.end("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}");
});
let port = 0;

// Every spelling of this host the URL parser takes, and names that resolve to it.
const spellings = () => [
  `127.0.0.1:${port}`,
  `2130706433:${port}`,
  `0177.0.0.1:${port}`,
  `0x7f.1:${port}`,
  `127.1:${port}`,
  `[::1]:${port}`,
  `[::ffff:127.0.0.1]:${port}`,
  `[::ffff:7f00:1]:${port}`,
  `0.0.0.0:${port}`,
  `localhost:${port}`,
];
const SOCKET_TEXT = /ECONN|ENOTFOUND|EAI_AGAIN|hang up|getaddrinfo|socket|EPIPE|ETIMEDOUT/i;

let testStore: Store;
let key: string;
let variantId: string;

before(async () => {
  await new Promise<void>((resolve) => internal.listen(0, "127.0.0.1", resolve));
  port = (internal.address() as AddressInfo).port;
  await prepareTestDatabase();
  testStore = await seedStore(); // a test-mode store: private targets were allowed for it before, whatever the deployment
  assert.equal(testStore.mode, "test");
  variantId = (await seedProduct(testStore)).variants[0]!.id;
  key = (await seedPlatformKey()).key;
});
after(async () => {
  internal.close();
  for (const socket of accepted) socket.destroy();
  await closeTestDatabase();
});

const codeOf = (res: JsonResponse<unknown>) => {
  const body = res.body as { code?: string; messages?: { code: string }[] };
  return body.messages?.[0]?.code ?? body.code;
};

describe("production: no connection to loopback, whatever the spelling", () => {
  test("the deployment refuses private targets", () => {
    assert.equal(allowsPrivateOutbound(), false);
  });

  test("a catalog search naming a loopback profile: anonymous → never fetched (served, or refused on the URL alone); with a key → refused; never a connection, never socket text", async () => {
    for (const host of spellings()) {
      for (const scheme of ["http", "https"]) {
        const profile = `profile="${scheme}://${host}/.well-known/ucp"`;
        // an anonymous caller never makes the service fetch the URL it names (the request edge's rule)
        const anonymous = await rest("POST", `/s/${testStore.slug}/catalog/search`, {
          headers: { "ucp-agent": profile },
          body: { query: "boots" },
        });
        // served (200), or refused from the URL's syntax alone (a production deployment wants https)
        assert.ok(
          anonymous.status === 200 || codeOf(anonymous) === "invalid_profile_url",
          `${scheme}://${host}: ${anonymous.text}`,
        );
        assert.doesNotMatch(anonymous.text, SOCKET_TEXT, anonymous.text);
        const keyed = await rest("POST", `/s/${testStore.slug}/catalog/search`, {
          headers: { "ucp-agent": profile, "x-api-key": key },
          body: { query: "boots" },
        });
        assert.ok(
          keyed.status >= 400 && keyed.status < 500,
          `${scheme}://${host}: ${keyed.status} ${keyed.text}`,
        );
        assert.equal(codeOf(keyed), "invalid_profile_url", `${scheme}://${host}: ${keyed.text}`);
        assert.doesNotMatch(keyed.text, SOCKET_TEXT, keyed.text);
      }
    }
    assert.equal(accepted.length, 0, "the service connected to the internal server");
  });

  test("the host's own name → refused (or unresolvable here), no connection, no socket text", async () => {
    const res = await rest("POST", `/s/${testStore.slug}/catalog/search`, {
      headers: { "ucp-agent": `profile="https://${hostname()}:${port}/.well-known/ucp"`, "x-api-key": key },
      body: { query: "boots" },
    });
    assert.ok(["invalid_profile_url", "profile_unreachable"].includes(codeOf(res) ?? ""), res.text);
    assert.doesNotMatch(res.text, SOCKET_TEXT, res.text);
    assert.equal(accepted.length, 0);
  });

  test("a platform's cart naming a loopback profile → refused, nothing stored, no connection", async () => {
    const db = await getDb();
    const carts = await db.cart.count({ where: { storeId: testStore.id } });
    for (const host of spellings()) {
      const res = await rest("POST", `/s/${testStore.slug}/carts`, {
        headers: {
          "x-api-key": key,
          "idempotency-key": randomUUID(),
          "ucp-agent": `profile="http://${host}/.well-known/ucp"`,
        },
        body: { line_items: [{ item: { id: variantId }, quantity: 1 }] },
      });
      assert.equal(codeOf(res), "invalid_profile_url", `${host}: ${res.text}`);
      assert.doesNotMatch(res.text, SOCKET_TEXT, res.text);
    }
    assert.equal(await db.cart.count({ where: { storeId: testStore.id } }), carts);
    assert.equal(accepted.length, 0);
  });

  test("a CIMD client id on loopback (OAuth test mode) is not fetched", async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]) {
      await assert.rejects(
        resolveCimdClient(`http://${host}/client.json`, { testMode: true }),
        (e: unknown) => {
          assert.ok(e instanceof AppError);
          assert.equal(e.code, "invalid_client");
          assert.doesNotMatch(e.message, SOCKET_TEXT);
          return true;
        },
      );
    }
    assert.equal(accepted.length, 0);
  });

  test("a test store's webhook URL on loopback: refused when set, and a stored one is never posted to", async () => {
    await assert.rejects(setStoreWebhookUrl(testStore.slug, `http://127.0.0.1:${port}/hooks`), AppError);
    await assert.rejects(setStoreWebhookUrl(testStore.slug, `https://localhost:${port}/hooks`), AppError);
    const db = await getDb();
    // a URL stored before the deployment went to production, and a platform whose profile is on loopback
    const store = await seedStore();
    await db.store.update({ where: { id: store.id }, data: { webhookUrl: `https://0x7f.1:${port}/hooks` } });
    const checkoutId = newId("checkout");
    await db.checkoutSession.create({
      data: {
        id: checkoutId,
        storeId: store.id,
        principalId: "key:test",
        status: "completed",
        currency: store.currency,
        agentProfile: `https://[::ffff:127.0.0.1]:${port}/.well-known/ucp`,
        expiresAt: new Date(Date.now() + 3600_000),
      },
    });
    const order = await db.order.create({
      data: {
        id: newId("order"),
        storeId: store.id,
        checkoutId,
        principalId: "key:test",
        currency: store.currency,
      },
    });
    await db.$transaction((tx) =>
      appendOrderEvent(tx, {
        storeId: store.id,
        orderId: order.id,
        kind: "order.placed",
        payload: { id: order.id, status: "placed" },
      }),
    );
    const outcomes = await webhookWorkerStep(new Date(), { storeId: store.id });
    assert.equal(outcomes.length, 2, JSON.stringify(outcomes));
    for (const outcome of outcomes) {
      assert.equal(outcome.ok, false);
      assert.match(outcome.error ?? "", /private_address|not a public address/, outcome.error ?? "");
      assert.doesNotMatch(outcome.error ?? "", SOCKET_TEXT);
    }
    const attempts = await db.webhookAttempt.findMany({ where: { delivery: { storeId: store.id } } });
    for (const attempt of attempts) {
      assert.equal(attempt.responseSnippet, "");
      assert.doesNotMatch(attempt.error ?? "", SOCKET_TEXT);
    }
    assert.equal(accepted.length, 0);
  });
});
