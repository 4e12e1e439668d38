import "server-only";

import { addressFingerprint } from "@/lib/checkout/saved-addresses";
import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { createApiKey } from "@/lib/credentials/create-api-key";
import type { PlatformPermission } from "@/lib/credentials/principal";
import type { Store } from "@/lib/generated/prisma/client";
import { createSigningKeyMaterial } from "@/lib/stores/signing-keys";

import { FLOWER_CUSTOMERS, FLOWER_DISCOUNTS, FLOWER_PRODUCTS, FLOWER_SHIPPING_RATES } from "./flower-shop";

// Seeds the conformance store (docs/conformance.md): a test-mode store selling the flower shop's products
// (lib/conformance/flower-shop.ts) on the card rail's sandbox, with its shipping rates and discount codes, and its
// own platform key, which conformance mode resolves keyless requests to. The suite's known customers are addresses
// saved under that key (the store keeps agents' addresses, each for the agent that sent it): keyless requests see
// them, as the suite expects, and any other caller does not. Only ever on a fresh database: the command refuses a
// data dir that is not empty.

export const CONFORMANCE_STORE_SLUG = "flower-shop";

/** The permissions a platform key gets by default (the demo key's): buy, read and ask about its orders. */
const PLATFORM_PERMISSIONS: PlatformPermission[] = ["purchase:complete", "orders:read", "orders:request"];

export type SeededConformanceStore = { store: Store; platformKey: string; platformKeyId: string };

export const seedConformanceStore = async (
  slug: string = CONFORMANCE_STORE_SLUG,
): Promise<SeededConformanceStore> => {
  const db = await getDb();
  const key = await createSigningKeyMaterial();
  const store = await db.store.create({
    data: {
      id: newId("store"),
      slug,
      name: "Flower Shop (UCP conformance)",
      description: "The conformance store: the official UCP conformance suite's flower shop, in test mode",
      mode: "test",
      currency: "USD",
      country: "US",
      taxRateBps: 0,
      cardEnabled: true,
      cryptoEnabled: false,
      rememberAddresses: true,
      signingKeys: {
        create: {
          id: newId("signingKey"),
          kid: key.kid,
          publicJwk: key.publicJwk,
          privateJwk: key.privateJwk,
        },
      },
    },
  });
  for (const [position, product] of FLOWER_PRODUCTS.entries()) {
    await db.product.create({
      data: {
        id: newId("product"),
        storeId: store.id,
        handle: product.id.replace(/_/g, "-"),
        title: product.title,
        descriptionText: product.title,
        tags: [...product.tags],
        media: [{ type: "image", url: product.imageUrl, alt_text: product.title }],
        variants: {
          create: {
            // the variant's id is the item id the suite sends
            id: product.id,
            storeId: store.id,
            handle: product.id.replace(/_/g, "-"),
            title: product.title,
            sku: product.id,
            priceMinor: product.priceMinor,
            currency: "USD",
            inventory: product.stock,
            position,
          },
        },
      },
    });
  }
  await db.shippingRate.createMany({
    data: FLOWER_SHIPPING_RATES.map((rate, position) => ({
      id: newId("shippingRate"),
      storeId: store.id,
      code: rate.code,
      title: rate.title,
      country: rate.country,
      priceMinor: rate.priceMinor,
      freeOverMinor: rate.freeOverMinor,
      freeForTag: rate.freeForTag,
      position,
    })),
  });
  await db.discountCode.createMany({
    data: FLOWER_DISCOUNTS.map((discount) => ({
      id: newId("discountCode"),
      storeId: store.id,
      code: discount.code,
      title: discount.title,
      kind: discount.kind,
      value: discount.value,
    })),
  });
  const created = await createApiKey({ name: `conformance ${slug}`, permissions: PLATFORM_PERMISSIONS });
  await db.savedAddress.createMany({
    data: FLOWER_CUSTOMERS.flatMap((customer) =>
      customer.addresses.map(({ id, ...address }, i) => ({
        id,
        storeId: store.id,
        principalId: `key:${created.id}`,
        email: customer.email,
        fingerprint: addressFingerprint(address),
        address,
        // in the suite's order: the first address first
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, customer.addresses.length - i)),
      })),
    ),
  });
  return { store, platformKey: created.key, platformKeyId: created.id };
};
