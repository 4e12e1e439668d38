import "server-only";

import { randomBytes } from "node:crypto";

import type { Db } from "@/lib/config/db";
import type { IdempotentWrite } from "@/lib/core/operation";

import {
  lineRowsOf,
  sameLines,
  saveCheckout,
  VersionConflict,
  type loadCheckoutOrThrow,
} from "../checkout-record";
import type { priceForCompletion } from "./price-for-completion";

type Session = Awaited<ReturnType<typeof loadCheckoutOrThrow>>;
type Priced = Awaited<ReturnType<typeof priceForCompletion>>;

/**
 * Step: hold the session (complete_in_progress) at the re-priced amounts, which become the stored ones that are
 * charged. The hosted link exists before the charge: it is the provider's return_url, stable across retries.
 * `changed`: the session moved since it was read (a racing update or completion); read it again.
 */
export const holdSession = async (
  db: Db,
  session: Session,
  { draft, priced }: Pick<Priced, "draft" | "priced">,
  /** The call's idempotency key, claimed with the hold when it is not yet (lib/idempotency/with-idempotency.ts). */
  idempotency?: IdempotentWrite,
): Promise<{ kind: "held"; amount: number; continueToken: string } | { kind: "changed" }> => {
  const amount = priced.totals.find((t) => t.type === "total")?.amount ?? 0;
  const lines = lineRowsOf(priced.lines);
  const continueToken = session.continueToken ?? randomBytes(24).toString("base64url");
  try {
    await saveCheckout(
      db,
      {
        id: session.id,
        version: session.version,
        status: "complete_in_progress",
        data: { totals: priced.totals, paymentInstruments: draft.instruments, continueToken },
        lines: sameLines(session.lineItems, lines) ? null : lines,
      },
      idempotency && { handle: idempotency, answer: null },
    );
  } catch (error) {
    if (error instanceof VersionConflict) return { kind: "changed" };
    throw error;
  }
  // the versioned write succeeded, so the stored token is this one: a racing completion that held the session
  // first made this write a conflict (read again, with its token), and one that holds after this keeps it
  return { kind: "held", amount, continueToken };
};
