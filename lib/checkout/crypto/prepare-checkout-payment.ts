import "server-only";

import { randomBytes } from "node:crypto";

import { requireCapability } from "@/lib/agents/negotiate-agent";
import { getDb, type Db } from "@/lib/config/db";
import { execute, sql, transaction } from "@/lib/config/sql";
import { AppError, isAppError } from "@/lib/core/errors";
import { defineOperation, storeOf, type OperationContext } from "@/lib/core/operation";
import { couponOffOrThrow } from "@/lib/coupons/redeem";
import { buyerIdentityRequired } from "@/lib/credentials/principal";
import type { CryptoPayment, SpendEntry, Store } from "@/lib/generated/prisma/client";
import { buyerWalletOf, isNoRoom, mandateRequired } from "@/lib/mandates/buyer-spend";
import {
  allowanceForPrepare,
  allowanceFromEnvelope,
  PREPARE_RESERVATION_GRACE_MS,
  reserveCheckoutSpend,
} from "@/lib/mandates/spend-for-checkout";
import {
  extendHeldReservation,
  heldReservationOf,
  releaseSpend,
  reserveSpend,
} from "@/lib/mandates/spend-ledger";
import { cancelSuperseded, currentAttempt, recordAttempt } from "@/lib/payments/attempts";
import { normalizeAddress } from "@/lib/payments/crypto/coins";
import { cryptoRail, type CryptoRail } from "@/lib/payments/crypto/crypto-rail";
import type { PaymentRail } from "@/lib/payments/rail";
import { cryptoSettingsOf } from "@/lib/stores/crypto-settings";
import { PreparedPaymentOutputSchema } from "@/lib/ucp/output-schemas";
import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";

import { continueUrlOf, draftOf, loadCheckoutOrThrow, type CheckoutRecord } from "../checkout-record";
import { finishPayment } from "../completion/finish-payment";
import { offeredHandlers, priceCheckout } from "../price-checkout";
import { PrepareCheckoutPaymentInputSchema, type PrepareCheckoutPaymentInput } from "../schemas";
import { storedContinueToken } from "../state";

// payment-intent / prepare_checkout_payment (seed §4 "Crypto payment flow", DECISIONS B7, B12, B17): quote the live
// total and build the unsigned transaction the buyer's wallet signs. Buyer-bound: the buyer's bearer alone, and the
// first such call binds a platform-key checkout to that buyer and agent; buyer_address must be the wallet the buyer
// signed in with. A prepare is an attempt on the payment core: a later prepare makes a new current attempt and the
// previous one stays watched (a signed transaction cannot be recalled) — unless the previous prepared transaction
// already landed, in which case the checkout finishes with it and nothing new is prepared.

/** Statuses a crypto payment can be prepared in (the checkout has everything an order needs). */
const PREPARABLE = new Set(["ready_for_complete", "requires_escalation", "complete_in_progress"]);

export type PreparedForBuyer = {
  row: CryptoPayment;
  continueUrl: string;
};

/** The buyer-bound calls take the buyer's bearer alone (seed §5 rule 1: a key wins when both arrive). */
export const assertBuyerAlone = (ctx: OperationContext, what: string) => {
  if (ctx.principal.kind === "buyer") return ctx.principal;
  throw buyerIdentityRequired(what, ctx.principal);
};

/**
 * The store's crypto rail, or why it cannot take this payment.
 * @throws AppError rail_not_available
 */
export const cryptoRailOf = (store: Store): CryptoRail => {
  const settings = cryptoSettingsOf(store);
  if (!offeredHandlers(store).includes(RAIL_HANDLER_IDS.crypto) || !settings.enabled) {
    throw new AppError(
      "rail_not_available",
      `Store ${store.slug} does not accept svc.crypto: pay with svc.card`,
    );
  }
  if (!settings.payoutAddress || settings.acceptedCoins.length === 0) {
    throw new AppError(
      "rail_not_available",
      `Store ${store.slug} has not finished setting up svc.crypto (payout address and accepted coins): pay with svc.card`,
    );
  }
  return cryptoRail;
};

/** The checkout's live total (minor units) on the live catalog, or why it cannot be paid now. */
export const liveTotalOrThrow = async (
  db: Db,
  store: Store,
  session: CheckoutRecord,
  now: Date,
): Promise<number> => {
  if (session.status === "completed") {
    throw new AppError(
      "checkout_not_modifiable",
      `Checkout ${session.id} is completed: its order is paid. Do not pay again; read the order with get_checkout`,
      { path: "$.id" },
    );
  }
  if (!PREPARABLE.has(session.status)) {
    throw new AppError(
      "checkout_not_modifiable",
      `Checkout ${session.id} is ${session.status}: a payment can be prepared once it is ready_for_complete`,
      { path: "$.id" },
    );
  }
  const priced = await priceCheckout(db, store, draftOf(session), { now });
  const message = priced.messages.find((m) => m.type === "error");
  if (priced.status !== "ready_for_complete" || message) {
    throw new AppError(
      "checkout_not_modifiable",
      `Checkout ${session.id} is not ready to pay${message ? `: ${message.content}` : ""}; read it with get_checkout`,
      { path: "$.id" },
    );
  }
  return priced.totals.find((t) => t.type === "total")?.amount ?? 0;
};

/**
 * The landed-first rule (B12): if the current prepared payment's transaction is already on the chain, the
 * checkout finishes with it (the one finisher) and nothing new is prepared.
 * @throws AppError checkout_not_modifiable (it was paid: never prepare a second payment)
 */
export const finishIfLanded = async (
  db: Db,
  store: Store,
  session: CheckoutRecord,
  rail: PaymentRail,
  now: Date,
) => {
  const current = await currentAttempt(db, session.id);
  if (!current?.providerRef || current.rail !== RAIL_HANDLER_IDS.crypto) return;
  if (current.state !== "succeeded") {
    const outcome = await rail.retrieve(store, current.providerRef);
    if (outcome.kind === "processing") {
      throw new AppError(
        "checkout_not_modifiable",
        `A payment for checkout ${session.id} (transaction ${outcome.submitted ?? current.providerRef}) is not final on the chain yet: do not pay again; complete_checkout with that digest, or read the checkout`,
        { path: "$.id", details: { transaction_digest: outcome.submitted ?? current.providerRef } },
      );
    }
    if (outcome.kind !== "succeeded") return;
  }
  const finished = await finishPayment(db, store, session.id, current.providerRef, { now, rail });
  if (finished.result === "order_placed") {
    throw new AppError(
      "checkout_not_modifiable",
      `Checkout ${session.id} is already paid by its prepared transaction (order ${finished.orderId}): do not pay again`,
      { path: "$.id", details: { order_id: finished.orderId } },
    );
  }
};

/**
 * The normalized buyer_address, which must be the wallet the buyer signed in with (B17).
 * @throws AppError invalid_request at $.buyer_address
 */
export const buyerAddressOrThrow = (buyerWallet: string, buyerAddress: string): string => {
  const address = normalizeAddress(buyerAddress);
  if (!address) {
    throw new AppError("invalid_request", "buyer_address is not a Sui address (0x followed by hex digits)", {
      path: "$.buyer_address",
    });
  }
  if (address !== normalizeAddress(buyerWallet)) {
    throw new AppError(
      "invalid_request",
      "buyer_address must be the wallet the buyer signed in with (the address of their account)",
      { path: "$.buyer_address" },
    );
  }
  return address;
};

/** A continue token for the checkout's payment link (kept once set), so its wallet page exists. */
export const continueTokenOf = async (_db: Db, session: CheckoutRecord): Promise<string> =>
  storedContinueToken(session.id, session.continueToken ?? randomBytes(24).toString("base64url"));

/**
 * What a prepare that failed after reserving gives back: the reservation it took, never an earlier prepare's. That
 * prepare's transaction is still the checkout's current payment, which the wallet may sign at any time, and a payment
 * made under a valid reservation always completes (a buyer who paused the allowance since is not asked again).
 * `before`: the checkout's hold when the prepare began. Kept by the prepare (same allowance, covering the total), it
 * gets its expiry back; replaced (another allowance, a higher total), it is taken again on its allowance, within that
 * allowance's limits — without room, the earlier payment is judged where its order is placed, as any unheld one.
 */
const giveBackHold = async (db: Db, checkoutId: string, before: SpendEntry | null, now: Date) => {
  const held = await heldReservationOf({ checkoutId });
  if (before && held?.id === before.id) {
    await execute(
      sql`UPDATE spend_entries SET expires_at = ${before.expiresAt} WHERE id = ${before.id} AND state = 'held'`,
    );
    return;
  }
  await releaseSpend(db, { checkoutId });
  if (!before?.expiresAt || before.expiresAt <= now) return;
  try {
    await transaction((tx) =>
      reserveSpend(tx, {
        allowanceId: before.allowanceId,
        amount: before.amount,
        origin: { amount: before.originAmount, currency: before.originCurrency },
        scope: { checkoutId },
        storeId: before.storeId,
        expiresAt: before.expiresAt!,
        now,
      }),
    );
  } catch (error) {
    // no room (or a parallel prepare of this checkout holds it now): the prepare's own error is what the agent reads
    if (!isNoRoom(error) && !(isAppError(error) && error.code === "conflict")) throw error;
  }
};

/**
 * Prepares the buyer's crypto payment of a checkout (the operation below and the wallet page both call it).
 * @throws AppError invalid_request (buyer_address), rail_not_available, checkout_not_modifiable,
 *   unsupported_coin, insufficient_funds, insufficient_liquidity, payment_provider_error
 */
export const prepareForBuyer = async (
  db: Db,
  input: {
    store: Store;
    session: CheckoutRecord;
    /** The wallet the buyer signed in with (their account's address). */
    buyerWallet: string;
    buyerAddress: string;
    coin: string | null;
    now: Date;
    baseUrl: string;
    /**
     * The agent's prepare reserves the total on the buyer's allowance for that agent (DECISIONS B6): the one named,
     * else the newest active one allowing the store, else none (the completion then needs ap2.intent_mandate).
     * The buyer's own wallet page passes nothing: the buyer approves that payment themselves.
     */
    spend?: {
      buyerId: string;
      clientId: string;
      allowanceId: string | null;
      /** ap2.intent_mandate sent with the prepare: an allowance the service may not have stored yet. */
      intentMandate?: string;
    };
  },
): Promise<PreparedForBuyer> => {
  const { store, session, now } = input;
  const rail = cryptoRailOf(store);
  const address = buyerAddressOrThrow(input.buyerWallet, input.buyerAddress);
  const amount = await liveTotalOrThrow(db, store, session, now);
  // a service coupon on the checkout (B16): the wallet pays the total minus it; the allowance counts the total
  const pay = amount - (await couponOffOrThrow(db, session, amount));
  await finishIfLanded(db, store, session, rail, now);
  // the reservation comes before the transaction exists: the wallet pays after this, so the cap is checked first
  // DECISIONS B20: an agent's prepare needs an allowance that covers it (stored, or sent with the prepare): none →
  // mandate_required with where the buyer signs one, before any transaction is built
  const allowance = input.spend
    ? ((await allowanceForPrepare(db, {
        buyerId: input.spend.buyerId,
        clientId: input.spend.clientId,
        merchant: store.slug,
        id: input.spend.allowanceId,
        now,
      })) ??
      (input.spend.intentMandate
        ? await allowanceFromEnvelope(db, input.spend.intentMandate, {
            buyerAddress: address,
            agent: input.spend.clientId,
            merchant: store.slug,
            now,
          })
        : null))
    : null;
  if (input.spend && !allowance) throw mandateRequired("$.ap2.intent_mandate", input.baseUrl);
  // the checkout's hold when the prepare began (giveBackHold's `before`), as the first reservation read it
  let before: SpendEntry | null = null;
  const reserve = (expiresAt: Date) =>
    reserveCheckoutSpend(db, {
      allowance: allowance!,
      store,
      checkoutId: session.id,
      amount,
      currency: session.currency,
      expiresAt,
      now,
      onBefore: (held) => {
        before = held;
      },
    });
  const reservation = allowance
    ? await reserve(new Date(now.getTime() + PREPARE_RESERVATION_GRACE_MS))
    : null;
  // the wallet page link exists before the buyer needs it (continue_url of a checkout waiting for the buyer)
  const continueToken = await storedContinueToken(
    session.id,
    session.continueToken ?? randomBytes(24).toString("base64url"),
  );
  let prepared;
  try {
    prepared = await rail.prepare({
      store,
      checkoutId: session.id,
      amount: pay,
      currency: session.currency,
      credential: null,
      idempotencyKey: `acs-${session.id}-prepare`,
      returnUrl: continueUrlOf(store, input.baseUrl, continueToken),
      payer: { address, coin: input.coin },
    });
  } catch (error) {
    // nothing was prepared (no coins, no liquidity): the reservation made for it is given back at once
    if (allowance) await giveBackHold(db, session.id, before, now);
    throw error;
  }
  const { row } = prepared;
  const { superseded } = await recordAttempt(db, {
    checkoutId: session.id,
    storeId: store.id,
    rail: RAIL_HANDLER_IDS.crypto,
    providerRef: prepared.paymentRef,
    amount: pay,
    currency: session.currency,
    state: "requires_action",
    // the digest of bytes built just now: recorded straight away (a known one is looked up on the next round)
    likelyNew: true,
  });
  // a replaced prepare cannot be recalled: cancel answers not_cancelable and the sweep keeps watching it
  await cancelSuperseded(db, store, rail, superseded);
  // held until the quote runs out, plus a grace: a payment signed at the quote's last second still completes (the
  // reservation just taken is extended in one statement; reserved again when it is not there any more)
  if (reservation) {
    const expiresAt = new Date(row.expiresAt.getTime() + PREPARE_RESERVATION_GRACE_MS);
    if (!(await extendHeldReservation(reservation.id, expiresAt, now))) await reserve(expiresAt);
  }
  return { row, continueUrl: continueUrlOf(store, input.baseUrl, continueToken) };
};

/** The wire form of a prepared payment. */
export const preparedToWire = ({ row, continueUrl }: PreparedForBuyer) => ({
  checkout_id: row.checkoutId,
  buyer_address: row.buyerAddress,
  transaction: { bytes: row.transactionBytes, digest: row.preparedDigest },
  quote: row.quote,
  expires_at: row.expiresAt.toISOString(),
  continue_url: continueUrl,
});

export const prepareCheckoutPayment = defineOperation({
  name: "prepare_checkout_payment",
  title: "Prepare crypto payment",
  description:
    "Crypto (svc.crypto) step 1: quote the checkout's total and build the unsigned Sui transaction the buyer's wallet signs. Needs the buyer's bearer token ALONE (scope purchase:complete); buyer_address must be the wallet the buyer signed in with. input_coin_type: 'auto' (default: stablecoins first in the store's order, then SUI, up to 3 coins) or one coin (symbol from accepted_coins or full type) that pays alone. payment_mandate_id: the buyer's allowance to reserve the total on (list_my_allowances); else the newest active one allowing this store, or a signed one sent as ap2.intent_mandate; none → mandate_required, over its limits spend_cap_exceeded, before anything is prepared. Returns transaction {bytes (base64, sign and submit it), digest}, a readable quote with expires_at, and continue_url (the wallet page, where the buyer can sign instead). A later call replaces the prepared payment; after the buyer's wallet submitted it, call complete_checkout with the transaction digest as the credential token, ap2.checkout_mandate and ap2.intent_mandate.",
  errors: [
    "not_found",
    "checkout_not_modifiable",
    "spend_cap_exceeded",
    "mandate_required",
    "mandate_invalid_signature",
    "mandate_scope_mismatch",
    "mandate_revoked",
    "mandate_expired",
    "allowance_paused",
    "rail_not_available",
    "unsupported_coin",
    "coupon_used",
    "coupon_exceeds_total",
    "insufficient_funds",
    "insufficient_liquidity",
    "payment_provider_error",
    "identity_required",
  ],
  scope: "store",
  input: PrepareCheckoutPaymentInputSchema,
  output: PreparedPaymentOutputSchema,
  mutates: true,
  tier: "token",
  buyerScope: "purchase:complete",
  buyerOnly: true,
  mcp: {
    takesId: true,
    flat: true,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  },
  run: requireCapability("dev.ucp.shopping.checkout", async (ctx, input: PrepareCheckoutPaymentInput) => {
    const principal = assertBuyerAlone(ctx, "payment-intent");
    const db = await getDb();
    const store = storeOf(ctx);
    // the rates the prepare prices with, read fresh with the session rather than by a query of their own
    const session = await loadCheckoutOrThrow(db, ctx, input.id, { bindBuyer: true, withRates: true });
    const buyer = await buyerWalletOf(principal.buyerId);
    if (!buyer) throw new AppError("identity_required", "The bearer's buyer account no longer exists");
    const prepared = await prepareForBuyer(db, {
      store,
      session,
      buyerWallet: buyer.suiAddress,
      buyerAddress: input.buyer_address,
      coin: input.input_coin_type ?? null,
      now: ctx.now,
      baseUrl: ctx.baseUrl,
      spend: {
        buyerId: principal.buyerId,
        clientId: principal.clientId,
        allowanceId: input.payment_mandate_id ?? null,
        ...(input.ap2?.intent_mandate ? { intentMandate: input.ap2.intent_mandate } : {}),
      },
    });
    return { body: preparedToWire(prepared) };
  }),
});
