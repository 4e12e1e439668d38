import { generateKeyPairSync, randomUUID, type JsonWebKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";

import { expect, test } from "@playwright/test";
import type { JWK } from "jose";

import { mandateTerms } from "../../lib/mandates/mandate-terms";
import { signCheckoutMandate } from "../../lib/mandates/sign-checkout-mandate";
import { seedId } from "../../prisma/seed/seed-ids";
import { withMandateKey, withOrderWebhook } from "../helpers/card-completion";
import { assertUcpSchema } from "../helpers/ucp-schema";
import { startWebhookReceiver } from "../helpers/webhook-receiver";

// Issue #7: the served app's own delivery worker (instrumentation.ts, on by default) delivers order webhooks — no
// test calls a worker step here. The agent (this test) places a card order through the public REST API with a
// profile whose order capability declares a webhook_url on 127.0.0.1 (test-mode stores may post to loopback where
// the deployment allows it: playwright.config.ts sets OUTBOUND_ALLOW_PRIVATE=1 for the production build);
// the receiver there verifies the RFC 9421 signature against the key the store publishes in its profile and
// the Content-Digest against the raw bytes. The store's own webhook URL is a merchant setting of the admin CLI,
// which cannot open the served app's embedded database while it runs; scripts/crash-test-webhooks.ts covers
// that target on PostgreSQL.

const STORE = "hearth-and-table";

const demoKey = (): string => {
  const dir = process.env.E2E_PGLITE_DIR;
  if (!dir) throw new Error("E2E_PGLITE_DIR is set by playwright.config.ts");
  return (
    JSON.parse(readFileSync(path.join(path.dirname(dir), "demo-platform-key.json"), "utf8")) as {
      key: string;
    }
  ).key;
};

type Checkout = {
  id: string;
  status: string;
  currency: string;
  order?: { id: string };
  messages: { code?: string; content: string }[];
  line_items: { item: { id: string; price: number }; quantity: number }[];
  totals: { type: string; amount: number }[];
};

test("the in-server worker delivers a placed order's webhook, signed with the store's published key", async ({
  request,
  baseURL,
}) => {
  const receiver = await startWebhookReceiver();
  const storeProfile = (await (await request.get(`/s/${STORE}/.well-known/ucp`)).json()) as {
    signing_keys?: JsonWebKey[];
  };
  const storeKey = storeProfile.signing_keys?.[0];
  expect(storeKey?.kid, "the store publishes a signing key").toBeTruthy();
  receiver.trust(storeKey!);

  // the agent's profile: the demo agent profile, our ES256 mandate key, and our order webhook_url
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const kid = "e2e-webhook-agent";
  const base = (await (await request.get("/demo/agent/.well-known/ucp")).json()) as {
    ucp: { capabilities: Record<string, { config?: object }[]> };
  };
  const profile = JSON.stringify(
    withMandateKey(withOrderWebhook(base, receiver.url("/orders")), {
      ...publicKey.export({ format: "jwk" }),
      kid,
      alg: "ES256",
      use: "sig",
    }),
  );
  const server = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "application/json" }).end(profile),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const agent = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/ucp`;
  const headers = () => ({
    "request-id": randomUUID(),
    "ucp-agent": `profile="${agent}"`,
    "x-api-key": demoKey(),
    "idempotency-key": randomUUID(),
  });
  try {
    let variantId = "";
    for (let i = 0; i < 20 && !variantId; i++) {
      const product = (await (
        await request.post(`/s/${STORE}/catalog/product`, {
          headers: headers(),
          data: { id: seedId("product", STORE, i) },
        })
      ).json()) as { product?: { variants: { id: string; availability?: { available?: boolean } }[] } };
      variantId = product.product?.variants.find((v) => v.availability?.available)?.id ?? "";
    }
    expect(variantId, "a demo variant in stock").not.toBe("");

    const checkout = (await (
      await request.post(`/s/${STORE}/checkout-sessions`, {
        headers: headers(),
        data: {
          line_items: [{ item: { id: variantId }, quantity: 1 }],
          buyer: { email: "grace@example.com", first_name: "Grace", last_name: "Hopper" },
          shipping_address: {
            line1: "1005 NW Couch St",
            city: "Portland",
            region: "OR",
            postal_code: "97209",
            country: "US",
          },
          shipping_method_id: "standard",
          payment: { instruments: [{ handler_id: "svc.card", selected: true }] },
        },
      })
    ).json()) as Checkout;
    expect(checkout.status, JSON.stringify(checkout.messages)).toBe("ready_for_complete");
    const completed = (await (
      await request.post(`/s/${STORE}/checkout-sessions/${checkout.id}/complete`, {
        headers: headers(),
        data: {
          payment: {
            instruments: [
              {
                handler_id: "svc.card",
                selected: true,
                credential: { type: "stripe_token", token: "pm_card_visa" },
              },
            ],
          },
          ap2: {
            checkout_mandate: await signCheckoutMandate(mandateTerms(checkout, STORE), {
              privateJwk: privateKey.export({ format: "jwk" }) as JWK,
              kid,
              exp: Math.floor(Date.now() / 1000) + 600,
            }),
          },
        },
      })
    ).json()) as Checkout;
    expect(completed.status, JSON.stringify(completed.messages)).toBe("completed");
    const orderId = completed.order!.id;

    // the worker polls every second: wait (bounded) until the delivery of this order has arrived
    const ours = () => receiver.received.filter((r) => r.body.includes(orderId));
    await expect
      .poll(() => ours().length, { timeout: 20_000, message: "a delivery of the order arrives" })
      .toBeGreaterThan(0);

    const [delivery] = ours();
    expect(delivery!.path).toBe("/orders");
    expect(delivery!.verified, "RFC 9421 signature verifies with the store's published key").toBe(true);
    expect(delivery!.digestOk, "Content-Digest matches the raw body").toBe(true);
    expect(delivery!.covered).toEqual(
      expect.arrayContaining([
        "@method",
        "@authority",
        "@path",
        "content-digest",
        "content-type",
        "webhook-id",
        "webhook-timestamp",
        "ucp-agent",
      ]),
    );
    expect(delivery!.webhookId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(Number(delivery!.timestamp)).toBeGreaterThan(0);
    expect(delivery!.ucpAgent).toBe(`profile="${baseURL}/s/${STORE}/.well-known/ucp"`);
    const body = JSON.parse(delivery!.body) as { id: string; line_items: unknown[] };
    expect(body.id).toBe(orderId);
    expect(body.line_items).toHaveLength(1);
    assertUcpSchema("shopping/order.json", body);
    // the served app's delivery log (REST, orders:read) records the attempt the receiver answered with 200
    type Log = {
      deliveries: {
        webhook_id: string;
        target: string;
        state: string;
        attempts: { target_url: string; status: number | null }[];
      }[];
    };
    const logged = async () =>
      (
        (await (
          await request.get(`/s/${STORE}/webhook-deliveries?order_id=${orderId}`, { headers: headers() })
        ).json()) as Log
      ).deliveries.find((d) => d.webhook_id === delivery!.webhookId);
    await expect.poll(async () => (await logged())?.state, { timeout: 10_000 }).toBe("delivered");
    const entry = (await logged())!;
    expect(entry.target).toBe("platform");
    expect(entry.attempts).toEqual([
      expect.objectContaining({ target_url: receiver.url("/orders"), status: 200 }),
    ]);
  } finally {
    server.close();
    await receiver.close();
  }
});
