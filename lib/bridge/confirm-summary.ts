// confirm_purchase's top-level status and message, across its checkouts' results. The message never says
// "nothing was paid" beside a result whose money moved: a payment recorded as owed back (a crypto payment that
// arrived short after the quote changed, or a second payment) is said as such, and a completion whose answer never
// came is said to be unknown, not unpaid.

export type ResultSummary = {
  checkout_id: string;
  status: "completed" | "pending" | "requires_buyer_action" | "payment_selection_required" | "failed";
  error?: { code: string; message: string };
  owed_back?: boolean;
};

export type PurchaseStatus = "completed" | "pending" | "partial" | "failed" | "requires_buyer_action";

/** A result whose error says money arrived and is recorded to go back to the buyer (the service's wording). */
export const isOwedBack = (result: Pick<ResultSummary, "error" | "owed_back">): boolean =>
  result.owed_back === true || /owed back/i.test(result.error?.message ?? "");

const ids = (results: readonly ResultSummary[]) => results.map((r) => r.checkout_id).join(", ");

/** The overall status and what to tell the buyer. */
export const purchaseSummary = ({
  results,
  rail,
  digest,
}: {
  results: readonly ResultSummary[];
  rail: "card" | "crypto" | undefined;
  digest: string | undefined;
}): { status: PurchaseStatus; message: string } => {
  const done = results.filter((r) => r.status === "completed").length;
  const pending = results.filter((r) => r.status === "pending").length;
  const waiting = results.filter((r) => r.status === "requires_buyer_action").length;
  const status: PurchaseStatus =
    done === results.length
      ? "completed"
      : pending > 0 && done + pending === results.length
        ? "pending"
        : waiting > 0 && done + waiting === results.length
          ? "requires_buyer_action"
          : done + pending + waiting > 0
            ? "partial"
            : "failed";
  const owed = results.filter((r) => r.status === "failed" && isOwedBack(r));
  const unknown = results.filter((r) => r.status === "failed" && r.error?.code === "service_unavailable");
  const owedNote =
    owed.length > 0
      ? `A payment arrived for ${ids(owed)} but could not pay for it: it is recorded as owed back to the buyer (see that result's error); no order was placed for it. Do not pay again until the buyer has seen the current total.`
      : "";
  const unknownNote =
    unknown.length > 0
      ? `The service did not answer for ${ids(unknown)}: call confirm_purchase again with the same checkouts to learn what happened (a payment is never made twice).`
      : "";
  const notes = [owedNote, unknownNote].filter(Boolean).join(" ");
  const message = {
    completed: "Every checkout is paid and has its order.",
    pending: `The transaction ${digest ?? ""} is submitted but not final on the chain yet. Do NOT pay again and do not sign another quote: call confirm_purchase again in a little while with the same checkouts and the same transaction_digest (paid ones are not charged again; the service also finishes it on its own).`,
    requires_buyer_action: "The buyer must finish paying at each continue_url.",
    partial: [
      rail === "crypto"
        ? "Some checkouts are paid, others not (see each result). Call confirm_purchase again with the same checkouts and the same transaction_digest: paid ones are not completed again. Do not pay again for a pending one."
        : "Some checkouts are paid, others not (see each result's error). Fix them and call confirm_purchase again with the same checkouts: paid ones are not charged again.",
      notes,
    ]
      .filter(Boolean)
      .join(" "),
    failed:
      notes === ""
        ? "Nothing was paid (see each result's error)."
        : [
            "No order was placed.",
            notes,
            results.length > owed.length + unknown.length ? "Nothing was paid for the others." : "",
          ]
            .filter(Boolean)
            .join(" "),
  }[status];
  return { status, message };
};
