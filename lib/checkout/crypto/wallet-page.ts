import "server-only";

import { SANDBOX_WALLET_ADDRESS } from "@/lib/buyers/sandbox-wallet";
import type { BuyerAccount } from "@/lib/buyers/sign-in-buyer";
import { itemTitle } from "@/lib/catalog/item-title";
import { getDb, type Db } from "@/lib/config/db";
import { isOAuthTestMode } from "@/lib/config/env";
import { AppError, toAppError } from "@/lib/core/errors";
import { buyerPrincipalPrefix } from "@/lib/credentials/principal";
import type { CryptoPayment, Store } from "@/lib/generated/prisma/client";
import { currentIntentMandate, saveIntentMandate } from "@/lib/mandates/intent-mandates";
import { currentAttempt } from "@/lib/payments/attempts";
import { chainForNetwork } from "@/lib/payments/crypto/chain";
import {
  formatUnits,
  normalizeAddress,
  settlementNetwork,
  type SuiNetwork,
} from "@/lib/payments/crypto/coins";
import { owedBackOfCheckouts } from "@/lib/payments/crypto/owed-back";
import { isTransactionDigest } from "@/lib/payments/crypto/verify-digest";
import { cryptoSettingsOf } from "@/lib/stores/crypto-settings";
import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";

import { draftOf, PAGE_TOKEN, storedInstruments } from "../checkout-record";
import { finishPayment } from "../completion/finish-payment";
import { settleCrypto } from "../completion/settle-crypto";
import { firstImageOf, paymentPageDetailsOf, type PaymentPageDetails } from "../payment-page-details";
import { sealReceipt } from "../payment-receipt";
import { priceCheckout } from "../price-checkout";
import { networkFeeInFiat } from "./payment-page-fee";
import { cryptoRailOf, prepareForBuyer } from "./prepare-checkout-payment";
import { assertSignedByBuyer, digestOfBytes, executeSignedPayment } from "./wallet-signature";

// The buyer's wallet page: the same payment link as the hosted card page (/s/<slug>/pay/<token>), for a checkout
// that pays with svc.crypto. The link token finds the checkout; the signed-in buyer (wallet sign-in) is who pays:
// - a checkout bound to a buyer (B17) is paid by that buyer only; anyone else is refused;
// - an unbound checkout (a platform key created it and no buyer-bound call came yet) is paid by whoever signs in
//   with the link. Showing it or preparing a quote binds nothing. Paying it binds the checkout to the signed-in
//   buyer ALONE (`buyer:<id>`, no agent: no agent made this call), just before the signed bytes go to the chain, so
//   the order is the buyer's own purchase and My orders lists it; it is no agent's spend (DECISIONS B20). The
//   creating platform keeps its access (B17: the creator always reaches its checkout); another buyer-agent pair
//   gets not_found from then on, as for any bound checkout. The payment itself is tied to the signed-in wallet (the
//   prepared transaction's sender), which is what settlement checks.
// The wallet only SIGNS the fully resolved bytes we prepared; the server verifies the signature, executes them
// through the store's chain port (one node per store, the gRPC sandbox in test mode) and settles the digest through
// settleCrypto, the one path completion also takes. The buyer approved on this page, so no agent mandate is asked.

const PAYABLE = new Set(["ready_for_complete", "requires_escalation", "complete_in_progress"]);

const linkInclude = { store: true, lineItems: { orderBy: { position: "asc" } } } as const;

const findLink = async (db: Db, slug: string, token: string, now: Date) => {
  if (!PAGE_TOKEN.test(token)) return null;
  const session = await db.checkoutSession.findFirst({
    where: { continueToken: token, store: { slug } },
    include: linkInclude,
  });
  if (!session || !PAYABLE.has(session.status) || session.expiresAt <= now) return null;
  return session;
};

type Link = NonNullable<Awaited<ReturnType<typeof findLink>>>;

/** The checkout pays with svc.crypto: its current attempt is a crypto one, or (no attempt yet) it selected crypto. */
const paysWithCrypto = async (db: Db, session: Link): Promise<boolean> => {
  const attempt = await currentAttempt(db, session.id);
  if (attempt) return attempt.rail === RAIL_HANDLER_IDS.crypto;
  return storedInstruments(session.paymentInstruments).some(
    (i) => i.selected && i.handler_id === RAIL_HANDLER_IDS.crypto,
  );
};

/** Whether this payment link opens the wallet page (else it is the hosted card page's). */
export const isWalletPageLink = async (slug: string, token: string, now = new Date()): Promise<boolean> => {
  const db = await getDb();
  const session = await findLink(db, slug, token, now);
  return session ? paysWithCrypto(db, session) : false;
};

/** The principal of the buyer alone (no agent): the buyer paid on their own wallet page. */
export const buyerOwnPrincipalId = (buyerId: string): string => `buyer:${buyerId}`;

/** Who the checkout is bound to (B17): the binding, or the buyer-agent pair that created it. */
const bindingOf = (session: Link): string | null =>
  session.boundPrincipalId ?? (session.principalId.startsWith("buyer:") ? session.principalId : null);

type Access =
  | { kind: "signed_out" }
  | { kind: "refused" }
  /** `agent`: the OAuth client id of the agent the checkout is bound to (with this buyer), if any. */
  | { kind: "buyer"; buyer: BuyerAccount; address: string; agent: string | null };

const accessOf = (session: Link, viewer: BuyerAccount | null): Access => {
  if (!viewer) return { kind: "signed_out" };
  const address = normalizeAddress(viewer.suiAddress);
  if (!address) return { kind: "refused" };
  const binding = bindingOf(session);
  if (binding === null) return { kind: "buyer", buyer: viewer, address, agent: null };
  const prefix = buyerPrincipalPrefix(viewer.id);
  if (binding.startsWith(prefix)) {
    return { kind: "buyer", buyer: viewer, address, agent: binding.slice(prefix.length) };
  }
  // a principal of the buyer alone (written before agents were told apart) is still this buyer's
  if (binding === buyerOwnPrincipalId(viewer.id))
    return { kind: "buyer", buyer: viewer, address, agent: null };
  return { kind: "refused" };
};

/**
 * The payment link's checkout and the signed-in buyer who may pay it.
 * @throws AppError not_found (no such active crypto link), identity_required (not signed in), access_denied
 *   (the checkout is another buyer's)
 */
const openOrThrow = async (db: Db, slug: string, token: string, viewer: BuyerAccount | null, now: Date) => {
  const session = await findLink(db, slug, token, now);
  if (!session || !(await paysWithCrypto(db, session))) {
    throw new AppError("not_found", "This payment link is no longer active (paid, canceled or unknown)");
  }
  const access = accessOf(session, viewer);
  if (access.kind === "signed_out") {
    throw new AppError("identity_required", "Sign in with your Sui wallet to pay this checkout");
  }
  if (access.kind === "refused") {
    throw new AppError(
      "access_denied",
      "This checkout belongs to another buyer: sign in with the wallet of the buyer it was made for",
    );
  }
  return { session, access };
};

/**
 * The signed-in buyer pays an unbound checkout: it becomes theirs (bound to the buyer alone) before any money
 * moves. One conditional write, as every binding (lib/checkout/checkout-record.ts): when a buyer-bound call bound it
 * to another pair meanwhile, nothing is sent to the chain.
 * @throws AppError access_denied (another buyer's pair bound it meanwhile)
 */
const bindToPayingBuyerOrThrow = async (db: Db, session: Link, buyerId: string): Promise<void> => {
  if (bindingOf(session) !== null) return;
  const { count } = await db.checkoutSession.updateMany({
    where: { id: session.id, boundPrincipalId: null, NOT: { principalId: { startsWith: "buyer:" } } },
    data: { boundPrincipalId: buyerOwnPrincipalId(buyerId) },
  });
  if (count === 1) return;
  const now = await db.checkoutSession.findUnique({
    where: { id: session.id },
    select: { boundPrincipalId: true },
  });
  const bound = now?.boundPrincipalId ?? null;
  if (bound === buyerOwnPrincipalId(buyerId) || bound?.startsWith(buyerPrincipalPrefix(buyerId))) return;
  throw new AppError(
    "access_denied",
    "This checkout belongs to another buyer: sign in with the wallet of the buyer it was made for",
  );
};

type WireLeg = {
  coin_type: string;
  symbol: string;
  decimals: number;
  amount: string;
  fiat_amount: number;
  rate: { source: string };
};
type WireQuote = {
  mode: "auto" | "named";
  legs: WireLeg[];
  gas_reserve: { amount: string };
  expires_at: string;
};

export type WalletQuoteLeg = {
  symbol: string;
  coinType: string;
  /** Base units (decimal string) and the same formatted with the coin's decimals. */
  amount: string;
  amountText: string;
  decimals: number;
  fiatMinor: number;
  rateSource: string;
};

export type WalletQuote = {
  digest: string;
  /** The unsigned transaction (base64 BCS) the wallet signs as is. */
  bytes: string;
  /** "auto" or the symbol that pays alone. */
  coin: string;
  legs: WalletQuoteLeg[];
  gasReserveText: string;
  /** The gas reserve (SUI base units, decimal string): the most the network fee can be. */
  gasReserve: string;
  /** That reserve in minor units of the checkout's currency; null when SUI has no price now. */
  feeFiatMinor: number | null;
  expiresAt: string;
};

export type OwedBack = { reason: string; amounts: string[] };

export type WalletPage = {
  storeName: string;
  storeSlug: string;
  /** The store's country: the locale money and dates are shown in when the viewer's is unknown. */
  storeCountry: string;
  mode: "test" | "live";
  network: SuiNetwork;
  checkoutId: string;
  currency: string;
  lines: { title: string; quantity: number; amountMinor: number; imageUrl: string | null }[];
  totalMinor: number;
  breakdown: { type: string; amount: number; display_text?: string }[];
  /** The receipt email, ship-to address and shipping option of the checkout. */
  details: PaymentPageDetails;
  /** The moment this page was read (ISO): where the quote's countdown starts. */
  asOf: string;
  /** The store's accepted coins (our symbols), in its order. */
  coins: string[];
  access: { kind: "signed_out" } | { kind: "refused" } | { kind: "buyer"; address: string };
  /** Test mode and signed in with the sandbox wallet: the page signs with its fixed key. */
  testWallet: boolean;
  /** The current prepared payment of the signed-in buyer that can still be signed, if any. */
  quote: WalletQuote | null;
  /** Why no quote could be prepared (insufficient funds, unsupported coin…). */
  quoteError: { code: string; message: string } | null;
  /** A payment was submitted and is not final yet: never pay again. */
  pending: { digest: string } | null;
  owedBack: OwedBack[];
  /**
   * The checkout's current prepared payment is its share of a combined payment that can still be signed: the page
   * sends the buyer to the group's page (the bytes pay every store of the group, not this checkout alone).
   */
  group: { url: string } | null;
  /** The agent the checkout is bound to (with this buyer): the page offers it an allowance. */
  allowance: {
    agent: string;
    current: { id: string; perOrderMax: number | null; expiresAt: string } | null;
  } | null;
};

const quoteOf = async (
  row: CryptoPayment,
  store: Pick<Store, "mode" | "suiNetwork">,
  currency: string,
): Promise<WalletQuote> => {
  const quote = row.quote as unknown as WireQuote;
  const legs = quote.legs.map((l) => ({
    symbol: l.symbol,
    coinType: l.coin_type,
    amount: l.amount,
    amountText: formatUnits(l.amount, l.decimals),
    decimals: l.decimals,
    fiatMinor: l.fiat_amount,
    rateSource: l.rate.source,
  }));
  return {
    digest: row.preparedDigest,
    bytes: row.transactionBytes,
    coin: quote.mode === "named" && quote.legs[0] ? quote.legs[0].symbol : "auto",
    legs,
    gasReserveText: formatUnits(quote.gas_reserve.amount, 9),
    gasReserve: quote.gas_reserve.amount,
    feeFiatMinor: await networkFeeInFiat(store, BigInt(quote.gas_reserve.amount), currency, legs),
    expiresAt: row.expiresAt.toISOString(),
  };
};

const owedBackOf = async (db: Db, checkoutId: string): Promise<OwedBack[]> =>
  (await owedBackOfCheckouts(db, [checkoutId]))
    .filter((r) => r.status === "open")
    .map((r) => ({ reason: r.reason, amounts: r.amounts.map((a) => a.text) }));

/** The current crypto attempt's prepared payment, and whether a submitted digest is waiting on the chain. */
const currentPrepared = async (db: Db, checkoutId: string) => {
  const attempt = await currentAttempt(db, checkoutId);
  if (!attempt?.providerRef || attempt.rail !== RAIL_HANDLER_IDS.crypto) return null;
  const row = await db.cryptoPayment.findUnique({ where: { preparedDigest: attempt.providerRef } });
  return row ? { attempt, row } : null;
};

const isPending = (prepared: Awaited<ReturnType<typeof currentPrepared>>) =>
  prepared !== null && (prepared.attempt.state === "processing" || prepared.row.submittedDigest !== null);

/**
 * prepareForBuyer for the signed-in buyer's wallet. The prepared row must be this checkout's: byte-identical
 * transactions (same buyer, coins, amount and merchant) share one row, so a twin checkout's payment is never shown.
 * @throws AppError conflict, and prepareForBuyer's codes
 */
const prepareHere = async (
  db: Db,
  session: Link,
  address: string,
  coin: string | null,
  baseUrl: string,
  now: Date,
): Promise<CryptoPayment> => {
  const { row } = await prepareForBuyer(db, {
    store: session.store,
    session,
    buyerWallet: address,
    buyerAddress: address,
    coin,
    now,
    baseUrl,
  });
  if (row.checkoutId !== session.id) {
    throw new AppError(
      "conflict",
      "Another of your checkouts in this store has the very same payment prepared: pay or cancel that one first, or choose another coin",
    );
  }
  return row;
};

/**
 * What the wallet page shows for a link, or null when it is not an active crypto payment link. When the signed-in
 * buyer may pay and has no quote that can still be signed, one is prepared (auto coin) so the page shows it.
 */
export const getWalletPage = async (input: {
  slug: string;
  token: string;
  viewer: BuyerAccount | null;
  baseUrl: string;
  now?: Date;
}): Promise<WalletPage | null> => {
  const now = input.now ?? new Date();
  const db = await getDb();
  const session = await findLink(db, input.slug, input.token, now);
  if (!session || !(await paysWithCrypto(db, session))) return null;
  const { store } = session;
  const access = accessOf(session, input.viewer);
  const priced = await priceCheckout(db, store, draftOf(session), { now, frozen: true });
  const breakdown = (session.totals ?? []) as WalletPage["breakdown"];
  let prepared = await currentPrepared(db, session.id);
  let quoteError: WalletPage["quoteError"] = null;
  const usable = (p: typeof prepared, address: string) =>
    p !== null && p.row.buyerAddress === address && p.row.expiresAt > now && !p.row.settledDigest;
  if (access.kind === "buyer" && !isPending(prepared) && !usable(prepared, access.address)) {
    try {
      await prepareHere(db, session, access.address, null, input.baseUrl, now);
      prepared = await currentPrepared(db, session.id);
    } catch (error) {
      const appError = toAppError(error);
      if (appError.code === "internal_error") throw error;
      quoteError = { code: appError.code, message: appError.message };
    }
  }
  const allowed = access.kind === "buyer";
  const pending = allowed && isPending(prepared) ? prepared : null;
  const groupId = allowed && !pending && usable(prepared, access.address) ? prepared?.row.groupId : null;
  const group = groupId
    ? await db.cryptoPaymentGroup.findUnique({ where: { id: groupId }, select: { pageToken: true } })
    : null;
  return {
    storeName: store.name,
    storeSlug: store.slug,
    storeCountry: store.country,
    mode: store.mode,
    network: settlementNetwork(store),
    checkoutId: session.id,
    currency: session.currency,
    lines: priced.lines.map((l) => ({
      title: itemTitle(l.variant.product.title, l.variant.title),
      quantity: l.quantity,
      amountMinor: l.amount,
      imageUrl: firstImageOf(l.variant.product.media),
    })),
    details: paymentPageDetailsOf(session, priced.selectedOption),
    asOf: now.toISOString(),
    totalMinor:
      breakdown.find((t) => t.type === "total")?.amount ??
      priced.totals.find((t) => t.type === "total")?.amount ??
      0,
    breakdown: breakdown.filter((t) => t.type !== "total"),
    coins: cryptoSettingsOf(store).acceptedCoins.map((c) => c.symbol),
    access: allowed ? { kind: "buyer", address: access.address } : { kind: access.kind },
    testWallet:
      allowed && store.mode === "test" && isOAuthTestMode() && access.address === SANDBOX_WALLET_ADDRESS,
    quote:
      allowed && !pending && !group && prepared && usable(prepared, access.address)
        ? await quoteOf(prepared.row, store, session.currency)
        : null,
    group: group ? { url: `/account/pay/${group.pageToken}` } : null,
    quoteError,
    pending: pending ? { digest: pending.row.submittedDigest ?? pending.row.preparedDigest } : null,
    owedBack: allowed ? await owedBackOf(db, session.id) : [],
    allowance:
      allowed && access.agent
        ? {
            agent: access.agent,
            current: await currentIntentMandate(access.buyer.id, access.agent, now).then((m) =>
              m ? { id: m.id, perOrderMax: m.perOrderMax, expiresAt: m.expiresAt.toISOString() } : null,
            ),
          }
        : null,
  };
};

const COIN = /^(auto|[A-Za-z0-9_]{1,20})$/;

/**
 * A new quote and transaction for the signed-in buyer, in the coin they chose ("auto" or an accepted symbol).
 * @throws AppError not_found, identity_required, access_denied, invalid_request, and prepareForBuyer's codes
 *   (unsupported_coin, insufficient_funds, insufficient_liquidity, checkout_not_modifiable, payment_provider_error)
 */
export const prepareOnWalletPage = async (input: {
  slug: string;
  token: string;
  viewer: BuyerAccount | null;
  coin: string;
  baseUrl: string;
  now?: Date;
}): Promise<WalletQuote> => {
  const now = input.now ?? new Date();
  if (typeof input.coin !== "string" || !COIN.test(input.coin)) {
    throw new AppError("invalid_request", "Choose auto or one of the store's coins", { path: "$.coin" });
  }
  const db = await getDb();
  const { session, access } = await openOrThrow(db, input.slug, input.token, input.viewer, now);
  const pending = await currentPrepared(db, session.id);
  if (isPending(pending)) {
    throw new AppError(
      "checkout_not_modifiable",
      "A payment for this checkout is waiting for the chain: do not pay again; check its status instead",
    );
  }
  return quoteOf(
    await prepareHere(
      db,
      session,
      access.address,
      input.coin === "auto" ? null : input.coin,
      input.baseUrl,
      now,
    ),
    session.store,
    session.currency,
  );
};

export type WalletPaymentResult =
  | { kind: "order_placed"; orderId: string; checkoutId: string }
  | { kind: "pending"; digest: string }
  | { kind: "failed"; reason: string }
  /** Landed without room on the buyer's allowance for the agent: the buyer approves or declines it (B20). */
  | { kind: "awaiting_approval"; reason: string };

/**
 * The buyer's wallet signed the prepared bytes: check them and the signature, execute them through the store's
 * chain port and settle the digest. Only the bytes this checkout prepared for this buyer are executed (never
 * arbitrary transactions), so the server is no open relay. The same bytes again are harmless: the node answers the
 * stored result and settlement is single-use per digest, so it answers the same order.
 * @throws AppError not_found, identity_required, access_denied, invalid_request (bytes or signature; nothing is
 *   sent to the chain), checkout_not_modifiable (the quote expired or was replaced), payment_provider_error
 */
export const payOnWalletPage = async (input: {
  slug: string;
  token: string;
  viewer: BuyerAccount | null;
  transaction: string;
  signature: string;
  now?: Date;
}): Promise<WalletPaymentResult> => {
  const now = input.now ?? new Date();
  const db = await getDb();
  const digest = digestOfBytes(input.transaction);
  const row = await db.cryptoPayment.findUnique({ where: { preparedDigest: digest } });
  // a repeat after the order was placed: the link is closed, the same answer comes from the payment itself
  const done = row?.settledDigest
    ? await db.order.findUnique({ where: { checkoutId: row.checkoutId } })
    : null;
  if (row && done && input.viewer && row.buyerAddress === normalizeAddress(input.viewer.suiAddress)) {
    const store = await db.store.findUnique({ where: { id: row.storeId }, select: { slug: true } });
    if (store?.slug === input.slug)
      return { kind: "order_placed", orderId: done.id, checkoutId: row.checkoutId };
  }
  const { session, access } = await openOrThrow(db, input.slug, input.token, input.viewer, now);
  if (!row || row.checkoutId !== session.id || row.buyerAddress !== access.address) {
    throw new AppError(
      "invalid_request",
      "These are not the transaction bytes prepared for this checkout and your wallet: reload the page and sign the quote shown",
      { path: "$.transaction" },
    );
  }
  await assertSignedByBuyer(row.transactionBytes, input.signature, row.buyerAddress);
  // an earlier quote of this checkout may still be signed while it is valid: a replaced prepare that lands pays a
  // checkout without an order, and a second payment is recorded as owed back (B12)
  if (!row.submittedDigest && !row.settledDigest && row.expiresAt <= now) {
    throw new AppError(
      "checkout_not_modifiable",
      "The price expired before the payment was sent, so nothing was charged. Get a new price, then pay again.",
      { path: "$.transaction" },
    );
  }
  // every check passed: the checkout becomes the buyer's before the bytes reach the chain (a refusal binds nothing)
  await bindToPayingBuyerOrThrow(db, session, access.buyer.id);
  const store: Store = session.store;
  const rail = cryptoRailOf(store);
  const executed = await executeSignedPayment(
    chainForNetwork(settlementNetwork(store)),
    row.transactionBytes,
    input.signature,
    "Get a new price, then pay again.",
  );
  const settled = await settleCrypto(db, {
    store,
    checkoutId: session.id,
    digest: executed,
    rail,
    now,
    path: "$.transaction",
    // the buyer's own wallet signed it on our page: their word, whatever room the agent's allowance has
    approvedByBuyer: true,
  });
  return settled.kind === "order_placed" ? { ...settled, checkoutId: session.id } : settled;
};

/**
 * A wallet that can only sign and execute ran the prepared bytes itself and handed the page their digest. Nothing is
 * taken on the page's word: the digest is settled exactly as an agent's completion settles one (settleCrypto: the
 * rail reads the transaction on the chain, checks it pays this checkout's prepared legs and claims the digest once).
 * Only a digest of the bytes prepared for this checkout and this buyer is accepted.
 * @throws AppError not_found, identity_required, access_denied, invalid_request (not a digest, or not of this
 *   checkout's prepared payment for your wallet), payment_provider_error
 */
export const settleDigestOnWalletPage = async (input: {
  slug: string;
  token: string;
  viewer: BuyerAccount | null;
  digest: string;
  now?: Date;
}): Promise<WalletPaymentResult> => {
  const now = input.now ?? new Date();
  const db = await getDb();
  const digest = typeof input.digest === "string" ? input.digest : "";
  if (!isTransactionDigest(digest)) {
    throw new AppError("invalid_request", "The transaction digest is not a Sui digest (base58)", {
      path: "$.digest",
    });
  }
  const row = await db.cryptoPayment.findUnique({ where: { preparedDigest: digest } });
  const done = row?.settledDigest
    ? await db.order.findUnique({ where: { checkoutId: row.checkoutId } })
    : null;
  if (row && done && input.viewer && row.buyerAddress === normalizeAddress(input.viewer.suiAddress)) {
    const store = await db.store.findUnique({ where: { id: row.storeId }, select: { slug: true } });
    if (store?.slug === input.slug)
      return { kind: "order_placed", orderId: done.id, checkoutId: row.checkoutId };
  }
  const { session, access } = await openOrThrow(db, input.slug, input.token, input.viewer, now);
  if (!row || row.checkoutId !== session.id || row.buyerAddress !== access.address) {
    throw new AppError(
      "invalid_request",
      "This is not the digest of the payment prepared for this checkout and your wallet: reload the page",
      { path: "$.digest" },
    );
  }
  await bindToPayingBuyerOrThrow(db, session, access.buyer.id);
  const settled = await settleCrypto(db, {
    store: session.store,
    checkoutId: session.id,
    digest,
    rail: cryptoRailOf(session.store),
    now,
    path: "$.digest",
    ref: row.preparedDigest,
    approvedByBuyer: true,
  });
  return settled.kind === "order_placed" ? { ...settled, checkoutId: session.id } : settled;
};

/**
 * The page re-checks a payment that was not final: the rail reads the chain and a landed payment goes through the
 * one finisher (places the order, or records money owed back). No sign-in needed: it only finishes what landed.
 */
export const recheckWalletPayment = async (input: {
  slug: string;
  token: string;
  now?: Date;
}): Promise<WalletPaymentResult | { kind: "open" } | { kind: "gone" }> => {
  const now = input.now ?? new Date();
  const db = await getDb();
  const session = await findLink(db, input.slug, input.token, now);
  if (!session || !(await paysWithCrypto(db, session))) return { kind: "gone" };
  const prepared = await currentPrepared(db, session.id);
  if (!prepared || !isPending(prepared)) return { kind: "open" };
  const rail = cryptoRailOf(session.store);
  const ref = prepared.row.preparedDigest;
  let outcome;
  try {
    outcome = await rail.retrieve(session.store, ref);
  } catch (error) {
    // the node could not be asked: still pending, the next re-check (or the sweep) asks again
    if (toAppError(error).code !== "payment_provider_error") throw error;
    return { kind: "pending", digest: prepared.row.submittedDigest ?? ref };
  }
  if (outcome.kind === "processing") return { kind: "pending", digest: outcome.submitted ?? ref };
  if (outcome.kind === "declined") return { kind: "failed", reason: outcome.reason };
  if (outcome.kind !== "succeeded") return { kind: "open" };
  const finished = await finishPayment(db, session.store, session.id, ref, { now, rail });
  if (finished.result === "order_placed") {
    return { kind: "order_placed", orderId: finished.orderId, checkoutId: session.id };
  }
  if (finished.result === "awaiting_approval") return { kind: "awaiting_approval", reason: finished.reason };
  return { kind: "failed", reason: finished.reason };
};

export type WalletPayAnswer = {
  result: WalletPaymentResult | { kind: "open" } | { kind: "gone" };
  /** Once the order is placed: the link's receipt (the token is closed by then), where the page goes next. */
  paidUrl: string | null;
};

export const withPaidUrl = async (
  slug: string,
  token: string,
  result: WalletPayAnswer["result"],
): Promise<WalletPayAnswer> => ({
  result,
  paidUrl:
    result.kind === "order_placed"
      ? `/s/${encodeURIComponent(slug)}/pay/${encodeURIComponent(token)}?result=paid&receipt=${await sealReceipt(slug, result.checkoutId)}`
      : null,
});

export type AllowanceSaved = { id: string; expiresAt: string; perOrderMax: number | null };

/**
 * Keeps the allowance (intent mandate v2) the buyer signed on the page for the agent the checkout is bound to, so
 * that agent fetches it with get_intent_mandate and completes over the API.
 * @throws AppError not_found, identity_required, access_denied, invalid_request (no agent to sign for),
 *   mandate_invalid_signature, mandate_expired, mandate_scope_mismatch (another wallet, agent or merchant)
 */
export const saveAllowanceOnWalletPage = async (input: {
  slug: string;
  token: string;
  viewer: BuyerAccount | null;
  envelope: string;
  now?: Date;
}): Promise<AllowanceSaved> => {
  const now = input.now ?? new Date();
  const db = await getDb();
  const { access } = await openOrThrow(db, input.slug, input.token, input.viewer, now);
  if (!access.agent) {
    throw new AppError(
      "invalid_request",
      "This checkout is not bound to an agent: there is no agent to give an allowance to",
    );
  }
  if (typeof input.envelope !== "string" || input.envelope.length > 16_000) {
    throw new AppError("mandate_invalid_signature", "The allowance is not a signed envelope");
  }
  const saved = await saveIntentMandate({
    buyerId: access.buyer.id,
    buyerAddress: access.address,
    clientId: access.agent,
    envelope: input.envelope,
    now,
  });
  return { id: saved.id, expiresAt: saved.expiresAt.toISOString(), perOrderMax: saved.perOrderMax };
};

/** The page's server actions, handed to its client components. */
export type WalletPageActions = {
  prepare: (slug: string, token: string, coin: string) => Promise<WalletActionResult<WalletQuote>>;
  pay: (
    slug: string,
    token: string,
    transaction: string,
    signature: string,
  ) => Promise<WalletActionResult<WalletPayAnswer>>;
  /** A wallet that only signs and executes ran the prepared bytes: settle their digest. */
  settleDigest: (slug: string, token: string, digest: string) => Promise<WalletActionResult<WalletPayAnswer>>;
  recheck: (slug: string, token: string) => Promise<WalletActionResult<WalletPayAnswer>>;
  saveAllowance: (
    slug: string,
    token: string,
    envelope: string,
  ) => Promise<WalletActionResult<AllowanceSaved>>;
};

export type WalletActionResult<T> = { ok: true; value: T } | { ok: false; code: string; message: string };

/** A page action's answer: a value, or the AppError's code and message for the buyer (a bug still throws). */
export const walletAction = async <T>(run: () => Promise<T>): Promise<WalletActionResult<T>> => {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    const appError = toAppError(error);
    if (appError.code === "internal_error") throw error;
    return { ok: false, code: appError.code, message: appError.message };
  }
};
