import assert from "node:assert/strict";
import { generateKeyPairSync, randomUUID } from "node:crypto";

import type { JWK } from "jose";

import type { Store } from "@/lib/generated/prisma/client";
import { SANDBOX_PAYMENT_METHODS } from "@/sandbox/stripe/server";

import { BUYER, SEED_ADDRESS, type Checkout } from "../api/checkout/helpers";
import { rest } from "./app-client";
import { cardCompletionBody } from "./card-completion";

// A paid order the way a platform gets one: create a checkout, then complete it on the card rail (sandbox PSP,
// the succeeding test card) with an AP2 mandate signed by the platform's own key — the key the platform's
// profile publishes (servePlatformProfile's signingKeys). Order tests use it so that orders are placed and
// paid by the real completion, never by writing rows.

export type PlatformSigner = { kid: string; privateJwk: JWK; publicJwk: Record<string, unknown> };

export const newPlatformSigner = (): PlatformSigner => {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const kid = `platform-${randomUUID().slice(0, 8)}`;
  return {
    kid,
    privateJwk: { ...(privateKey.export({ format: "jwk" }) as JWK), kid },
    publicJwk: { ...publicKey.export({ format: "jwk" }), kid, alg: "ES256", use: "sig" },
  };
};

export type PaidOrder = { checkoutId: string; orderId: string; total: number };

export const completeCardOrder = async (
  store: Store,
  opts: {
    apiKey: string;
    profileUrl: string;
    signer: PlatformSigner;
    lines: { variantId: string; quantity: number }[];
    shippingMethodId?: string;
  },
): Promise<PaidOrder> => {
  const headers = () => ({
    "x-api-key": opts.apiKey,
    "ucp-agent": `profile="${opts.profileUrl}"`,
    "idempotency-key": randomUUID(),
  });
  const created = await rest<Checkout>("POST", `/s/${store.slug}/checkout-sessions`, {
    headers: headers(),
    body: {
      line_items: opts.lines.map((l) => ({ item: { id: l.variantId }, quantity: l.quantity })),
      buyer: BUYER,
      shipping_address: SEED_ADDRESS,
      shipping_method_id: opts.shippingMethodId ?? "standard",
    },
  });
  assert.equal(created.body.status, "ready_for_complete", created.text);
  const done = await rest<Checkout & { order?: { id: string } }>(
    "POST",
    `/s/${store.slug}/checkout-sessions/${created.body.id}/complete`,
    {
      headers: headers(),
      body: await cardCompletionBody(created.body, store.slug, opts.signer, SANDBOX_PAYMENT_METHODS.succeeds),
    },
  );
  assert.equal(done.body.status, "completed", done.text);
  const total = done.body.totals.find((t) => t.type === "total")?.amount ?? 0;
  return { checkoutId: created.body.id, orderId: done.body.order!.id, total };
};
