import "server-only";

import { requireCapability } from "@/lib/agents/negotiate-agent";
import { getDb, type Db } from "@/lib/config/db";
import { newId } from "@/lib/config/ids";
import { execute } from "@/lib/config/sql";
import { AppError } from "@/lib/core/errors";
import { defineOperation, storeOf, type OperationContext, type RecordAnswer } from "@/lib/core/operation";
import { mandateTerms } from "@/lib/mandates/mandate-terms";
import { withMerchantAuthorization } from "@/lib/mandates/merchant-authorization";
import { CheckoutOutputSchema } from "@/lib/ucp/output-schemas";

import { applyRequest } from "./apply-request";
import { CHECKOUT_TTL_MS, lineRowsOf, loadCheckoutOrThrow, renderCheckout } from "./checkout-record";
import { EMPTY_FULFILLMENT } from "./fulfillment";
import { priceCheckout, type CheckoutDraft } from "./price-checkout";
import { rememberAddresses } from "./saved-addresses";
import { CreateCheckoutInputSchema, type CreateCheckoutInput } from "./schemas";
import { checkoutInsert } from "./state";
import { checkoutToWire } from "./to-wire";

const OPEN_STATUSES = ["incomplete", "ready_for_complete", "requires_escalation"] as const;

/**
 * The lines and discount codes of the caller's active cart (UCP cart→checkout: the cart's contents win over
 * sent line_items; discount codes carry over).
 * @throws AppError not_found when the cart is unknown, canceled, expired, another store's or another caller's
 */
const cartLinesOrThrow = async (db: Db, ctx: OperationContext, cartId: string) => {
  const cart = await db.cart.findFirst({
    where: {
      id: cartId,
      storeId: storeOf(ctx).id,
      principalId: ctx.principal.id,
      status: "active",
      expiresAt: { gt: ctx.now },
    },
    include: { lineItems: { orderBy: { position: "asc" } } },
  });
  if (!cart) {
    throw new AppError("not_found", `No active cart "${cartId}" in this store`, { path: "$.cart_id" });
  }
  return {
    lineItems: cart.lineItems.map((l) => ({ item: { id: l.variantId }, quantity: l.quantity })),
    discountCodes: cart.discountCodes,
  };
};

/** The caller's open, unexpired checkout of a cart (a second create for the cart returns it). */
const openCheckoutOfCart = async (
  db: Pick<Db, "checkoutSession">,
  ctx: OperationContext,
  cartId: string,
): Promise<string | null> =>
  (
    await db.checkoutSession.findFirst({
      where: {
        cartId,
        storeId: storeOf(ctx).id,
        principalId: ctx.principal.id,
        status: { in: [...OPEN_STATUSES] },
        expiresAt: { gt: ctx.now },
      },
      select: { id: true },
    })
  )?.id ?? null;

const reuse = async (db: Db, ctx: OperationContext, id: string) => ({
  body: await withMerchantAuthorization(
    ctx,
    await renderCheckout(db, ctx, await loadCheckoutOrThrow(db, ctx, id)),
  ),
});

/**
 * create_checkout / POST /s/<slug>/checkout-sessions (UCP checkout; REST 201). From `line_items` or a `cart_id`;
 * for a cart that already has an open checkout of this caller, that checkout is returned (200) instead of a
 * second one (CONTRACT §6, §18.1 #33). Every response carries the full preflight in `messages`.
 * @throws AppError invalid_request, not_found (cart), item_unavailable (nothing sellable: no checkout created)
 */
export const createCheckout = defineOperation({
  name: "create_checkout",
  title: "Create checkout",
  description:
    "Create a checkout session in this store from line_items [{ item: { id: <variant_id> }, quantity }] or a cart_id, optionally with buyer, fulfillment (or shipping_address / shipping_method_id), discounts.codes, payment.instruments and notes. Returns the checkout: status, totals in minor units, and messages[] listing every blocker with a JSONPath (path) to the field to fix. Next: update_checkout until status is ready_for_complete, then complete_checkout.",
  errors: ["not_found", "item_unavailable"],
  scope: "store",
  input: CreateCheckoutInputSchema,
  output: CheckoutOutputSchema,
  mutates: true,
  idempotency: "in-write",
  storeFromCache: true,
  tier: "token",
  buyerScope: "purchase:complete",
  mcp: {
    namespace: "checkout",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  run: requireCapability("dev.ucp.shopping.checkout", async (ctx, input: CreateCheckoutInput) => {
    const db = await getDb();
    const store = storeOf(ctx);
    if (input.cart_id) {
      const existing = await openCheckoutOfCart(db, ctx, input.cart_id);
      if (existing) return reuse(db, ctx, existing);
    }
    const fromCart = input.cart_id ? await cartLinesOrThrow(db, ctx, input.cart_id) : null;
    const lineItems = fromCart?.lineItems ?? input.line_items!;
    // UCP cart→checkout: the cart's lines win; its discount codes carry over unless the request sends its own
    const discounts = input.discounts ?? (fromCart ? { codes: fromCart.discountCodes } : undefined);
    const empty: CheckoutDraft = {
      lines: [],
      buyer: null,
      fulfillment: EMPTY_FULFILLMENT,
      discountCodes: [],
      instruments: [],
    };
    const { draft, save } = await rememberAddresses(
      store,
      ctx.principal.id,
      empty,
      applyRequest(store, empty, { ...input, line_items: lineItems, discounts }),
      input,
    );
    // the store and rates may be up to the row cache's bound old: the completion prices again on fresh ones
    const priced = await priceCheckout(db, store, draft, { now: ctx.now, ratesForRead: true });
    if (priced.lines.length === 0) {
      // as create_cart: when no line can be sold, the error envelope and no session
      throw new AppError(
        "item_unavailable",
        priced.messages[0]?.content ?? "None of the line items can be sold by this store",
        { path: "$.line_items" },
      );
    }
    const id = newId("checkout");
    const session = {
      id,
      storeId: store.id,
      cartId: input.cart_id ?? null,
      principalId: ctx.principal.id,
      currency: store.currency,
      buyer: draft.buyer,
      fulfillment: draft.fulfillment,
      discountCodes: priced.discounts.codes,
      notes: input.notes ?? null,
      totals: priced.totals,
      agentProfile: ctx.agentProfile || null,
      ucpVersion: ctx.ucpVersion,
      paymentInstruments: draft.instruments,
      context: input.context ?? null,
      attribution: input.attribution ?? null,
      expiresAt: new Date(ctx.now.getTime() + CHECKOUT_TTL_MS),
    };
    const body = checkoutToWire(session, priced, {
      store,
      baseUrl: ctx.baseUrl,
      ucpVersion: ctx.ucpVersion,
      order: null,
    });
    const insert = (record: RecordAnswer | null) =>
      checkoutInsert(
        { ...session, mandateTermsHistory: [mandateTerms(body, store.slug)] },
        priced.status === "incomplete" ? "incomplete" : "ready_for_complete",
        lineRowsOf(priced.lines),
        record,
      );
    const answer = { body: await withMerchantAuthorization(ctx, body), status: 201 as const };
    if (!input.cart_id) {
      // the session, its lines and the call's answer are one statement (create_checkout's idempotency is "in-write")
      const written = ctx.idempotency
        ? await ctx.idempotency.write(insert, answer)
        : (await execute(insert(null)), 1);
      if (written > 0) await save();
      return answer;
    }
    // From a cart, the cart's row is locked first and its open checkout looked up again, in one transaction, so two
    // first creates racing for one cart give one checkout (the loser returns the winner's); the key is claimed
    // before that transaction, which cannot carry the answer
    await ctx.idempotency?.claim();
    const raced = await db.$transaction(async (tx) => {
      await tx.cart.updateMany({
        where: { id: input.cart_id!, storeId: store.id },
        data: { updatedAt: ctx.now },
      });
      const winner = await openCheckoutOfCart(tx, ctx, input.cart_id!);
      if (winner) return winner;
      const statement = insert(null);
      await tx.$executeRawUnsafe(statement.sql, ...statement.args);
      return null;
    });
    if (raced) return reuse(db, ctx, raced);
    await save();
    return answer;
  }),
});
