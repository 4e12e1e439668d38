import "server-only";

import { createHash } from "node:crypto";

import type { PricedVariant } from "@/lib/carts/price-lines";
import type { Db } from "@/lib/config/db";
import { paramsAfter, query, statementOf, type Statement } from "@/lib/config/sql";
import { AppError } from "@/lib/core/errors";
import {
  storeOf,
  type IdempotentWrite,
  type OperationContext,
  type OperationResult,
  type RecordAnswer,
} from "@/lib/core/operation";
import type { CheckoutStatus, Prisma, ShippingRate, Store } from "@/lib/generated/prisma/client";
import { orderPermalink } from "@/lib/orders/to-wire";
import { storeJsonOf, storeOfJson } from "@/lib/stores/get-store-or-throw";

import { readFulfillmentState } from "./fulfillment";
import {
  priceCheckout,
  type CheckoutDraft,
  type PricedCheckoutLine,
  type StoredInstrument,
  type StoredRates,
} from "./price-checkout";
import type { BuyerInput } from "./schemas";
import {
  isTerminal,
  moveCheckout,
  moveCheckoutNow,
  moveCheckoutStatement,
  type NewCheckoutLine,
  type SessionWrite,
  type Transition,
} from "./state";
import { checkoutToWire } from "./to-wire";

// Reading, rendering and writing a stored checkout session. Writes are optimistic: a write names the version it
// read and fails when another write got there first, and the caller re-reads and re-applies its change. No
// update is lost and no row lock is held across the pricing queries (works the same on PGlite and PostgreSQL).

/** UCP checkout.json: default TTL is 6 hours from creation. */
export const CHECKOUT_TTL_MS = 6 * 60 * 60 * 1000;

const INCLUDE = {
  lineItems: { orderBy: { position: "asc" } },
} as const satisfies Prisma.CheckoutSessionInclude;

export type CheckoutRecord = Prisma.CheckoutSessionGetPayload<{ include: typeof INCLUDE }> & {
  /** The lines' variants with their products, read in the same statement as the session (`readCheckout`). */
  variants?: readonly PricedVariant[];
  /** The store's shipping rates for the stored destination's country, read with the session when asked. */
  rates?: StoredRates;
  /** The store, read fresh with the session for the call that pays (`forPayment`). */
  store?: Store;
  /** Whether the checkout's card payment exists, read with the session for the call that pays (`forPayment`). */
  hasCardPayment?: boolean;
};

/** Thrown by saveCheckout when the row's version moved since it was read. */
export class VersionConflict extends Error {
  constructor() {
    super("checkout version conflict");
    this.name = "VersionConflict";
  }
}

type CheckoutRow = {
  id: string;
  store_id: string;
  cart_id: string | null;
  principal_id: string;
  status: CheckoutStatus;
  currency: string;
  buyer: Prisma.JsonValue | null;
  fulfillment: Prisma.JsonValue | null;
  discount_codes: string[];
  notes: string | null;
  totals: Prisma.JsonValue;
  continue_token: string | null;
  paid_link_hash: string | null;
  agent_profile: string | null;
  ucp_version: string;
  payment_instruments: Prisma.JsonValue;
  context: Prisma.JsonValue | null;
  attribution: Prisma.JsonValue | null;
  mandate_terms_history: Prisma.JsonValue;
  bound_principal_id: string | null;
  coupon_grant_id: string | null;
  version: number;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
  line_items: CheckoutRecord["lineItems"];
  variants: PricedVariant[];
  rates_country: string | null;
  rates: ShippingRate[] | null;
  store?: unknown;
  has_card_payment?: boolean | null;
};

/**
 * The columns of a CheckoutRecord over a row `c` of checkout_sessions, without the rates (each reader adds its
 * own `rates` column). No parameters, so the text can sit in any statement.
 */
const RECORD_COLUMNS = `
  c.id, c.store_id, c.cart_id, c.principal_id, c.status::text AS status, c.currency, c.buyer,
  c.fulfillment, c.discount_codes, c.notes, c.totals, c.continue_token, c.paid_link_hash,
  c.agent_profile, c.ucp_version,
  c.payment_instruments, c.context, c.attribution, c.mandate_terms_history, c.bound_principal_id,
  c.coupon_grant_id, c.version, c.expires_at, c.created_at, c.updated_at,
  COALESCE((SELECT json_agg(json_build_object('id', l.id, 'checkoutId', l.checkout_id,
                                              'variantId', l.variant_id, 'quantity', l.quantity,
                                              'priceMinor', l.price_minor, 'position', l.position)
                            ORDER BY l.position)
            FROM checkout_line_items l WHERE l.checkout_id = c.id), '[]'::json) AS line_items,
  COALESCE((SELECT json_agg(json_build_object('id', v.id, 'title', v.title, 'priceMinor', v.price_minor,
                                              'inventory', v.inventory, 'weightGrams', v.weight_grams,
                                              'product', json_build_object('title', p.title,
                                                                           'media', p.media,
                                                                           'tags', p.tags)))
            FROM variants v JOIN products p ON p.id = v.product_id
            WHERE v.store_id = c.store_id
              AND v.id IN (SELECT l.variant_id FROM checkout_line_items l WHERE l.checkout_id = c.id)),
           '[]'::json) AS variants,
  c.fulfillment #>> '{destination,address_country}' AS rates_country`;

// $1: with the rates; $2: the checkout; $3: its store; $4: the caller; $5: for the call that pays (the store fresh,
// whether the card payment exists)
const READ_CHECKOUT = `
  SELECT ${RECORD_COLUMNS},
         (SELECT COALESCE(json_agg(json_build_object('id', r.id, 'storeId', r.store_id, 'code', r.code,
                                                     'title', r.title, 'description', r.description,
                                                     'carrier', r.carrier, 'country', r.country,
                                                     'region', r.region, 'minWeightGrams', r.min_weight_grams,
                                                     'maxWeightGrams', r.max_weight_grams,
                                                     'minSubtotalMinor', r.min_subtotal_minor,
                                                     'maxSubtotalMinor', r.max_subtotal_minor,
                                                     'priceMinor', r.price_minor,
                                                     'freeOverMinor', r.free_over_minor,
                                                     'freeForTag', r.free_for_tag, 'minDays', r.min_days,
                                                     'maxDays', r.max_days, 'position', r.position)
                                   ORDER BY r.position, r.id), '[]'::json)
          FROM shipping_rates r
          WHERE $1 AND r.store_id = c.store_id
            AND r.country IN (c.fulfillment #>> '{destination,address_country}', '*')
          HAVING $1) AS rates,
         CASE WHEN $5 THEN ${storeJsonOf("c")} END AS store,
         CASE WHEN $5 THEN EXISTS (SELECT FROM card_payments p WHERE p.checkout_id = c.id) END AS has_card_payment
  FROM checkout_sessions c
  WHERE c.id = $2 AND c.store_id = $3
    AND (c.principal_id = $4 OR c.bound_principal_id = $4)
  LIMIT 1`;

const recordOf = (row: CheckoutRow): CheckoutRecord => ({
  id: row.id,
  storeId: row.store_id,
  cartId: row.cart_id,
  principalId: row.principal_id,
  status: row.status,
  currency: row.currency,
  buyer: row.buyer,
  fulfillment: row.fulfillment,
  discountCodes: row.discount_codes,
  notes: row.notes,
  totals: row.totals,
  continueToken: row.continue_token,
  paidLinkHash: row.paid_link_hash,
  agentProfile: row.agent_profile,
  ucpVersion: row.ucp_version,
  paymentInstruments: row.payment_instruments,
  context: row.context,
  attribution: row.attribution,
  mandateTermsHistory: row.mandate_terms_history,
  boundPrincipalId: row.bound_principal_id,
  couponGrantId: row.coupon_grant_id,
  version: row.version,
  expiresAt: row.expires_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  lineItems: row.line_items,
  variants: row.variants,
  ...(row.rates && row.rates_country ? { rates: { country: row.rates_country, rows: row.rates } } : {}),
  ...(row.store ? { store: storeOfJson(row.store) } : {}),
  ...(typeof row.has_card_payment === "boolean" ? { hasCardPayment: row.has_card_payment } : {}),
});

/**
 * The session `id` of the store that `principalId` created or is bound to, with its lines in order and their
 * variants as pricing reads them: one statement sent without Prisma's client (lib/config/sql.ts), as every call
 * of the checkout flow reads the session once or twice and prices it after; the same record as
 * `findFirst({ include: INCLUDE })` and the same variants as pricing's own read (asserted in
 * e2e/api/checkout/checkout-record.test.ts).
 */
export const readCheckout = async (
  storeId: string,
  id: string,
  principalId: string,
  { withRates = false, forPayment = false }: { withRates?: boolean; forPayment?: boolean } = {},
): Promise<CheckoutRecord | null> => {
  const [row] = await query<CheckoutRow>(
    statementOf(READ_CHECKOUT, [withRates, id, storeId, principalId, forPayment]),
  );
  return row ? recordOf(row) : null;
};

/**
 * `move` (moveCheckoutStatement) answering the session as it moved it, as readCheckout reads it (without rates):
 * the order's transaction hands the completed checkout to the completion's answer, which need not read it again.
 * Its lines' variants are read by the same statement, so they show what earlier statements of the transaction
 * wrote (the stock the order took). No row: the move did not happen. `alongside`: more CTEs of the same statement
 * (`, name AS (…)`, each run whether or not the move happened), their values bound through `param`.
 */
export const movedCheckoutStatement = (
  move: Statement,
  alongside?: (param: (value: unknown) => string) => string,
): Statement => {
  const { param, statement } = paramsAfter(move);
  const more = alongside?.(param) ?? "";
  return statement(
    `WITH c AS (${move.sql} RETURNING *)${more} SELECT ${RECORD_COLUMNS}, NULL::json AS rates FROM c`,
  );
};

/** The record of a row that movedCheckoutStatement answered. */
export const movedCheckoutRecord = (row: unknown): CheckoutRecord => recordOf(row as CheckoutRow);

/**
 * The caller's checkout in this store. Another store's or another principal's checkout is `not_found` (ids leak
 * nothing across tenants). An open session past `expires_at` is canceled on read (UCP §7.2: expiry cancels).
 * @throws AppError not_found
 */
export const loadCheckoutOrThrow = async (
  db: Db,
  ctx: OperationContext,
  id: string,
  {
    bindBuyer = false,
    withRates = false,
    forPayment = false,
  }: {
    bindBuyer?: boolean;
    /** Read the store's shipping rates for the stored destination with the session (fresh, for pricing). */
    withRates?: boolean;
    /**
     * Read with the session what the call that pays needs (the completion, which took its store from the row
     * cache until then): the store, fresh (`store`), and whether the card payment exists (`hasCardPayment`). A
     * session the call has just bound to its buyer is read back the same way.
     */
    forPayment?: boolean;
  } = {},
): Promise<CheckoutRecord> => {
  const me = ctx.principal.id;
  const storeId = storeOf(ctx).id;
  let session = await readCheckout(storeId, id, me, { withRates, forPayment });
  if (!session && bindBuyer && ctx.principal.kind === "buyer")
    session = await bindToBuyer(db, ctx, id, { withRates, forPayment });
  if (!session) throw new AppError("not_found", `No checkout "${id}" in this store`, { path: "$.id" });
  if (session.ucpVersion !== ctx.ucpVersion) {
    // one checkout, one version: its order's webhooks go out in it, and a 2026-04-08 checkout may hold what an
    // older version cannot carry (docs/ucp-versions.md §1.3)
    throw new AppError(
      "version_mismatch",
      `Checkout ${id} was created at UCP ${session.ucpVersion}; this request speaks ${ctx.ucpVersion}: continue ` +
        `it at ${session.ucpVersion} (the ucp.version of the platform profile you send) or start a new checkout`,
      { path: "$.id" },
    );
  }
  if (!isTerminal(session.status) && session.expiresAt <= ctx.now) {
    await moveCheckout(db, { id, version: session.version, to: "canceled" });
    return loadCheckoutOrThrow(db, ctx, id);
  }
  return session;
};

/**
 * Buyer binding (DECISIONS B17): a checkout a platform key created is unbound until the first buyer-bound call
 * (crypto payment-intent or completion) binds it to that buyer AND agent; from then on any other pair gets
 * not_found, the creating platform keeps its access. One conditional write, so two agents racing to bind the
 * same checkout cannot both win. A bearer's own checkout is bound from creation (its creator is the pair). The
 * session is read back as the caller asked to read it (with its rates, for the call that pays).
 */
const bindToBuyer = async (
  db: Db,
  ctx: OperationContext,
  id: string,
  reading: { withRates: boolean; forPayment: boolean },
): Promise<CheckoutRecord | null> => {
  const { count } = await db.checkoutSession.updateMany({
    where: {
      id,
      storeId: storeOf(ctx).id,
      boundPrincipalId: null,
      NOT: { principalId: { startsWith: "buyer:" } },
    },
    data: { boundPrincipalId: ctx.principal.id },
  });
  if (count === 0) return null;
  return readCheckout(storeOf(ctx).id, id, ctx.principal.id, reading);
};

/**
 * Several checkouts to be bound together (prepare_combined_payment: all or nothing, B17): each is the caller's
 * already, or unbound and bindable (a platform-key checkout no buyer-bound call has bound yet). Reads only: the
 * binding itself is bindCheckoutsOrThrow, once everything else has been checked.
 * @throws AppError not_found (another pair's checkout, or no such checkout in that store)
 */
export const peekBindableCheckoutOrThrow = async (
  db: Db,
  ctx: OperationContext,
  id: string,
  path: string,
): Promise<{ session: CheckoutRecord; needsBinding: boolean }> => {
  const storeId = storeOf(ctx).id;
  try {
    return { session: await loadCheckoutOrThrow(db, ctx, id), needsBinding: false };
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== "not_found") throw error;
  }
  const session = await db.checkoutSession.findFirst({
    where: { id, storeId, boundPrincipalId: null, NOT: { principalId: { startsWith: "buyer:" } } },
    include: INCLUDE,
  });
  if (!session || ctx.principal.kind !== "buyer") {
    throw new AppError("not_found", `No checkout "${id}" in this store`, { path });
  }
  if (!isTerminal(session.status) && session.expiresAt <= ctx.now) {
    await moveCheckout(db, { id, version: session.version, to: "canceled" });
    return { session: { ...session, status: "canceled" }, needsBinding: true };
  }
  return { session, needsBinding: true };
};

/**
 * Binds unbound checkouts to the caller's buyer-and-agent pair, all or nothing (B17): when another pair bound one
 * of them first, the ones bound here are released again and nothing stays bound.
 * @throws AppError not_found (at `paths[i]`, the checkout another pair bound meanwhile)
 */
export const bindCheckoutsOrThrow = async (
  db: Db,
  principalId: string,
  checkouts: readonly { id: string; path: string }[],
): Promise<void> => {
  const bound: string[] = [];
  for (const checkout of checkouts) {
    const { count } = await db.checkoutSession.updateMany({
      where: { id: checkout.id, boundPrincipalId: null, NOT: { principalId: { startsWith: "buyer:" } } },
      data: { boundPrincipalId: principalId },
    });
    if (count === 1) {
      bound.push(checkout.id);
      continue;
    }
    if (bound.length > 0) {
      await db.checkoutSession.updateMany({
        where: { id: { in: bound }, boundPrincipalId: principalId },
        data: { boundPrincipalId: null },
      });
    }
    throw new AppError("not_found", `No checkout "${checkout.id}" in this store`, { path: checkout.path });
  }
};

export const storedInstruments = (value: unknown): StoredInstrument[] =>
  Array.isArray(value) ? (value as StoredInstrument[]) : [];

/** The draft a stored session represents (lines with their stored unit prices). */
export const draftOf = (session: CheckoutRecord): CheckoutDraft => ({
  lines: session.lineItems.map((l) => ({
    id: l.id,
    variantId: l.variantId,
    quantity: l.quantity,
    frozenPriceMinor: l.priceMinor,
  })),
  buyer: (session.buyer as BuyerInput | null) ?? null,
  fulfillment: readFulfillmentState(session.fulfillment),
  discountCodes: session.discountCodes,
  instruments: storedInstruments(session.paymentInstruments),
  ...(session.variants ? { variants: session.variants } : {}),
  ...(session.rates ? { rates: session.rates } : {}),
});

/**
 * Prices a stored session (frozen when terminal; issue #5's states keep their status) and renders it. `forRead`:
 * the call changes nothing (get_checkout), so the shipping rates may come from the row cache, as they may for a
 * frozen session, whose totals are the stored ones.
 */
export const renderCheckout = async (
  db: Db,
  ctx: OperationContext,
  session: CheckoutRecord,
  known: { orderId?: string; forRead?: boolean } = {},
) => {
  const store = storeOf(ctx);
  const open = session.status === "incomplete" || session.status === "ready_for_complete";
  // only a completed session has an order (placeOrder sets both in one transaction): no query otherwise, nor
  // when the caller just placed it
  const [priced, order] = await Promise.all([
    priceCheckout(db, store, draftOf(session), {
      now: ctx.now,
      frozen: isTerminal(session.status),
      storedTotals: session.totals,
      ratesForRead: known.forRead === true || isTerminal(session.status),
      ...(open ? {} : { status: session.status }),
    }),
    session.status !== "completed"
      ? Promise.resolve(null)
      : known.orderId
        ? Promise.resolve({ id: known.orderId })
        : db.order.findUnique({ where: { checkoutId: session.id }, select: { id: true } }),
  ]);
  return checkoutToWire(
    { ...session, paymentInstruments: storedInstruments(session.paymentInstruments) },
    priced,
    {
      store,
      baseUrl: ctx.baseUrl,
      ucpVersion: ctx.ucpVersion,
      order: order ? { id: order.id, permalinkUrl: orderPermalink(store, ctx.baseUrl, order.id) } : null,
      escalation: await escalationOf(db, store, ctx.baseUrl, session),
    },
  );
};

/** issue #5: the hosted payment link of a session in requires_escalation (dropped once it is terminal). */
export const continueUrlOf = (store: { slug: string }, baseUrl: string, token: string): string =>
  `${baseUrl}/s/${store.slug}/pay/${token}`;

const escalationOf = async (
  db: Db,
  store: { slug: string },
  baseUrl: string,
  session: Pick<CheckoutRecord, "id" | "status" | "continueToken" | "paymentInstruments">,
) => {
  if (session.status !== "requires_escalation" || !session.continueToken) return null;
  const attempt = await db.paymentAttempt.findFirst({
    where: { checkoutId: session.id, isCurrent: true },
    select: { rail: true, state: true },
  });
  if (attempt?.state === "awaiting_approval") {
    // DECISIONS B20: the buyer's crypto payment landed but their allowance for this agent had no room for it
    return {
      continueUrl: continueUrlOf(store, baseUrl, session.continueToken),
      code: "buyer_approval_required",
      content:
        "The buyer's payment arrived, but their allowance for this agent does not cover it: no order is placed unless the buyer approves it at continue_url (declined or left unapproved for 24 hours, it is owed back to the buyer). Do not pay again; send the buyer to continue_url, then read the checkout",
    };
  }
  const selected = storedInstruments(session.paymentInstruments).find((i) => i.selected);
  if (attempt?.rail === "svc.crypto" || (!attempt && selected?.handler_id === "svc.crypto")) {
    return {
      continueUrl: continueUrlOf(store, baseUrl, session.continueToken),
      code: "payment_required",
      content:
        "The buyer must sign the crypto payment with their wallet: send them to continue_url (the wallet page), then read the checkout",
    };
  }
  const payment = await db.cardPayment.findUnique({ where: { checkoutId: session.id } });
  const threeDs = payment?.status === "requires_action";
  return {
    continueUrl: continueUrlOf(store, baseUrl, session.continueToken),
    code: threeDs ? "requires_3ds" : "payment_required",
    content: threeDs
      ? "The card needs 3-D Secure authentication: send the buyer to continue_url to finish the payment"
      : "No card credential was sent: send the buyer to continue_url to enter a card",
  };
};

/** A stored line's columns but its checkout (the row a new session is inserted with: lib/checkout/state.ts). */
export type LineRow = NewCheckoutLine;

/** The line rows a priced checkout stores: ids, variants, quantities and the unit prices charged, in order. */
export const lineRowsOf = (lines: readonly PricedCheckoutLine[]): LineRow[] =>
  lines.map((l, position) => ({
    id: l.id,
    variantId: l.variant.id,
    quantity: l.quantity,
    priceMinor: l.unitPrice,
    position,
  }));

/** True when `rows` are exactly the stored line rows (same ids, variants, quantities, prices, order). */
export const sameLines = (stored: CheckoutRecord["lineItems"], rows: readonly LineRow[]): boolean =>
  stored.length === rows.length &&
  rows.every((r, i) => {
    const s = stored[i];
    return (
      s !== undefined &&
      s.id === r.id &&
      s.variantId === r.variantId &&
      s.quantity === r.quantity &&
      s.priceMinor === r.priceMinor &&
      s.position === r.position
    );
  });

/**
 * Writes a session's new state if its version is still `version`, replacing its lines when they changed, and
 * bumps the version. Without line changes it is one conditional UPDATE (no transaction round trips), with
 * `andThen` written in the same statement when given; the answer says whether it was (never with new lines).
 * @throws VersionConflict when another write came first (nothing is written then), or when `andThen` wrote
 *   nothing although the session moved (a racing writer's row was there first: the caller reads it all again).
 */
export const saveCheckout = async (
  db: Db,
  {
    id,
    version,
    status,
    data,
    lines,
    andThen,
  }: {
    id: string;
    version: number;
    /** The status the session moves to (through the state machine). */
    status: CheckoutStatus;
    data: SessionWrite;
    /** The new line rows, or null when the stored rows are still exact. */
    lines: LineRow[] | null;
    /** A write made with the move, in its statement, only when it moves (moveCheckoutStatement). */
    andThen?: Parameters<typeof moveCheckoutStatement>[2];
  },
  /**
   * The call's idempotency key when it is "in-write": the write stores `answer` (update_checkout), or, with no
   * answer, claims the key (complete_checkout's hold).
   */
  idempotent?: { handle: IdempotentWrite; answer: OperationResult | null },
): Promise<{ andThen: boolean }> => {
  if (lines === null) {
    // every update and every completion's hold: sent without Prisma's client
    const transition = { id, version, to: status, data };
    const build = (record: RecordAnswer | null) => moveCheckoutStatement(transition, record, andThen);
    const count = !idempotent
      ? await moveCheckoutNow(transition, andThen)
      : idempotent.answer
        ? await idempotent.handle.write(build, idempotent.answer)
        : await idempotent.handle.claimWith(build);
    if (count !== 1) throw new VersionConflict();
    return { andThen: andThen !== undefined };
  }
  // new lines take a transaction of their own, which cannot carry the key's record: the key is claimed before it
  await idempotent?.handle.claim();
  await db.$transaction(async (tx) => {
    // the same columns through the transaction's client (the callers' values are JSON values, never null)
    const count = await moveCheckout(tx, { id, version, to: status, data: data as Transition["data"] });
    if (count !== 1) throw new VersionConflict();
    await tx.checkoutLineItem.deleteMany({ where: { checkoutId: id } });
    await insertLines(tx, id, lines);
  });
  return { andThen: false };
};

/**
 * Writes a checkout's lines. One line (most checkouts) goes through create: Prisma reuses create's compiled plan
 * and compiles createMany's on every call (docs/decisions.md "Plans Prisma can reuse").
 */
export const insertLines = async (
  db: Pick<Prisma.TransactionClient, "checkoutLineItem">,
  checkoutId: string,
  lines: readonly LineRow[],
): Promise<void> => {
  const data = lines.map((l) => ({ ...l, checkoutId }));
  const [only] = data;
  if (only && data.length === 1) await db.checkoutLineItem.create({ data: only, select: { id: true } });
  else await db.checkoutLineItem.createMany({ data });
};

/** The shape of a payment link's token (a checkout's continue token, a combined payment's page token, a receipt's
 * reference): checked before any lookup, so a malformed one never reaches the database. */
export const PAGE_TOKEN = /^[A-Za-z0-9_-]{20,64}$/;

/** What a checkout keeps of its payment link's token once the order is placed (`paidLinkHash`): hex SHA-256. */
export const paidLinkHashOf = (token: string): string => createHash("sha256").update(token).digest("hex");
