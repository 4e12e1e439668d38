import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, test } from "node:test";

import { checkoutMandate } from "@agent-commerce/agent-kit";

import { seedPlatformKey } from "../../factories";
import { profileServer } from "../../helpers/agent-profile-server";
import { rest } from "../../helpers/app-client";
import { startCimdServer, type CimdServer } from "../../helpers/cimd-server";
import {
  linkBuyerAgent,
  newWallet,
  seedCryptoStore,
  signAllowance,
  signAndSubmit,
  USDC_UNIT,
  type Prepared,
} from "../../helpers/crypto-purchase";
import { assertUcpSchema, type SchemaVersion } from "../../helpers/ucp-schema";
import { closeTestDatabase, prepareTestDatabase } from "../../support/test-db";

// The crypto rail at each older version over REST, on the Sui sandbox: a platform key creates the checkout at the
// agent's version, the buyer's agent prepares the payment with the buyer's bearer, the wallet signs and submits,
// and the agent completes with the digest in that version's complete body and both mandates; every checkout
// answer is checked against that version's schemas.

type Json = Record<string, unknown>;
type Version = "2026-01-11" | "2026-01-23";

let cimd: CimdServer;
let apiKey = "";
const servers = await profileServer();

before(async () => {
  await prepareTestDatabase();
  cimd = await startCimdServer();
  apiKey = (await seedPlatformKey(["purchase:complete"])).key;
});
after(async () => {
  await cimd.close();
  await closeTestDatabase();
});

const assertCheckout = (version: Version, body: unknown) => {
  assertUcpSchema("shopping/fulfillment.json#/$defs/checkout", body, version as SchemaVersion);
  assertUcpSchema("shopping/discount.json#/$defs/checkout", body, version as SchemaVersion);
  assert.equal((body as { ucp: { version: string } }).ucp.version, version);
};

for (const version of ["2026-01-11", "2026-01-23"] as const) {
  test(`crypto purchase at ${version}: payment-intent → wallet → complete with the digest`, async () => {
    const profile = servers.url(`v${version}-signed`);
    const { store, variantId } = await seedCryptoStore();
    const agent = await linkBuyerAgent(cimd, await newWallet({ usdc: [100n * USDC_UNIT] }));
    const created = await rest<Json>("POST", `/s/${store.slug}/checkout-sessions`, {
      headers: { "x-api-key": apiKey, "ucp-agent": `profile="${profile}"`, "idempotency-key": randomUUID() },
      body: {
        ...(version === "2026-01-11" ? { currency: "USD" } : {}),
        line_items: [{ item: { id: variantId }, quantity: 1 }],
        buyer: { email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" },
        fulfillment: {
          methods: [
            {
              type: "shipping",
              destinations: [
                {
                  id: "dest_1",
                  street_address: "1 Market St",
                  address_locality: "San Francisco",
                  address_region: "CA",
                  postal_code: "94105",
                  address_country: "US",
                },
              ],
              groups: [{ selected_option_id: "standard" }],
            },
          ],
        },
        payment:
          version === "2026-01-11"
            ? {
                handlers: [],
                selected_instrument_id: "c1",
                instruments: [{ id: "c1", handler_id: "svc.crypto", type: "crypto" }],
              }
            : { instruments: [{ id: "c1", handler_id: "svc.crypto", type: "crypto", selected: true }] },
      },
    });
    assert.equal(created.status, 201, created.text);
    assertCheckout(version, created.body);
    assert.equal(created.body.status, "ready_for_complete", JSON.stringify(created.body.messages));
    const bearer = { authorization: agent.bearer, "ucp-agent": `profile="${profile}"` };

    const prepared = await rest<Prepared>(
      "POST",
      `/s/${store.slug}/checkout-sessions/${created.body.id as string}/payment-intent`,
      {
        headers: { ...bearer, "idempotency-key": randomUUID() },
        body: { buyer_address: agent.wallet.address },
      },
    );
    assert.equal(prepared.status, 200, prepared.text);
    const digest = await signAndSubmit(agent.wallet, prepared.body.transaction.bytes);
    const intent = await signAllowance(agent.wallet, agent.clientId, { per_order_max: 5000 });
    const mandate = await checkoutMandate(created.body as never, store.slug, {
      privateJwk: servers.agentKey.privateJwk as never,
      kid: servers.agentKey.kid,
    });
    const instrument = {
      id: "c1",
      handler_id: "svc.crypto",
      type: "crypto",
      credential: { type: "token", token: digest },
    };
    const done = await rest<Json>(
      "POST",
      `/s/${store.slug}/checkout-sessions/${created.body.id as string}/complete`,
      {
        headers: { ...bearer, "idempotency-key": randomUUID() },
        body:
          version === "2026-01-11"
            ? { payment_data: instrument, ap2: { checkout_mandate: mandate, intent_mandate: intent } }
            : {
                payment: { instruments: [{ ...instrument, selected: true }] },
                ap2: { checkout_mandate: mandate, intent_mandate: intent },
              },
      },
    );
    assert.equal(done.status, 200, done.text);
    assertCheckout(version, done.body);
    assert.equal(done.body.status, "completed", done.text);
    assert.ok((done.body.order as { id?: string } | undefined)?.id);
  });
}
