"use server";

import { revalidatePath } from "next/cache";

import type { FormState } from "@/components/admin/form-state";
import { runStoreAction } from "@/components/admin/store-page";
import { BridgeInputError, formatMoney, toMinorUnits } from "@/lib/bridge/money";
import { AppError } from "@/lib/core/errors";
import {
  cancelOrderAsMerchant,
  decideOrderRequestAsMerchant,
  fulfilOrderAsMerchant,
  refundOrderAsMerchant,
  storeOrderDetail,
} from "@/lib/orders/admin-orders";

// The order actions of the admin: thin adapters over lib/orders/admin-orders.ts (role check, then the domain
// operation). The refund amount is typed in major units and converted here with integer arithmetic
// (lib/bridge/money.ts): more decimals than the currency has is refused, never rounded.

const fields = <K extends string>(data: FormData, names: readonly K[]) =>
  Object.fromEntries(names.map((n) => [n, String(data.get(n) ?? "")])) as Record<K, string>;

const pathOf = (slug: string, orderId: string) =>
  `/admin/stores/${encodeURIComponent(slug)}/orders/${encodeURIComponent(orderId)}`;

export async function fulfilOrderAction(
  slug: string,
  orderId: string,
  _previous: FormState,
  data: FormData,
): Promise<FormState> {
  const values = fields(data, ["carrier", "trackingNumber", "trackingUrl"] as const);
  const state = await runStoreAction(values, async (account) => {
    await fulfilOrderAsMerchant(account, slug, orderId, values);
    return `Shipped with ${values.carrier.trim()} (${values.trackingNumber.trim()}).`;
  });
  if (state.ok) revalidatePath(pathOf(slug, orderId));
  return state;
}

export async function refundOrderAction(
  slug: string,
  orderId: string,
  _previous: FormState,
  data: FormData,
): Promise<FormState> {
  const values = fields(data, ["amount", "reason"] as const);
  const state = await runStoreAction(values, async (account) => {
    const { order } = await storeOrderDetail(account, slug, orderId);
    let amountMinor: number | undefined;
    if (values.amount.trim() !== "") {
      try {
        amountMinor = toMinorUnits(values.amount, order.currency, "$.amount");
      } catch (thrown) {
        if (thrown instanceof BridgeInputError) {
          throw new AppError("invalid_request", thrown.message, { path: "$.amount" });
        }
        throw thrown;
      }
      if (amountMinor === 0) {
        throw new AppError("invalid_request", "Enter an amount above zero", { path: "$.amount" });
      }
    }
    const refunded = await refundOrderAsMerchant(account, slug, orderId, {
      amountMinor,
      reason: values.reason,
    });
    const last = refunded.adjustments?.at(-1);
    return `Refund of ${formatMoney(last?.refundMinor ?? 0, order.currency)} ${last?.status === "completed" ? "paid back" : "on its way back"}.`;
  });
  if (state.ok) revalidatePath(pathOf(slug, orderId));
  return state;
}

export async function cancelOrderAction(
  slug: string,
  orderId: string,
  _previous: FormState,
  data: FormData,
): Promise<FormState> {
  const values = fields(data, ["reason"] as const);
  const state = await runStoreAction(values, async (account) => {
    await cancelOrderAsMerchant(account, slug, orderId, values);
    return "The order is canceled; anything paid goes back to the buyer.";
  });
  if (state.ok) revalidatePath(pathOf(slug, orderId));
  return state;
}

export async function approveRequestAction(
  slug: string,
  orderId: string,
  requestId: string,
  _previous: FormState,
  _data: FormData,
): Promise<FormState> {
  const state = await runStoreAction({}, async (account) => {
    const order = await decideOrderRequestAsMerchant(account, slug, orderId, requestId, { approve: true });
    const request = order.requests?.find((r) => r.id === requestId);
    return request?.type === "cancellation"
      ? "Request approved: the order is canceled and anything paid goes back to the buyer."
      : `Request approved: ${formatMoney(request?.amountMinor ?? 0, order.currency)} goes back to the buyer.`;
  });
  if (state.ok) revalidatePath(pathOf(slug, orderId));
  return state;
}

export async function declineRequestAction(
  slug: string,
  orderId: string,
  requestId: string,
  _previous: FormState,
  data: FormData,
): Promise<FormState> {
  const values = fields(data, ["reason"] as const);
  const state = await runStoreAction(values, async (account) => {
    await decideOrderRequestAsMerchant(account, slug, orderId, requestId, {
      approve: false,
      reason: values.reason,
    });
    return "Request declined: the agent is told your reason.";
  });
  if (state.ok) revalidatePath(pathOf(slug, orderId));
  return state;
}
