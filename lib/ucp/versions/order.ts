import { ucpDown } from "./envelope";
import type { OlderVersion } from "./index";
import { totalsDown } from "./totals";

// The order at 2026-01-11 and 2026-01-23, as their order webhook carries it (docs/ucp-versions.md §3.15; both
// tags' `shopping/order.json` and OpenAPI `webhooks.orderEvent`).

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const mapArray = (value: unknown, fn: (item: Json) => Json | null): unknown =>
  Array.isArray(value)
    ? value.flatMap((item) => {
        if (!isObject(item)) return [item];
        const out = fn(item);
        return out ? [out] : [];
      })
    : value;

// 04-08 `removed` (every unit canceled) has no older value: `partial` when something shipped, else `processing`
// with quantity.total 0, so the receiver sees no active units (product call, lossy)
const lineDown = (line: Json): Json => {
  const quantity = isObject(line.quantity) ? line.quantity : {};
  const { original: _original, ...older } = quantity;
  const status =
    line.status === "removed"
      ? Number(quantity.fulfilled ?? 0) > 0
        ? "partial"
        : "processing"
      : line.status;
  return { ...line, quantity: older, totals: totalsDown(line.totals), status };
};

// 04-08 adjustments carry signed line quantities and `totals`; the older ones a quantity ≥ 1 and one unsigned
// `amount` (the type, e.g. refund, says the direction)
const adjustmentDown = (adjustment: Json): Json => {
  const { totals, line_items: lines, ...rest } = adjustment;
  const list = Array.isArray(totals) ? totals.filter(isObject) : [];
  const total = list.find((t) => t.type === "total");
  const amount =
    total !== undefined
      ? Math.abs(Number(total.amount))
      : list.reduce((sum, t) => sum + Math.abs(Number(t.amount ?? 0)), 0);
  const affected = mapArray(lines, (l) =>
    Number(l.quantity) === 0 ? null : { ...l, quantity: Math.abs(Number(l.quantity)) },
  );
  return {
    ...rest,
    ...(Array.isArray(affected) && affected.length > 0 ? { line_items: affected } : {}),
    ...(list.length > 0 ? { amount } : {}),
  };
};

/**
 * Our order → the older shape: the `ucp` block (response_order), unsigned totals, no `currency`, `label`,
 * `messages` or `attribution` (04-08 only), line quantities without `original`, adjustments with `amount`.
 */
export const orderDown = (version: OlderVersion, order: Json): Json => {
  const { currency: _c, label: _l, messages: _m, attribution: _a, ...rest } = order;
  return {
    ...rest,
    ucp: ucpDown(version, order.ucp),
    line_items: mapArray(order.line_items, lineDown),
    totals: totalsDown(order.totals),
    ...(order.adjustments !== undefined ? { adjustments: mapArray(order.adjustments, adjustmentDown) } : {}),
  };
};

/**
 * An order webhook body at an older version: the order plus `event_id` and `created_time` (RFC 3339), both
 * required at the top level by the older OpenAPI. Pure over the stored body, so every retry sends the same bytes.
 */
export const orderWebhookBodyDown = (
  version: OlderVersion,
  body: string,
  event: { id: string; createdTime: Date },
): string =>
  JSON.stringify({
    ...orderDown(version, JSON.parse(body) as Json),
    event_id: event.id,
    created_time: event.createdTime.toISOString(),
  });
