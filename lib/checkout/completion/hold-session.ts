import "server-only";

import { randomBytes } from "node:crypto";

import type { Db } from "@/lib/config/db";
import type { IdempotentWrite } from "@/lib/core/operation";
import type { CardPayment } from "@/lib/generated/prisma/client";

import {
  lineRowsOf,
  sameLines,
  saveCheckout,
  VersionConflict,
  type loadCheckoutOrThrow,
} from "../checkout-record";
import type { priceForCompletion } from "./price-for-completion";
import { newCardPayment } from "./start-attempt";

type Session = Awaited<ReturnType<typeof loadCheckoutOrThrow>>;
type Priced = Awaited<ReturnType<typeof priceForCompletion>>;

/** The card payment a card completion's hold creates with it, when the checkout has none yet. */
export type NewCardPayment = { storeId: string; amount: number; currency: string };

/**
 * Step: hold the session (complete_in_progress) at the re-priced amounts, which become the stored ones that are
 * charged. The hosted link exists before the charge: it is the provider's return_url, stable across retries.
 * `cardPayment`: the card payment is created in the hold's statement (attempt 1, pending, written before the
 * charge as before it), and `created` is that row; a hold with new lines leaves it to the charge's step.
 * `changed`: the session moved since it was read (a racing update or completion, or a racing card payment was
 * there first); read it again.
 */
export const holdSession = async (
  db: Db,
  session: Session,
  { draft, priced }: Pick<Priced, "draft" | "priced">,
  /** The call's idempotency key, claimed with the hold when it is not yet (lib/idempotency/with-idempotency.ts). */
  idempotency?: IdempotentWrite,
  cardPayment?: NewCardPayment,
): Promise<
  { kind: "held"; amount: number; continueToken: string; created: CardPayment | null } | { kind: "changed" }
> => {
  const amount = priced.totals.find((t) => t.type === "total")?.amount ?? 0;
  const lines = lineRowsOf(priced.lines);
  const continueToken = session.continueToken ?? randomBytes(24).toString("base64url");
  const now = new Date();
  try {
    const saved = await saveCheckout(
      db,
      {
        id: session.id,
        version: session.version,
        status: "complete_in_progress",
        data: { totals: priced.totals, paymentInstruments: draft.instruments, continueToken },
        lines: sameLines(session.lineItems, lines) ? null : lines,
        ...(cardPayment && {
          andThen: (param: (value: unknown) => string) => `
            INSERT INTO card_payments (checkout_id, store_id, attempt, status, amount, currency, created_at, updated_at)
            SELECT CAST(${param(session.id)} AS text), CAST(${param(cardPayment.storeId)} AS text), 1, 'pending',
                   CAST(${param(cardPayment.amount)} AS integer), CAST(${param(cardPayment.currency)} AS text),
                   CAST(${param(now)} AS timestamp(3)), CAST(${param(now)} AS timestamp(3))
            WHERE EXISTS (SELECT 1 FROM moved)
            ON CONFLICT (checkout_id) DO NOTHING`,
        }),
      },
      idempotency && { handle: idempotency, answer: null },
    );
    // the versioned write succeeded, so the stored token is this one: a racing completion that held the session
    // first made this write a conflict (read again, with its token), and one that holds after this keeps it
    const created =
      cardPayment && saved.andThen
        ? newCardPayment(session.id, cardPayment.storeId, cardPayment.amount, cardPayment.currency, now)
        : null;
    return { kind: "held", amount, continueToken, created };
  } catch (error) {
    if (error instanceof VersionConflict) return { kind: "changed" };
    throw error;
  }
};
