import "server-only";

import type { Db } from "@/lib/config/db";
import type { OperationContext } from "@/lib/core/operation";
import type { Store } from "@/lib/generated/prisma/client";

import { draftOf, type loadCheckoutOrThrow } from "../checkout-record";
import { priceCheckout, type StoredInstrument } from "../price-checkout";
import type { CompleteCheckoutInput } from "../schemas";
import { checkoutToWire } from "../to-wire";
import type { RailSelection } from "./choose-rail";

type Session = Awaited<ReturnType<typeof loadCheckoutOrThrow>>;

/** The instruments as stored: the credential (a card token) never reaches the database. */
const stripCredentials = (payment: NonNullable<CompleteCheckoutInput["payment"]>) =>
  (payment.instruments ?? []).map((i, n): StoredInstrument => ({
    id: i.id ?? `pi_${n + 1}`,
    handler_id: i.handler_id,
    type: i.type ?? "card",
    selected: i.selected ?? false,
  }));

/**
 * Step: re-price and re-check stock on the live catalog, with the chosen instrument selected. Returns the priced
 * checkout, its wire form (what the mandate is verified over and what a blocker answers with) and the draft to
 * hold; the caller charges nothing unless `priced.status` is ready_for_complete.
 */
export const priceForCompletion = async (
  db: Db,
  ctx: OperationContext,
  store: Store,
  session: Session,
  rail: RailSelection,
  payment: CompleteCheckoutInput["payment"],
) => {
  const instruments = payment ? stripCredentials(payment) : draftOf(session).instruments;
  const draft = {
    ...draftOf(session),
    instruments: rail.instrument
      ? [{ ...instruments[Math.max(rail.index, 0)]!, selected: true }]
      : instruments,
  };
  const priced = await priceCheckout(db, store, draft, { now: ctx.now });
  const wire = checkoutToWire({ ...session, paymentInstruments: draft.instruments }, priced, {
    store,
    baseUrl: ctx.baseUrl,
    ucpVersion: ctx.ucpVersion,
    order: null,
  });
  return { draft, priced, wire };
};
