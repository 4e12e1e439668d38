import { randomBytes } from "node:crypto";

import { createAccount, type AccountSummary } from "@/lib/accounts/accounts";
import { signInBuyer } from "@/lib/buyers/sign-in-buyer";
import { getDb } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { createApiKey } from "@/lib/credentials/create-api-key";
import type { PlatformPermission } from "@/lib/credentials/principal";
import type { Store } from "@/lib/generated/prisma/client";
import { createSigningKeyMaterial } from "@/lib/stores/signing-keys";

// Factories for integration tests: every test makes its own store (unique slug), products and keys, so tests
// share no data and can run in parallel on one PostgreSQL.

const unique = () => randomBytes(5).toString("hex");

/**
 * A merchant account whose email is already verified, for tests that are not about sign-up (sign-up itself and
 * the verification link are tested through the mail in e2e/api/accounts).
 */
export const seedVerifiedAccount = async ({
  name = "Verified Merchant",
  email = `verified-${unique()}@example.com`,
  password = "long enough passphrase",
}: { name?: string; email?: string; password?: string } = {}): Promise<AccountSummary> => {
  const account = await createAccount({ name, email, password });
  const { emailVerifiedAt } = await (
    await getDb()
  ).merchantAccount.update({ where: { id: account.id }, data: { emailVerifiedAt: new Date() } });
  return { ...account, emailVerifiedAt };
};

export type StoreOptions = Partial<
  Pick<Store, "name" | "mode" | "currency" | "cardEnabled" | "cryptoEnabled" | "suiRecipient" | "taxRateBps">
> & { slug?: string; /** Our coin symbols, in order. */ acceptedCoins?: string[] };

export const seedStore = async (options: StoreOptions = {}): Promise<Store> => {
  const db = await getDb();
  const slug = options.slug ?? `t-${unique()}`;
  const key = await createSigningKeyMaterial();
  return db.store.create({
    data: {
      id: newId("store"),
      slug,
      name: options.name ?? `Test Store ${slug}`,
      description: "A store made by a test",
      mode: options.mode ?? "test",
      currency: options.currency ?? "USD",
      taxRateBps: options.taxRateBps ?? 0,
      cardEnabled: options.cardEnabled ?? true,
      cryptoEnabled: options.cryptoEnabled ?? false,
      acceptedCoins: options.acceptedCoins ?? [],
      suiRecipient: options.suiRecipient ?? null,
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
};

export type VariantSpec = {
  title?: string;
  priceMinor: number;
  inventory?: number;
  sku?: string;
  barcode?: string;
  weightGrams?: number;
};

export const seedProduct = async (
  store: Store,
  {
    title = `Product ${unique()}`,
    tags = ["test"],
    variants = [{ priceMinor: 1999, inventory: 10 }],
  }: { title?: string; tags?: string[]; variants?: VariantSpec[] } = {},
) => {
  const db = await getDb();
  const handle = `${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${unique()}`;
  return db.product.create({
    data: {
      id: newId("product"),
      storeId: store.id,
      handle,
      title,
      descriptionText: `${title} made by a test`,
      categories: ["Test > Things"],
      tags,
      options: variants.length > 1 ? [{ name: "Size", values: variants.map((_, i) => `S${i}`) }] : [],
      variants: {
        create: variants.map((v, i) => ({
          id: newId("variant"),
          storeId: store.id,
          handle: `${handle}-${i}`,
          title: v.title ?? (variants.length > 1 ? `S${i}` : title),
          sku: v.sku ?? null,
          barcode: v.barcode ?? null,
          priceMinor: v.priceMinor,
          currency: store.currency,
          inventory: v.inventory ?? 10,
          weightGrams: v.weightGrams ?? 0,
          options: variants.length > 1 ? [{ name: "Size", label: `S${i}` }] : [],
          position: i,
        })),
      },
    },
    include: { variants: { orderBy: { position: "asc" } } },
  });
};

export const seedPlatformKey = async (permissions: PlatformPermission[] = []) =>
  createApiKey({ name: `test-${unique()}`, permissions });

/**
 * A stored allowance of a buyer for an agent, as if the buyer had signed it on the spend-cap page (no limits, every
 * store, one hour): for tests of a buyer's purchases that are not about the allowance itself (DECISIONS B20: an
 * agent pays for a buyer only within one). The service reads the stored row when it reserves; tests of the signed
 * envelope itself sign one (e2e/helpers/crypto-purchase.ts, signAllowance).
 */
export const seedAllowance = async (input: { buyerId: string; clientId: string; limitDay?: number }) =>
  (await getDb()).intentMandate.create({
    data: {
      id: `im_${unique()}`,
      buyerId: input.buyerId,
      clientId: input.clientId,
      envelope: "seeded-by-test",
      currency: "USD",
      limitDay: input.limitDay ?? null,
      merchants: "*",
      nonce: unique(),
      expiresAt: new Date(Date.now() + 60 * 60_000),
    },
  });

// ── issue #4: checkout rules ─────────────────────────────────────────────────────────────────────────────

export type ShippingRateSpec = {
  code: string;
  title?: string;
  country?: string;
  region?: string | null;
  priceMinor: number;
  freeOverMinor?: number | null;
  freeForTag?: string | null;
  minWeightGrams?: number;
  maxWeightGrams?: number | null;
  minSubtotalMinor?: number;
  maxSubtotalMinor?: number | null;
  minDays?: number | null;
  maxDays?: number | null;
  position?: number;
};

export const seedShippingRates = async (store: Store, rates: ShippingRateSpec[]) => {
  const db = await getDb();
  await db.shippingRate.createMany({
    data: rates.map((r, i) => ({
      id: newId("shippingRate"),
      storeId: store.id,
      code: r.code,
      title: r.title ?? r.code,
      country: r.country ?? "US",
      region: r.region ?? null,
      priceMinor: r.priceMinor,
      freeOverMinor: r.freeOverMinor ?? null,
      freeForTag: r.freeForTag ?? null,
      minWeightGrams: r.minWeightGrams ?? 0,
      maxWeightGrams: r.maxWeightGrams ?? null,
      minSubtotalMinor: r.minSubtotalMinor ?? 0,
      maxSubtotalMinor: r.maxSubtotalMinor ?? null,
      minDays: r.minDays ?? null,
      maxDays: r.maxDays ?? null,
      position: r.position ?? i,
    })),
  });
};

export type DiscountCodeSpec = {
  code: string;
  title?: string;
  kind: "percentage" | "fixed_amount";
  value: number;
  minSubtotalMinor?: number;
  startsAt?: Date | null;
  expiresAt?: Date | null;
};

export const seedDiscountCodes = async (store: Store, codes: DiscountCodeSpec[]) => {
  const db = await getDb();
  await db.discountCode.createMany({
    data: codes.map((c) => ({
      id: newId("discountCode"),
      storeId: store.id,
      code: c.code.toUpperCase(),
      title: c.title ?? c.code,
      kind: c.kind,
      value: c.value,
      minSubtotalMinor: c.minSubtotalMinor ?? 0,
      startsAt: c.startsAt ?? null,
      expiresAt: c.expiresAt ?? null,
    })),
  });
};
/** A buyer account with a fresh random Sui address, as after a wallet sign-in. */
export const seedBuyer = () => signInBuyer(`0x${randomBytes(32).toString("hex")}`);
export type CatalogProductSpec = {
  title: string;
  description?: string;
  tags?: string[];
  categories?: string[];
  attributes?: { name: string; value: string }[];
  createdAt?: Date;
  variants?: VariantSpec[];
};

/** A product with catalog fields set (tags, categories, attributes, created_at) for search tests. */
export const seedCatalogProduct = async (store: Store, spec: CatalogProductSpec) => {
  const db = await getDb();
  const handle = `${spec.title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${unique()}`;
  const variants = spec.variants ?? [{ priceMinor: 1999, inventory: 10 }];
  return db.product.create({
    data: {
      id: newId("product"),
      storeId: store.id,
      handle,
      title: spec.title,
      descriptionText: spec.description ?? spec.title,
      categories: spec.categories ?? [],
      tags: (spec.tags ?? []).map((t) => t.toLowerCase()),
      attributes: spec.attributes ?? [],
      ...(spec.createdAt ? { createdAt: spec.createdAt } : {}),
      variants: {
        create: variants.map((v, i) => ({
          id: newId("variant"),
          storeId: store.id,
          handle: `${handle}-${i}`,
          title: v.title ?? spec.title,
          sku: v.sku ?? null,
          barcode: v.barcode ?? null,
          priceMinor: v.priceMinor,
          currency: store.currency,
          inventory: v.inventory ?? 10,
          position: i,
        })),
      },
    },
    include: { variants: { orderBy: { position: "asc" } } },
  });
};
