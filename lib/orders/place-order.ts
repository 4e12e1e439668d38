import "server-only";

import { itemTitle } from "@/lib/catalog/item-title";
import {
  movedCheckoutRecord,
  movedCheckoutStatement,
  paidLinkHashOf,
  type CheckoutRecord,
} from "@/lib/checkout/checkout-record";
import { readFulfillmentState } from "@/lib/checkout/fulfillment";
import { moveCheckoutStatement } from "@/lib/checkout/state";
import type { Db } from "@/lib/config/db";
import { getBaseUrl } from "@/lib/config/env";
import { newId } from "@/lib/config/ids";
import {
  jsonParam,
  paramsAfter,
  queryWith,
  sql,
  statementOf,
  transaction,
  type Statement,
} from "@/lib/config/sql";
import { AppError } from "@/lib/core/errors";
import { redeemCoupon } from "@/lib/coupons/redeem";
import type { CheckoutStatus, Prisma, Store } from "@/lib/generated/prisma/client";
import { spenderOfCheckout, type Spender } from "@/lib/mandates/buyer-spend";
import { debitSpend } from "@/lib/mandates/spend-ledger";
import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";
import { UCP_VERSION } from "@/lib/ucp/version";
import { newOrderEventsInsert, type OrderEventKind } from "@/lib/webhooks/append-order-event";

import { buyerEmailOf } from "./confirmation-mail";
import { ORDER_INCLUDE, orderToWire, type OrderFulfillmentSnapshot, type OrderRecord } from "./to-wire";

// Turns a checkout into its order (the function completion calls: the Card payments issue #5 and the crypto rail
// call it after the payment succeeded). It is naturally idempotent (DECISIONS B8): a checkout that already has
// an order returns that order. Inventory is checked a last time here and taken in the same transaction as the
// order is written, so two completions can never sell the same last unit; the buyer's allowance is debited there
// too (lib/mandates/spend-ledger.ts).

/** Statuses from which an order may be placed (UCP §7.2: ready → in progress → completed; escalation hand-off). */
const PLACEABLE = ["ready_for_complete", "complete_in_progress", "requires_escalation"] as const;

export type PlaceOrderInput = {
  checkoutId: string;
  storeId: string;
  /** Inner handler id of the rail that paid ("svc.card" | "svc.crypto"). */
  handlerId: string;
  /** Provider reference (PaymentIntent id, transaction digest) of the payment; set → the order is placed paid. */
  paymentRef: string | null;
  now: Date;
  /** A combined payment's group: the order's debit consumes its share of the group's reservation. */
  spendGroupId?: string | null;
  /** The store, when the caller holds it already (read otherwise): the order events' snapshots name it. */
  store?: Store;
  /**
   * The caller has just looked and found no order: the transaction goes ahead without looking again (an order
   * placed meanwhile makes it fail on the checkout's status or the unique checkout_id, and that order is returned).
   */
  noOrderSeen?: boolean;
  /** Answer the checkout as the order's transaction completed it (`completedCheckout`), for a caller rendering it. */
  withCheckout?: boolean;
  /**
   * The buyer approved this payment themselves on the payment page although no allowance covers it (DECISIONS
   * B20): it is placed without a live reservation (and debited on one when the finisher reserved it anyway).
   */
  spendApproved?: boolean;
};

/**
 * A buyer's purchase (DECISIONS B20) with no live reservation on the buyer's allowance for it: nothing was
 * written (the transaction rolled back). The finisher reserves it (or refuses it) and places it again.
 */
export class SpendNotReserved extends Error {
  constructor(
    readonly checkoutId: string,
    readonly spender: Spender,
    /** The checkout's total, minor units of `currency`: what the reservation must cover. */
    readonly total: number,
    readonly currency: string,
  ) {
    super(`Checkout ${checkoutId} is a buyer's purchase with no live reservation on their allowance`);
    this.name = "SpendNotReserved";
  }
}

/**
 * The order; `completedCheckout`: the checkout as this call's transaction completed it (absent when the order was
 * placed before, by another call), for an answer that renders it without reading it back.
 */
export type PlacedOrder = OrderRecord & { completedCheckout?: CheckoutRecord };

/** What the order's transaction reads of the session (one statement). */
type PlacingCheckout = {
  id: string;
  status: CheckoutStatus;
  version: number;
  currency: string;
  buyer: Prisma.JsonValue | null;
  fulfillment: Prisma.JsonValue | null;
  totals: Prisma.JsonValue;
  principalId: string;
  boundPrincipalId: string | null;
  couponGrantId: string | null;
  continueToken: string | null;
  lineItems: { variantId: string; quantity: number; priceMinor: number }[];
  optionTitle: string | null;
  /** Whether the buyer's allowance ever held a reservation for this checkout (what its debit would consume). */
  reserved: boolean;
  /** Whether a reservation of the checkout (or of its combined payment) is held and not expired now. */
  heldLive: boolean;
  /** The variants whose stock the statement took for the lines, by id, with the titles the order's lines keep. */
  taken: Record<string, { title: string; productTitle: string }>;
};

const PLACEABLE_LIST = PLACEABLE.map((status) => `'${status}'`).join(", ");

// $1: the checkout; $2: its store; $3: now; $4: its combined payment's group, if any. The session with its lines, the title of its selected shipping option
// as the store lists it now (the destination's rates first, then the store's others of that code: a destination
// changed since), and its lines' stock taken when it may be placed: the conditional decrement is the last stock
// check (seed: inventory is checked again at completion), and it answers the titles the order's lines keep, so
// the variants are not read separately. One statement, as every completion sends it.
const READ_AND_TAKE = `
  WITH c AS (
    SELECT c.id, c.status::text AS status, c.version, c.currency, c.buyer, c.fulfillment, c.totals,
           c.continue_token AS "continueToken",
           c.principal_id AS "principalId", c.bound_principal_id AS "boundPrincipalId",
           c.coupon_grant_id AS "couponGrantId",
           COALESCE((SELECT json_agg(json_build_object('variantId', l.variant_id, 'quantity', l.quantity,
                                                       'priceMinor', l.price_minor) ORDER BY l.position)
                     FROM checkout_line_items l WHERE l.checkout_id = c.id), '[]'::json) AS "lineItems",
           (SELECT r.title FROM shipping_rates r
            WHERE r.store_id = c.store_id AND r.code = c.fulfillment ->> 'selectedOptionId'
            ORDER BY r.country IN (c.fulfillment #>> '{destination,address_country}', '*') DESC NULLS LAST,
                     r.position, r.id
            LIMIT 1) AS "optionTitle",
           EXISTS (SELECT 1 FROM spend_entries s
                   WHERE s.held_checkout_id = c.id OR (s.kind = 'reservation' AND s.checkout_id = c.id))
             AS reserved,
           EXISTS (SELECT 1 FROM spend_entries s
                   WHERE s.state = 'held' AND s.expires_at > $3
                     AND (s.held_checkout_id = c.id OR ($4::text IS NOT NULL AND s.held_group_id = $4)))
             AS "heldLive"
    FROM checkout_sessions c
    WHERE c.id = $1 AND c.store_id = $2),
  taken AS (
    UPDATE variants AS v SET inventory = v.inventory - l.quantity, updated_at = $3
    FROM (SELECT l.variant_id, CAST(sum(l.quantity) AS int) AS quantity
          FROM checkout_line_items l
          WHERE l.checkout_id IN (SELECT c.id FROM c WHERE c.status IN (${PLACEABLE_LIST}))
          GROUP BY l.variant_id) AS l,
         products AS p
    WHERE v.id = l.variant_id AND v.store_id = $2 AND v.inventory >= l.quantity AND p.id = v.product_id
    RETURNING v.id, v.title, p.title AS product_title)
  SELECT c.*,
         COALESCE((SELECT json_object_agg(t.id, json_build_object('title', t.title, 'productTitle', t.product_title))
                   FROM taken t), '{}'::json) AS taken
  FROM c`;

const NO_STATEMENT: Statement = { sql: "", args: [], argTypes: [] };

/**
 * The order's writes as CTEs of one statement (`placed`, `lines`, `events`): the order, its lines and its first
 * events, as `order` and `events` hold them. The database checks the lines' and events' references to the order
 * at the end of the statement.
 */
const orderWrites = (
  order: OrderRecord,
  events: readonly { kind: OrderEventKind; payload: Record<string, unknown> }[],
  param: (value: unknown) => string,
): string => {
  const lines = order.lineItems.map((l) => ({
    id: l.id,
    variant_id: l.variantId,
    title: l.title,
    price_minor: l.priceMinor,
    quantity: l.quantity,
    position: l.position,
  }));
  return `placed AS (
      INSERT INTO orders (id, store_id, checkout_id, principal_id, bound_principal_id, status, currency, buyer,
                          totals, fulfillment, handler_id, payment_ref, confirmation_mail, service_coupon_minor,
                          created_at, updated_at)
      VALUES (${param(order.id)}, ${param(order.storeId)}, ${param(order.checkoutId)}, ${param(order.principalId)},
              ${param(order.boundPrincipalId)}, CAST(${param(order.status)} AS order_status),
              ${param(order.currency)}, CAST(${param(jsonParam(order.buyer))} AS jsonb),
              CAST(${param(JSON.stringify(order.totals))} AS jsonb),
              CAST(${param(JSON.stringify(order.fulfillment))} AS jsonb), ${param(order.handlerId)},
              ${param(order.paymentRef)}, ${param(order.confirmationMail)}, ${param(order.serviceCouponMinor)},
              ${param(order.createdAt)}, ${param(order.updatedAt)})),
    lines AS (
      INSERT INTO order_line_items (id, order_id, variant_id, title, price_minor, quantity, position)
      SELECT l.id, ${param(order.id)}, l.variant_id, l.title, l.price_minor, l.quantity, l.position
      FROM jsonb_to_recordset(CAST(${param(JSON.stringify(lines))} AS jsonb))
        AS l(id text, variant_id text, title text, price_minor int, quantity int, position int)),
    events AS (${newOrderEventsInsert({ storeId: order.storeId, orderId: order.id, events }, param)})`;
};

const loadOrder = (db: Pick<Db, "order">, where: { checkoutId: string }) =>
  db.order.findUnique({ where, include: ORDER_INCLUDE });

/**
 * Places the order of a checkout at its stored prices and totals (the amounts that were charged) and marks the
 * checkout `completed`. The caller re-prices and charges before calling this.
 * @throws AppError not_found (no such checkout in the store), checkout_not_modifiable (status does not allow
 *   completion), out_of_stock (a line's stock no longer covers it; nothing is written)
 */
export const placeOrder = async (db: Db, input: PlaceOrderInput): Promise<PlacedOrder> => {
  if (!input.noOrderSeen) {
    const existing = await loadOrder(db, { checkoutId: input.checkoutId });
    if (existing) return existing;
  }
  // the store the order events' snapshots name, read before the transaction when the caller has none (on PGlite's
  // one connection a statement sent beside the open transaction would wait for it)
  const store = input.store ?? (await db.store.findUnique({ where: { id: input.storeId } })) ?? undefined;
  try {
    // on the driver adapter (lib/config/sql.ts): every completion runs this transaction, and Prisma's interactive
    // transaction with its model queries cost several times the statements' own work (docs/performance.md)
    return await transaction(async (tx) => {
      const [checkout] = await queryWith<PlacingCheckout>(
        tx,
        statementOf(READ_AND_TAKE, [input.checkoutId, input.storeId, input.now, input.spendGroupId ?? null]),
      );
      if (!checkout || !store)
        throw new AppError("not_found", `No checkout "${input.checkoutId}" in this store`);
      if (!(PLACEABLE as readonly string[]).includes(checkout.status)) {
        throw new AppError(
          "checkout_not_modifiable",
          `Checkout ${checkout.id} is ${checkout.status}: no order can be placed`,
          { path: "$.status" },
        );
      }
      // DECISIONS B20: a buyer's purchase is placed only on a live reservation of the buyer's allowance for its
      // agent (or the buyer's own approval of it), whoever finishes it — completion, webhook, hosted return, sweep.
      // A platform's unbound purchase reads nothing more: the spender comes from the columns read above.
      const spender = spenderOfCheckout(checkout);
      if (spender && !checkout.heldLive && !input.spendApproved) {
        const total =
          (checkout.totals as { type: string; amount: number }[] | null)?.find((t) => t.type === "total")
            ?.amount ?? 0;
        throw new SpendNotReserved(checkout.id, spender, total, checkout.currency);
      }
      // a line whose variant the statement could not take lacks stock now (the transaction rolls back whatever
      // the statement took of the other lines)
      const titles = checkout.lineItems.map((line, i) => {
        const taken = checkout.taken[line.variantId];
        if (!taken) {
          throw new AppError(
            "out_of_stock",
            `Line ${i} is no longer in stock for quantity ${line.quantity}`,
            {
              path: `$.line_items[${i}].quantity`,
            },
          );
        }
        return itemTitle(taken.productTitle, taken.title);
      });
      const { destination, selectedOptionId } = readFulfillmentState(checkout.fulfillment);
      const fulfillment: OrderFulfillmentSnapshot = {
        destination: destination as Record<string, string> | null,
        option: selectedOptionId
          ? { id: selectedOptionId, title: checkout.optionTitle ?? selectedOptionId }
          : null,
      };
      const checkoutTotal =
        (checkout.totals as { type: string; amount: number }[] | null)?.find((t) => t.type === "total")
          ?.amount ?? 0;
      // a service coupon (docs/decisions.md "Service coupons (B16)"): the card charged the total minus it; a crypto
      // payment paid what its prepare quoted — less than the total when the coupon was on the checkout then, and
      // the payable is the rest; a crypto payment of the whole total leaves the grant with the buyer, unredeemed
      const cryptoPaid =
        checkout.couponGrantId !== null && input.handlerId === RAIL_HANDLER_IDS.crypto
          ? ((
              await queryWith<{ amount: number }>(
                tx,
                sql`SELECT amount FROM payment_attempts WHERE checkout_id = ${checkout.id} AND is_current LIMIT 1`,
              )
            )[0]?.amount ?? checkoutTotal)
          : undefined;
      const redeems =
        checkout.couponGrantId !== null &&
        (input.handlerId === RAIL_HANDLER_IDS.card ||
          (input.handlerId === RAIL_HANDLER_IDS.crypto && cryptoPaid! < checkoutTotal));
      const move = moveCheckoutStatement({
        id: checkout.id,
        version: checkout.version,
        to: "completed",
        data: {
          continueToken: null,
          // the paid link stays a receipt (lib/checkout/payment-receipt.ts): its hash, never the live token
          ...(checkout.continueToken ? { paidLinkHash: paidLinkHashOf(checkout.continueToken) } : {}),
          ...(checkout.couponGrantId && !redeems ? { couponGrantId: null } : {}),
        },
      });
      const orderId = newId("order");
      // a redemption writes between the checkout's move and the order (its own statements, in the order they
      // always took); without one, the move, the order, its lines and its events are one statement
      let moved: unknown;
      const changed = () =>
        new AppError("conflict", `Checkout ${checkout.id} changed while placing its order`);
      let serviceCouponMinor = 0;
      if (redeems) {
        [moved] = input.withCheckout
          ? await queryWith(tx, movedCheckoutStatement(move))
          : (await tx.executeRaw(move)) === 1
            ? [null]
            : [];
        if (moved === undefined) throw changed();
        // DECISIONS B16: the grant is redeemed and the merchant's payable written with the order, or neither
        serviceCouponMinor = await redeemCoupon(tx, {
          grantId: checkout.couponGrantId!,
          storeId: input.storeId,
          orderId,
          currency: checkout.currency,
          total: checkoutTotal,
          ...(cryptoPaid !== undefined ? { paid: cryptoPaid } : {}),
          now: input.now,
        });
      }
      // the order (paid at once when the rail charged before it was placed) as it is written: a new order has no
      // fulfilment events or adjustments yet, its lines nothing fulfilled or canceled
      const created = new Date();
      const order: OrderRecord = {
        id: orderId,
        storeId: input.storeId,
        checkoutId: checkout.id,
        principalId: checkout.principalId,
        boundPrincipalId: checkout.boundPrincipalId,
        status: input.paymentRef ? "paid" : "placed",
        currency: checkout.currency,
        buyer: checkout.buyer,
        totals: checkout.totals ?? [],
        fulfillment: fulfillment as Prisma.JsonObject,
        handlerId: input.handlerId,
        paymentRef: input.paymentRef,
        // the buyer's confirmation mail commits with the order (sent by the worker: confirmation-mail.ts)
        confirmationMail: buyerEmailOf(checkout.buyer) ? "pending" : null,
        confirmationMailLockedUntil: null,
        serviceCouponMinor,
        createdAt: created,
        updatedAt: created,
        lineItems: checkout.lineItems.map((l, position) => ({
          id: newId("orderLine"),
          orderId,
          variantId: l.variantId,
          title: titles[position]!,
          priceMinor: l.priceMinor,
          quantity: l.quantity,
          quantityFulfilled: 0,
          quantityCanceled: 0,
          position,
        })),
        fulfillmentEvents: [],
        adjustments: [],
      };
      // the order events commit with the order (transactional outbox); each payload is the snapshot. A paid
      // order still tells its story in two events: placed (the snapshot before the payment), then paid
      const wire = { store, baseUrl: getBaseUrl(), ucpVersion: UCP_VERSION };
      const events = [
        { kind: "order.placed" as const, payload: orderToWire({ ...order, status: "placed" }, wire) },
        ...(input.paymentRef ? [{ kind: "order.paid" as const, payload: orderToWire(order, wire) }] : []),
      ];
      const writes = (param: (value: unknown) => string): string => orderWrites(order, events, param);
      if (redeems) {
        const { param, statement } = paramsAfter(NO_STATEMENT);
        await queryWith(tx, statement(`WITH ${writes(param)} SELECT 1 AS written`));
      } else if (input.withCheckout) {
        // the move answering the completed checkout, for a caller that renders it
        [moved] = await queryWith(
          tx,
          movedCheckoutStatement(move, (param) => `, ${writes(param)}`),
        );
      } else {
        const { param, statement } = paramsAfter(move);
        [moved] = await queryWith(
          tx,
          statement(`WITH c AS (${move.sql} RETURNING id), ${writes(param)} SELECT 1 AS moved FROM c`),
        );
      }
      // the order's writes ran beside a move that did not happen: thrown, they roll back with it
      if (moved === undefined) throw changed();
      // DECISIONS B6: the buyer's allowance is debited in the order's transaction (consuming the reservation
      // taken before the charge), so an order and its debit exist together or not at all. A checkout that no
      // allowance ever reserved for, paid alone, has nothing to debit: the ledger is not read (a card payment
      // without an intent mandate, most orders); the order is new, so no debit of it can exist yet either.
      if (checkout.reserved || input.spendGroupId) {
        await debitSpend(tx, {
          checkoutId: checkout.id,
          groupId: input.spendGroupId ?? null,
          orderId: order.id,
          originAmount: checkoutTotal,
          originCurrency: checkout.currency,
          storeId: input.storeId,
          now: input.now,
        });
      }
      return input.withCheckout && moved
        ? { ...order, completedCheckout: movedCheckoutRecord(moved) }
        : order;
    });
  } catch (error) {
    // a concurrent completion of the same checkout placed the order first (unique checkout_id): return it
    const placed = await loadOrder(db, { checkoutId: input.checkoutId });
    if (placed) return placed;
    throw error;
  }
};
