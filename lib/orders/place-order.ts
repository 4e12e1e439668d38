import "server-only";

import { itemTitle } from "@/lib/catalog/item-title";
import { readFulfillmentState } from "@/lib/checkout/fulfillment";
import { moveCheckout } from "@/lib/checkout/state";
import type { Db } from "@/lib/config/db";
import { getBaseUrl } from "@/lib/config/env";
import { newId } from "@/lib/config/ids";
import { AppError } from "@/lib/core/errors";
import { redeemCoupon } from "@/lib/coupons/redeem";
import type { Store } from "@/lib/generated/prisma/client";
import { debitSpend } from "@/lib/mandates/spend-ledger";
import { ratesForCountry } from "@/lib/stores/shipping-rates";
import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";
import { UCP_VERSION } from "@/lib/ucp/version";
import { appendNewOrderEvents } from "@/lib/webhooks/append-order-event";

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
};

export type PlacedOrder = OrderRecord;

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
  try {
    return await db.$transaction(async (tx) => {
      const checkout = await tx.checkoutSession.findFirst({
        where: { id: input.checkoutId, storeId: input.storeId },
        include: { lineItems: { orderBy: { position: "asc" } } },
      });
      if (!checkout) throw new AppError("not_found", `No checkout "${input.checkoutId}" in this store`);
      if (!(PLACEABLE as readonly string[]).includes(checkout.status)) {
        throw new AppError(
          "checkout_not_modifiable",
          `Checkout ${checkout.id} is ${checkout.status}: no order can be placed`,
          { path: "$.status" },
        );
      }
      // the conditional decrement is the last stock check (seed: inventory is checked again at completion), and
      // it answers the titles the order's lines keep, so the variants are not read separately
      const titles: string[] = [];
      for (const [i, line] of checkout.lineItems.entries()) {
        const [taken] = await tx.$queryRaw<{ title: string; product_title: string }[]>`
          UPDATE variants AS v SET inventory = v.inventory - ${line.quantity}, updated_at = ${input.now}
          FROM products AS p
          WHERE v.id = ${line.variantId} AND v.store_id = ${input.storeId} AND v.inventory >= ${line.quantity}
            AND p.id = v.product_id
          RETURNING v.title, p.title AS product_title`;
        if (!taken) {
          throw new AppError(
            "out_of_stock",
            `Line ${i} is no longer in stock for quantity ${line.quantity}`,
            {
              path: `$.line_items[${i}].quantity`,
            },
          );
        }
        titles.push(itemTitle(taken.product_title, taken.title));
      }
      const { destination, selectedOptionId } = readFulfillmentState(checkout.fulfillment);
      // the option's title as pricing showed it: the rates of the destination, from the row cache (loaded in this
      // transaction when absent: on PGlite's one connection a read beside the open transaction would wait for it)
      const country = destination?.address_country;
      const rate = selectedOptionId
        ? ((country
            ? (await ratesForCountry(tx, input.storeId, country, { forRead: true })).find(
                (r) => r.code === selectedOptionId,
              )
            : undefined) ??
          (await tx.shippingRate.findFirst({
            where: { storeId: input.storeId, code: selectedOptionId },
            select: { title: true },
          })))
        : null;
      const fulfillment: OrderFulfillmentSnapshot = {
        destination: destination as Record<string, string> | null,
        option: selectedOptionId ? { id: selectedOptionId, title: rate?.title ?? selectedOptionId } : null,
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
              await tx.paymentAttempt.findFirst({
                where: { checkoutId: checkout.id, isCurrent: true },
                select: { amount: true },
              })
            )?.amount ?? checkoutTotal)
          : undefined;
      const redeems =
        checkout.couponGrantId !== null &&
        (input.handlerId === RAIL_HANDLER_IDS.card ||
          (input.handlerId === RAIL_HANDLER_IDS.crypto && cryptoPaid! < checkoutTotal));
      const count = await moveCheckout(tx, {
        id: checkout.id,
        version: checkout.version,
        to: "completed",
        data: {
          continueToken: null,
          ...(checkout.couponGrantId && !redeems ? { couponGrantId: null } : {}),
        },
      });
      if (count !== 1)
        throw new AppError("conflict", `Checkout ${checkout.id} changed while placing its order`);
      const orderId = newId("order");
      // DECISIONS B16: the grant is redeemed and the merchant's payable written with the order, or neither
      const serviceCouponMinor = redeems
        ? await redeemCoupon(tx, {
            grantId: checkout.couponGrantId!,
            storeId: input.storeId,
            orderId,
            currency: checkout.currency,
            total: checkoutTotal,
            ...(cryptoPaid !== undefined ? { paid: cryptoPaid } : {}),
            now: input.now,
          })
        : 0;
      // written as it will be read: the order (paid at once when the rail charged before it was placed), then its
      // lines, each one statement; the record the caller gets is put together from what was written rather
      // than read back (a new order has no fulfilment events or adjustments yet)
      const created = await tx.order.create({
        data: {
          id: orderId,
          serviceCouponMinor,
          storeId: input.storeId,
          checkoutId: checkout.id,
          principalId: checkout.principalId,
          boundPrincipalId: checkout.boundPrincipalId,
          status: input.paymentRef ? "paid" : "placed",
          currency: checkout.currency,
          buyer: checkout.buyer ?? undefined,
          totals: checkout.totals ?? [],
          fulfillment,
          handlerId: input.handlerId,
          paymentRef: input.paymentRef,
          // the buyer's confirmation mail commits with the order (sent by the worker: confirmation-mail.ts)
          confirmationMail: buyerEmailOf(checkout.buyer) ? "pending" : null,
        },
      });
      const lineRows = checkout.lineItems.map((l, position) => ({
        id: newId("orderLine"),
        orderId,
        variantId: l.variantId,
        title: titles[position]!,
        priceMinor: l.priceMinor,
        quantity: l.quantity,
        position,
      }));
      // one line (most orders) through create: Prisma reuses create's compiled plan, never createManyAndReturn's
      // (docs/decisions.md "Plans Prisma can reuse")
      const [only] = lineRows;
      const lineItems =
        only && lineRows.length === 1
          ? [await tx.orderLineItem.create({ data: only })]
          : await tx.orderLineItem.createManyAndReturn({ data: lineRows });
      lineItems.sort((a, b) => a.position - b.position);
      const order: OrderRecord = { ...created, lineItems, fulfillmentEvents: [], adjustments: [] };
      // DECISIONS B6: the buyer's allowance is debited in the order's transaction (consuming the reservation
      // taken before the charge), so an order and its debit exist together or not at all
      await debitSpend(tx, {
        checkoutId: checkout.id,
        groupId: input.spendGroupId ?? null,
        orderId: order.id,
        originAmount: checkoutTotal,
        originCurrency: checkout.currency,
        storeId: input.storeId,
        now: input.now,
      });
      // issue #7: the order events commit with the order (transactional outbox); each payload is the snapshot
      const store = input.store ?? (await tx.store.findUniqueOrThrow({ where: { id: input.storeId } }));
      const wire = { store, baseUrl: getBaseUrl(), ucpVersion: UCP_VERSION };
      // a paid order still tells its story in two events, written in one statement: placed (the snapshot before
      // the payment), then paid
      await appendNewOrderEvents(tx, {
        storeId: input.storeId,
        orderId: order.id,
        events: [
          { kind: "order.placed", payload: orderToWire({ ...order, status: "placed" }, wire) },
          ...(input.paymentRef ? [{ kind: "order.paid" as const, payload: orderToWire(order, wire) }] : []),
        ],
      });
      return order;
    });
  } catch (error) {
    // a concurrent completion of the same checkout placed the order first (unique checkout_id): return it
    const placed = await loadOrder(db, { checkoutId: input.checkoutId });
    if (placed) return placed;
    throw error;
  }
};
