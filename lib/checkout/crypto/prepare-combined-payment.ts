import "server-only";

import { randomBytes } from "node:crypto";

import { getDb, type Db } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import { defineOperation, type OperationContext } from "@/lib/core/operation";
import { couponOffOrThrow } from "@/lib/coupons/redeem";
import type { Store } from "@/lib/generated/prisma/client";
import { mandateRequired } from "@/lib/mandates/buyer-spend";
import {
  allowanceForPrepare,
  allowanceFromEnvelope,
  PREPARE_RESERVATION_GRACE_MS,
  reserveGroupSpend,
} from "@/lib/mandates/spend-for-checkout";
import { releaseSpend } from "@/lib/mandates/spend-ledger";
import { cancelSuperseded, recordAttempt } from "@/lib/payments/attempts";
import { chainForNetwork } from "@/lib/payments/crypto/chain";
import { settlementNetwork, storedCoinSymbols } from "@/lib/payments/crypto/coins";
import { combinedGasBudget, prepareCombinedTransaction } from "@/lib/payments/crypto/combined-payment";
import { cryptoRail, quoteToWire } from "@/lib/payments/crypto/crypto-rail";
import { oracleForMode } from "@/lib/payments/crypto/oracle";
import type { Quote } from "@/lib/payments/crypto/quote";
import { getStoreOrThrow } from "@/lib/stores/get-store-or-throw";
import { PreparedCombinedPaymentOutputSchema } from "@/lib/ucp/output-schemas";
import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";

import { bindCheckoutsOrThrow, peekBindableCheckoutOrThrow, type CheckoutRecord } from "../checkout-record";
import { PrepareCombinedPaymentInputSchema, type PrepareCombinedPaymentInput } from "../schemas";
import {
  assertBuyerAlone,
  buyerAddressOrThrow,
  continueTokenOf,
  cryptoRailOf,
  finishIfLanded,
  liveTotalOrThrow,
} from "./prepare-checkout-payment";

// prepare_combined_payment (account MCP, seed §4 and §8, SUI.md §3, DECISIONS B12, B17): one unsigned transaction
// paying 2–5 checkouts of one buyer, one per store. Everything is checked before anything is written (each
// checkout the caller's or bindable, ready, in a crypto store with a coin every store accepts, funded), then the
// unbound checkouts are bound all or nothing, then the group and each checkout's share are stored. Each share is a
// crypto_payments row and a payment attempt of its checkout (provider reference `<digest>:<checkout id>`), so each
// checkout is completed at its own store with the one digest through the ordinary path (settleCrypto → the one
// finisher), claiming its own legs once. A new combined prepare whose checkouts' previous transaction already
// landed finishes them with it instead (the landed-first rule), and prepares nothing.
// Spend caps (B6): the one reservation for the whole group belongs right before the write of the group (after
// every check, see `reserveHere` below); each checkout's debit happens where its order is placed (the one
// finisher), as for a single payment.

/** The continue_url of a group: its wallet page, where the buyer sees every store and signs once. */
export const groupPageUrl = (baseUrl: string, pageToken: string): string =>
  `${baseUrl.replace(/\/$/, "")}/account/pay/${pageToken}`;

/** An AppError of one checkout, located at its entry of `checkouts`. */
const located = (error: unknown, path: string): unknown =>
  error instanceof AppError
    ? new AppError(error.code, error.message, { path, details: error.details, cause: error })
    : error;

type Entry = {
  index: number;
  store: Store;
  session: CheckoutRecord;
  needsBinding: boolean;
  total: number;
  /** What this payment pays for the checkout: its total less a service coupon on it (B16). */
  pay: number;
};

/** Each entry's store, checkout and live total, or the first reason it cannot be paid (nothing written). */
const loadEntriesOrThrow = async (
  db: Db,
  ctx: OperationContext,
  input: PrepareCombinedPaymentInput,
): Promise<Entry[]> => {
  const entries: Entry[] = [];
  for (const [index, item] of input.checkouts.entries()) {
    const at = `$.checkouts[${index}]`;
    const first = input.checkouts.findIndex((c) => c.store_slug === item.store_slug);
    if (first !== index) {
      throw new AppError(
        "invalid_request",
        `Two checkouts of store ${item.store_slug}: a combined payment pays one checkout per store`,
        { path: `${at}.store_slug` },
      );
    }
    const store = await getStoreOrThrow(item.store_slug).catch((e: unknown) => {
      throw located(e, `${at}.store_slug`);
    });
    try {
      cryptoRailOf(store);
    } catch (error) {
      throw located(error, `${at}.store_slug`);
    }
    const storeCtx = { ...ctx, store };
    const { session, needsBinding } = await peekBindableCheckoutOrThrow(
      db,
      storeCtx,
      item.checkout_id,
      `${at}.checkout_id`,
    ).catch((e: unknown) => {
      throw located(e, `${at}.checkout_id`);
    });
    const total = await liveTotalOrThrow(db, store, session, ctx.now).catch((e: unknown) => {
      throw located(e, `${at}.checkout_id`);
    });
    const pay =
      total -
      (await couponOffOrThrow(db, session, total).catch((e: unknown) => {
        throw located(e, `${at}.checkout_id`);
      }));
    entries.push({ index, store, session, needsBinding, total, pay });
  }
  const [head] = entries;
  for (const entry of entries) {
    const at = `$.checkouts[${entry.index}]`;
    if (entry.session.currency !== head!.session.currency) {
      throw new AppError(
        "invalid_request",
        `Checkout ${entry.session.id} is in ${entry.session.currency}, the first in ${head!.session.currency}: a combined payment is in one currency`,
        { path: `${at}.checkout_id` },
      );
    }
    if (
      settlementNetwork(entry.store) !== settlementNetwork(head!.store) ||
      entry.store.mode !== head!.store.mode
    ) {
      throw new AppError(
        "invalid_request",
        `Store ${entry.store.slug} settles on another Sui network (or mode) than ${head!.store.slug}: one transaction cannot pay both`,
        { path: `${at}.store_slug` },
      );
    }
  }
  return entries;
};

/**
 * The landed-first rule for a group (B12): a checkout whose current prepared payment (a single one, or its share
 * of a previous group) already landed finishes with it. Any such checkout stops the new prepare.
 * @throws AppError checkout_not_modifiable (paid already: do not pay again), with the orders in details
 */
const finishLandedOrThrow = async (db: Db, entries: readonly Entry[], now: Date) => {
  const paid: { index: number; checkout_id: string; order_id?: string; digest?: string }[] = [];
  for (const entry of entries) {
    try {
      await finishIfLanded(db, entry.store, entry.session, cryptoRail, now);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== "checkout_not_modifiable") throw error;
      paid.push({
        index: entry.index,
        checkout_id: entry.session.id,
        ...(typeof error.details?.order_id === "string" ? { order_id: error.details.order_id } : {}),
        ...(typeof error.details?.transaction_digest === "string"
          ? { digest: error.details.transaction_digest }
          : {}),
      });
    }
  }
  if (paid.length === 0) return;
  throw new AppError(
    "checkout_not_modifiable",
    `${paid.map((p) => `Checkout ${p.checkout_id} ${p.order_id ? `is already paid (order ${p.order_id})` : `has a payment not final on the chain yet (${p.digest})`}`).join("; ")}: do not pay again; complete the others (or prepare them without the paid ones)`,
    { path: `$.checkouts[${paid[0]!.index}].checkout_id`, details: { paid } },
  );
};

const legsToWire = (quote: Quote) =>
  quote.legs.map((l) => ({
    coin_type: l.coinType,
    symbol: l.symbol,
    decimals: l.decimals,
    amount: l.amount.toString(),
    fiat_amount: Number(l.fiatMinor),
  }));

/** The whole transaction's quote: the checkouts' legs summed per coin (the first checkout's rate shown). */
const wholeQuote = (quotes: readonly Quote[], expiresAtMs: number) => {
  const perCheckout = quotes.map((q) => quoteToWire({ quote: q, expiresAtMs }));
  const legs: ReturnType<typeof quoteToWire>["legs"] = [];
  for (const leg of perCheckout.flatMap((q) => q.legs)) {
    const same = legs.find((l) => l.coin_type === leg.coin_type);
    if (!same) legs.push({ ...leg });
    else {
      same.amount = (BigInt(same.amount) + BigInt(leg.amount)).toString();
      same.fiat_amount += leg.fiat_amount;
    }
  }
  const first = perCheckout[0]!;
  return {
    ...first,
    mode: first.mode,
    total: perCheckout.reduce((sum, q) => sum + q.total, 0),
    legs,
  };
};

/**
 * Prepares one transaction paying every checkout (see the header).
 * @throws AppError invalid_request, store_not_found, not_found, rail_not_available, checkout_not_modifiable,
 *   unsupported_coin, insufficient_funds, insufficient_liquidity, payment_provider_error, identity_required
 */
export const prepareCombined = async (ctx: OperationContext, input: PrepareCombinedPaymentInput) => {
  const principal = assertBuyerAlone(ctx, "prepare_combined_payment");
  const db = await getDb();
  const buyer = await db.buyer.findUnique({
    where: { id: principal.buyerId },
    select: { suiAddress: true },
  });
  if (!buyer) throw new AppError("identity_required", "The bearer's buyer account no longer exists");
  const address = buyerAddressOrThrow(buyer.suiAddress, input.buyer_address);
  const entries = await loadEntriesOrThrow(db, ctx, input);
  await finishLandedOrThrow(db, entries, ctx.now);
  // spend caps (DECISIONS B6, B20): the buyer's allowance for this agent that allows every store, stored or sent
  // with this call; none → mandate_required, before any transaction is built
  const merchants = entries.map((e) => e.store.slug);
  let allowance = await allowanceForPrepare(db, {
    buyerId: principal.buyerId,
    clientId: principal.clientId,
    merchant: merchants,
    id: input.payment_mandate_id ?? null,
    now: ctx.now,
  });
  if (!allowance && input.ap2?.intent_mandate) {
    for (const merchant of merchants) {
      allowance = await allowanceFromEnvelope(db, input.ap2.intent_mandate, {
        buyerAddress: address,
        agent: principal.clientId,
        merchant,
        now: ctx.now,
      });
    }
  }
  if (!allowance) throw mandateRequired("$.ap2.intent_mandate", ctx.baseUrl);

  const head = entries[0]!.store;
  const groupId = newId("paymentGroup");
  const prepared = await prepareCombinedTransaction(
    {
      chain: chainForNetwork(settlementNetwork(head)),
      oracle: oracleForMode(head.mode === "live" ? "live" : "test"),
    },
    {
      buyer: address,
      checkouts: entries.map((e) => ({
        merchant: e.store.suiRecipient ?? "",
        acceptedCoins: storedCoinSymbols(e.store.acceptedCoins),
        totalMinor: BigInt(e.pay),
        currency: e.session.currency,
      })),
      requestedCoin: input.input_coin_type ?? null,
      gasBudget: combinedGasBudget(groupId),
    },
  );
  const digest = prepared.transaction.digest;
  const shareRef = (checkoutId: string) => `${digest}:${checkoutId}`;

  // binds the checkouts and stores the group, its shares and their attempts
  const storeCombined = async () => {
    await bindCheckoutsOrThrow(
      db,
      ctx.principal.id,
      entries
        .filter((e) => e.needsBinding)
        .map((e) => ({ id: e.session.id, path: `$.checkouts[${e.index}].checkout_id` })),
    );
    const pageToken = randomBytes(24).toString("base64url");
    await db.cryptoPaymentGroup.create({
      data: {
        id: groupId,
        buyerId: principal.buyerId,
        principalId: ctx.principal.id,
        buyerAddress: address,
        transactionDigest: digest,
        transactionBytes: prepared.transaction.bytes,
        checkouts: entries.map((e) => ({
          store_id: e.store.id,
          store_slug: e.store.slug,
          checkout_id: e.session.id,
          prepared_digest: shareRef(e.session.id),
        })),
        quote: wholeQuote(prepared.quotes, prepared.expiresAtMs),
        pageToken,
        preparedAt: new Date(prepared.preparedAtMs),
        expiresAt: new Date(prepared.expiresAtMs),
      },
    });
    await db.cryptoPayment.createMany({
      data: entries.map((e, i) => ({
        preparedDigest: shareRef(e.session.id),
        transactionDigest: digest,
        groupId,
        checkoutId: e.session.id,
        storeId: e.store.id,
        buyerAddress: address,
        transactionBytes: prepared.transaction.bytes,
        legs: prepared.quotes[i]!.legs.map((l) => ({
          merchant: e.store.suiRecipient!,
          coin_type: l.coinType,
          amount: l.amount.toString(),
        })),
        quote: quoteToWire({ quote: prepared.quotes[i]!, expiresAtMs: prepared.expiresAtMs }),
        amount: e.pay,
        currency: e.session.currency,
        preparedAt: new Date(prepared.preparedAtMs),
        expiresAt: new Date(prepared.expiresAtMs),
      })),
    });
    for (const entry of entries) {
      // the checkout's own payment link exists too (its wallet page shows its share and points at the group's)
      await continueTokenOf(db, entry.session);
      const { superseded } = await recordAttempt(db, {
        checkoutId: entry.session.id,
        storeId: entry.store.id,
        rail: RAIL_HANDLER_IDS.crypto,
        providerRef: shareRef(entry.session.id),
        amount: entry.pay,
        currency: entry.session.currency,
        state: "requires_action",
      });
      // a replaced prepare cannot be recalled: cancel answers not_cancelable and the sweep keeps watching it
      await cancelSuperseded(db, entry.store, cryptoRail, superseded);
    }
    return {
      group_id: groupId,
      buyer_address: address,
      transaction: { bytes: prepared.transaction.bytes, digest },
      checkouts: entries.map((e, i) => ({
        store_slug: e.store.slug,
        checkout_id: e.session.id,
        total: e.pay,
        currency: e.session.currency,
        legs: legsToWire(prepared.quotes[i]!),
      })),
      quote: wholeQuote(prepared.quotes, prepared.expiresAtMs),
      expires_at: new Date(prepared.expiresAtMs).toISOString(),
      continue_url: groupPageUrl(ctx.baseUrl, pageToken),
    };
  };

  // the group's ONE reservation on that allowance, taken after every check and before anything is bound or stored
  // (the wallet pays after this); a failure below releases it
  {
    await reserveGroupSpend(db, {
      allowance,
      groupId,
      checkouts: entries.map((e) => ({
        store: e.store,
        amount: e.total,
        currency: e.session.currency,
        path: `$.checkouts[${e.index}]`,
      })),
      expiresAt: new Date(prepared.expiresAtMs + PREPARE_RESERVATION_GRACE_MS),
      now: ctx.now,
    });
  }
  try {
    return await storeCombined();
  } catch (error) {
    await releaseSpend(db, { groupId });
    throw error;
  }
};

export const prepareCombinedPayment = defineOperation({
  name: "prepare_combined_payment",
  title: "Prepare one crypto payment for several stores",
  description:
    "Crypto (svc.crypto) for 2 to 5 checkouts, one per store (each ready_for_complete, in a store accepting svc.crypto): quotes every checkout and builds ONE unsigned Sui transaction paying every merchant. Needs the buyer's bearer token ALONE (scope purchase:complete); buyer_address must be the wallet the buyer signed in with; unbound checkouts are bound to this buyer and agent (all or none). input_coin_type: 'auto' (default: stablecoins first then SUI, from the coins every store accepts) or one coin every store accepts. payment_mandate_id: the allowance to reserve on (else the newest active one allowing every store, or one sent as ap2.intent_mandate); none → mandate_required, over a limit spend_cap_exceeded, before anything is prepared. Returns group_id, transaction {bytes, digest}, each checkout's total and legs, the quote with expires_at, and continue_url (the group's wallet page: the buyer can sign there). After the wallet submitted it, call complete_checkout at EACH store with the same digest as the credential token (with ap2.checkout_mandate and ap2.intent_mandate): each checkout claims its own legs once.",
  errors: [
    "invalid_request",
    "store_not_found",
    "not_found",
    "checkout_not_modifiable",
    "rail_not_available",
    "unsupported_coin",
    "coupon_used",
    "coupon_exceeds_total",
    "insufficient_funds",
    "insufficient_liquidity",
    "payment_provider_error",
    "identity_required",
    "spend_cap_exceeded",
    "allowance_paused",
    "mandate_required",
    "mandate_invalid_signature",
    "mandate_expired",
    "mandate_revoked",
    "mandate_scope_mismatch",
  ],
  scope: "global",
  input: PrepareCombinedPaymentInputSchema,
  output: PreparedCombinedPaymentOutputSchema,
  // the account surface carries no idempotency key (seed §4: no meta there); a repeated call is a new prepare that
  // replaces the previous group's shares, exactly as a repeated payment-intent without a key does
  mutates: false,
  tier: "token",
  buyerScope: "purchase:complete",
  buyerOnly: true,
  mcp: {
    flat: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  run: async (ctx, input: PrepareCombinedPaymentInput) => ({ body: await prepareCombined(ctx, input) }),
});
