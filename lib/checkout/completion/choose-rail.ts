import "server-only";

import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";
import type { PaymentRail } from "@/lib/payments/rail";
import { railForStore } from "@/lib/payments/rails";
import { selectRail } from "@/lib/payments/select-rail";

import { offeredHandlers } from "../price-checkout";
import type { CompleteCheckoutInput } from "../schemas";

export type RailSelection = ReturnType<typeof selectRail>;

/**
 * Step: the rail the completing call selected (seed §4: payment_selection_required when a two-rail store gets
 * none) and its adapter.
 * @throws AppError payment_selection_required, unknown_payment_handler, multiple_payment_selections,
 *   rail_not_available
 */
export const chooseRail = (
  store: Store,
  payment: CompleteCheckoutInput["payment"],
): { rail: RailSelection; adapter: PaymentRail } => {
  const rail = selectRail(payment?.instruments ?? [], offeredHandlers(store));
  const adapter = railForStore(store, rail.handlerId);
  if (!adapter) {
    throw new AppError(
      "rail_not_available",
      `${rail.handlerId} cannot complete checkouts in this store yet (not fully set up): pay with svc.card`,
      {
        path: rail.index >= 0 ? `$.payment.instruments[${rail.index}].handler_id` : "$.payment.instruments",
      },
    );
  }
  return { rail, adapter };
};
