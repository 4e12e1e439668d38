import "server-only";

import { SANDBOX_WALLET_ADDRESS } from "@/lib/buyers/sandbox-wallet";
import type { BuyerAccount } from "@/lib/buyers/sign-in-buyer";
import { itemTitle } from "@/lib/catalog/item-title";
import { getDb, type Db } from "@/lib/config/db";
import { isOAuthTestMode } from "@/lib/config/env";
import { AppError } from "@/lib/core/errors";
import type { CryptoPaymentGroup } from "@/lib/generated/prisma/client";
import { chainForNetwork } from "@/lib/payments/crypto/chain";
import {
  formatUnits,
  normalizeAddress,
  settlementNetwork,
  type SuiNetwork,
} from "@/lib/payments/crypto/coins";
import { cryptoRail } from "@/lib/payments/crypto/crypto-rail";

import { PAGE_TOKEN } from "../checkout-record";
import { settleCrypto, type CryptoSettlement } from "../completion/settle-crypto";
import { firstImageOf } from "../payment-page-details";
import { networkFeeInFiat } from "./payment-page-fee";
import { cryptoRailOf } from "./prepare-checkout-payment";
import { assertSignedByBuyer, digestOfBytes, executeSignedPayment } from "./wallet-signature";

// The wallet page of a combined payment (continue_url of prepare_combined_payment: /account/pay/<group token>):
// every store of the group with its items, total and legs, the whole quote, one "sign" for the one transaction.
// Only the buyer the group was prepared for may pay it (the token alone is not enough: the group was made by a
// buyer-bound call, so the buyer is known). As on the single wallet page, the wallet only SIGNS our bytes; the
// server checks them (only this group's bytes, the buyer's signature, the quote window), executes them through
// the stores' chain port and then completes EACH checkout through settleCrypto, the path completion takes — each
// claims its own legs once and goes through the one finisher. The buyer approved on our page: no agent mandate.

type GroupCheckout = { store_id: string; store_slug: string; checkout_id: string; prepared_digest: string };
type WireLeg = { coin_type: string; symbol: string; decimals: number; amount: string; fiat_amount: number };
type WireQuote = {
  currency: string;
  total: number;
  legs: (WireLeg & { rate: { source: string } })[];
  gas_reserve: { amount: string };
};

/** One coin of a quote: base units with the coin's decimals, its value in the store's currency, the rate's source. */
export type GroupQuoteLeg = {
  symbol: string;
  amount: string;
  decimals: number;
  fiatMinor: number;
  rateSource: string;
};

export type GroupCheckoutView = {
  storeName: string;
  storeSlug: string;
  checkoutId: string;
  currency: string;
  lines: { title: string; quantity: number; amountMinor: number; imageUrl: string | null }[];
  /** How this store's total was reached (subtotal, discount, shipping, tax), as charged. */
  breakdown: { type: string; amount: number; display_text?: string }[];
  totalMinor: number;
  legs: { text: string; fiatMinor: number }[];
  /** This store's share of the transaction, per coin. */
  coins: GroupQuoteLeg[];
  /** The order once this checkout is completed. */
  orderId: string | null;
};

export type GroupWalletPage = {
  groupId: string;
  mode: "test" | "live";
  network: SuiNetwork;
  /** The first store's country: the locale money is shown in when the viewer's is unknown. */
  storeCountry: string;
  currency: string;
  totalMinor: number;
  checkouts: GroupCheckoutView[];
  quote: {
    legs: (GroupQuoteLeg & { text: string })[];
    gasReserveText: string;
    /** The gas reserve in SUI base units (the most the network fee can be), and in the group's currency. */
    gasReserve: string;
    feeFiatMinor: number | null;
  };
  /** The moment this page was read (ISO): where the quote's countdown starts. */
  asOf: string;
  digest: string;
  bytes: string;
  expiresAt: string;
  /** open: can be signed; paid: every checkout has its order; expired: the quote window passed, nothing sent. */
  state: "open" | "paid" | "expired" | "partly_paid";
  access: { kind: "signed_out" } | { kind: "refused" } | { kind: "buyer"; address: string };
  testWallet: boolean;
};

const findGroup = async (db: Db, token: string): Promise<CryptoPaymentGroup | null> =>
  PAGE_TOKEN.test(token) ? db.cryptoPaymentGroup.findUnique({ where: { pageToken: token } }) : null;

const accessOf = (group: CryptoPaymentGroup, viewer: BuyerAccount | null): GroupWalletPage["access"] => {
  if (!viewer) return { kind: "signed_out" };
  const address = normalizeAddress(viewer.suiAddress);
  if (!address || viewer.id !== group.buyerId || address !== group.buyerAddress) return { kind: "refused" };
  return { kind: "buyer", address };
};

/** What the group's wallet page shows, or null for an unknown token. */
export const getGroupWalletPage = async (input: {
  token: string;
  viewer: BuyerAccount | null;
  now?: Date;
}): Promise<GroupWalletPage | null> => {
  const now = input.now ?? new Date();
  const db = await getDb();
  const group = await findGroup(db, input.token);
  if (!group) return null;
  const entries = group.checkouts as GroupCheckout[];
  const [sessions, stores, orders, shares] = await Promise.all([
    db.checkoutSession.findMany({
      where: { id: { in: entries.map((e) => e.checkout_id) } },
      include: { lineItems: { orderBy: { position: "asc" } } },
    }),
    db.store.findMany({ where: { id: { in: entries.map((e) => e.store_id) } } }),
    db.order.findMany({
      where: { checkoutId: { in: entries.map((e) => e.checkout_id) } },
      select: { id: true, checkoutId: true },
    }),
    db.cryptoPayment.findMany({ where: { groupId: group.id } }),
  ]);
  const variants = await db.variant.findMany({
    where: { id: { in: sessions.flatMap((s) => s.lineItems.map((l) => l.variantId)) } },
    select: { id: true, title: true, product: { select: { title: true, media: true } } },
  });
  const imageOf = (variantId: string) =>
    firstImageOf(variants.find((x) => x.id === variantId)?.product.media);
  const titleOf = (variantId: string) => {
    const v = variants.find((x) => x.id === variantId);
    if (!v) return variantId;
    return itemTitle(v.product.title, v.title);
  };
  const head = stores.find((s) => s.id === entries[0]?.store_id);
  const quote = group.quote as unknown as WireQuote;
  const checkouts = entries.map((e): GroupCheckoutView => {
    const session = sessions.find((s) => s.id === e.checkout_id);
    const share = shares.find((s) => s.preparedDigest === e.prepared_digest);
    const shareLegs =
      (share?.quote as { legs?: (WireLeg & { rate?: { source?: string } })[] } | undefined)?.legs ?? [];
    const legs = shareLegs.map((l) => ({
      text: `${formatUnits(l.amount, l.decimals)} ${l.symbol}`,
      fiatMinor: l.fiat_amount,
    }));
    return {
      storeName: stores.find((s) => s.id === e.store_id)?.name ?? e.store_slug,
      storeSlug: e.store_slug,
      checkoutId: e.checkout_id,
      currency: session?.currency ?? quote.currency,
      lines: (session?.lineItems ?? []).map((l) => ({
        title: titleOf(l.variantId),
        quantity: l.quantity,
        amountMinor: l.priceMinor * l.quantity,
        imageUrl: imageOf(l.variantId),
      })),
      breakdown: ((session?.totals ?? []) as GroupCheckoutView["breakdown"]).filter(
        (t) => t.type !== "total",
      ),
      totalMinor: share?.amount ?? 0,
      legs,
      coins: shareLegs.map((l) => ({
        symbol: l.symbol,
        amount: l.amount,
        decimals: l.decimals,
        fiatMinor: l.fiat_amount,
        rateSource: l.rate?.source ?? "",
      })),
      orderId: orders.find((o) => o.checkoutId === e.checkout_id)?.id ?? null,
    };
  });
  const placed = checkouts.filter((c) => c.orderId).length;
  const submitted = shares.some((s) => s.submittedDigest || s.settledDigest);
  const state: GroupWalletPage["state"] =
    placed === checkouts.length
      ? "paid"
      : placed > 0 || submitted
        ? "partly_paid"
        : group.expiresAt <= now
          ? "expired"
          : "open";
  const access = accessOf(group, input.viewer);
  const quoteLegs = quote.legs.map((l) => ({
    text: `${formatUnits(l.amount, l.decimals)} ${l.symbol}`,
    symbol: l.symbol,
    amount: l.amount,
    decimals: l.decimals,
    fiatMinor: l.fiat_amount,
    rateSource: l.rate.source,
  }));
  return {
    groupId: group.id,
    mode: head?.mode === "live" ? "live" : "test",
    network: head ? settlementNetwork(head) : "sandbox",
    storeCountry: head?.country ?? "US",
    currency: quote.currency,
    totalMinor: quote.total,
    checkouts,
    quote: {
      legs: quoteLegs,
      gasReserveText: formatUnits(quote.gas_reserve.amount, 9),
      gasReserve: quote.gas_reserve.amount,
      feeFiatMinor:
        state === "open" && head
          ? await networkFeeInFiat(
              head,
              BigInt(quote.gas_reserve.amount),
              quote.currency,
              quote.legs.map((l) => ({ coinType: l.coin_type, amount: l.amount, fiatMinor: l.fiat_amount })),
            )
          : null,
    },
    asOf: now.toISOString(),
    digest: group.transactionDigest,
    bytes: group.transactionBytes,
    expiresAt: group.expiresAt.toISOString(),
    state,
    access,
    testWallet:
      access.kind === "buyer" &&
      head?.mode === "test" &&
      isOAuthTestMode() &&
      access.address === SANDBOX_WALLET_ADDRESS,
  };
};

export type GroupPayResult = {
  digest: string;
  checkouts: { checkoutId: string; storeSlug: string; result: CryptoSettlement }[];
};

/** Completes every checkout of the group with `digest` (each claims its own legs once; the one finisher). */
const completeEach = async (
  db: Db,
  group: CryptoPaymentGroup,
  digest: string,
  now: Date,
  /** The buyer's wallet signed it on this page: their word, whatever room their agent's allowance has (B20). */
  approvedByBuyer: boolean,
) => {
  const out: GroupPayResult["checkouts"] = [];
  for (const entry of group.checkouts as GroupCheckout[]) {
    const store = await db.store.findUniqueOrThrow({ where: { id: entry.store_id } });
    const result = await settleCrypto(db, {
      store,
      checkoutId: entry.checkout_id,
      digest,
      rail: cryptoRail,
      now,
      path: "$.transaction",
      approvedByBuyer,
    });
    out.push({ checkoutId: entry.checkout_id, storeSlug: entry.store_slug, result });
  }
  return out;
};

/**
 * The combined payment link and the signed-in buyer it was prepared for.
 * @throws AppError not_found, identity_required, access_denied
 */
const openGroupOrThrow = async (db: Db, token: string, viewer: BuyerAccount | null) => {
  const group = await findGroup(db, token);
  if (!group) throw new AppError("not_found", "This combined payment link is unknown");
  const access = accessOf(group, viewer);
  if (access.kind === "signed_out") {
    throw new AppError("identity_required", "Sign in with your Sui wallet to pay these checkouts");
  }
  if (access.kind === "refused") {
    throw new AppError(
      "access_denied",
      "This combined payment belongs to another buyer: sign in with the wallet it was prepared for",
    );
  }
  return group;
};

/**
 * The buyer's wallet signed the group's bytes: check them and the signature, execute them once, then complete
 * every checkout of the group. Paying the same bytes again is harmless (the node answers the stored result; each
 * checkout claims the digest once and answers its order).
 * @throws AppError not_found, identity_required, access_denied, invalid_request (bytes or signature: nothing is
 *   sent), checkout_not_modifiable (the quote expired), payment_provider_error
 */
export const payGroupOnWalletPage = async (input: {
  token: string;
  viewer: BuyerAccount | null;
  transaction: string;
  signature: string;
  now?: Date;
}): Promise<GroupPayResult> => {
  const now = input.now ?? new Date();
  const db = await getDb();
  const group = await openGroupOrThrow(db, input.token, input.viewer);
  if (digestOfBytes(input.transaction) !== group.transactionDigest) {
    throw new AppError(
      "invalid_request",
      "These are not the transaction bytes prepared for this combined payment: reload the page and sign as shown",
      { path: "$.transaction" },
    );
  }
  await assertSignedByBuyer(group.transactionBytes, input.signature, group.buyerAddress);
  const settled = await db.cryptoPayment.count({
    where: { groupId: group.id, OR: [{ settledDigest: { not: null } }, { submittedDigest: { not: null } }] },
  });
  if (settled === 0 && group.expiresAt <= now) {
    throw new AppError(
      "checkout_not_modifiable",
      `The quote expired at ${group.expiresAt.toISOString()}: ask your agent for a new combined payment`,
      { path: "$.transaction" },
    );
  }
  const head = await db.store.findUniqueOrThrow({
    where: { id: (group.checkouts as GroupCheckout[])[0]!.store_id },
  });
  cryptoRailOf(head);
  const executed = await executeSignedPayment(
    chainForNetwork(settlementNetwork(head)),
    group.transactionBytes,
    input.signature,
    "Ask your agent for a new combined payment.",
  );
  return { digest: executed, checkouts: await completeEach(db, group, executed, now, true) };
};

/**
 * The page re-checks a group whose transaction was sent: each checkout not completed yet settles with the group's
 * digest (a landed transaction places its orders; one not final yet stays pending).
 */
export const recheckGroupPayment = async (input: { token: string; now?: Date }) => {
  const now = input.now ?? new Date();
  const db = await getDb();
  const group = await findGroup(db, input.token);
  if (!group) return null;
  const shares = await db.cryptoPayment.findMany({ where: { groupId: group.id } });
  const digest =
    shares.find((s) => s.settledDigest)?.settledDigest ??
    shares.find((s) => s.submittedDigest)?.submittedDigest ??
    null;
  if (!digest) return null;
  return { digest, checkouts: await completeEach(db, group, digest, now, false) };
};

/**
 * A wallet that can only sign and execute ran the group's bytes itself and handed the page their digest: only the
 * digest of those bytes is accepted, and every checkout settles it through settleCrypto as a completion does (the
 * rail reads the chain; nothing is taken on the page's word).
 * @throws AppError not_found, identity_required, access_denied, invalid_request (another digest)
 */
export const settleGroupDigestOnWalletPage = async (input: {
  token: string;
  viewer: BuyerAccount | null;
  digest: string;
  now?: Date;
}): Promise<GroupPayResult> => {
  const now = input.now ?? new Date();
  const db = await getDb();
  const group = await openGroupOrThrow(db, input.token, input.viewer);
  if (input.digest !== group.transactionDigest) {
    throw new AppError(
      "invalid_request",
      "This is not the digest of the transaction prepared for this combined payment: reload the page",
      { path: "$.digest" },
    );
  }
  return {
    digest: group.transactionDigest,
    checkouts: await completeEach(db, group, group.transactionDigest, now, true),
  };
};
