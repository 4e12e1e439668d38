import "server-only";

import { z } from "zod";

import { getDb } from "@/lib/config/db";
import { successEnvelope } from "@/lib/core/envelope";
import { AppError } from "@/lib/core/errors";
import { defineOperation, storeOf } from "@/lib/core/operation";
import { OrderEventsOutputSchema } from "@/lib/ucp/output-schemas";

// list_order_events / GET /s/<slug>/order-events: the events-since-cursor feed. A receiver that missed
// deliveries catches up from its last cursor without guessing: events come in the order they were recorded,
// each with the full order snapshot it carried. Every page returns a cursor — also the last one, so a client
// can poll from it later. A caller sees only the events of orders it originated, and needs `orders:read`.

export const MAX_EVENTS_PAGE = 100;

const CURSOR_PREFIX = "oe1.";
const encodeCursor = (position: number): string =>
  `${CURSOR_PREFIX}${Buffer.from(String(position)).toString("base64url")}`;
const decodeCursor = (cursor: string): number => {
  const digits = cursor.startsWith(CURSOR_PREFIX)
    ? Buffer.from(cursor.slice(CURSOR_PREFIX.length), "base64url").toString("utf8")
    : "";
  if (!/^\d{1,15}$/.test(digits)) {
    throw new AppError("invalid_request", "cursor is not one this feed returned", { path: "$.cursor" });
  }
  return Number(digits);
};

export const ListOrderEventsInputSchema = z.object({
  cursor: z.string().max(100).optional(),
  limit: z.coerce.number().int().min(1).max(MAX_EVENTS_PAGE).default(50),
  order_id: z.string().min(1).max(200).optional(),
});

export const listOrderEvents = defineOperation({
  name: "list_order_events",
  title: "List order events",
  description: `Order events since a cursor (oldest first, at most ${MAX_EVENTS_PAGE} per page), each with the full order snapshot it carried. Keep the returned cursor and ask again to catch up. Needs a platform key with orders:read.`,
  scope: "store",
  input: ListOrderEventsInputSchema,
  output: OrderEventsOutputSchema,
  mutates: false,
  tier: "token",
  buyerScope: null,
  permission: "orders:read",
  mcp: {
    namespace: "events",
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  /** @throws AppError invalid_request (cursor) */
  run: async (ctx, input) => {
    const db = await getDb();
    const store = storeOf(ctx);
    const after = input.cursor === undefined ? 0 : decodeCursor(input.cursor);
    const rows = await db.orderEvent.findMany({
      where: {
        storeId: store.id,
        position: { gt: after },
        order: { principalId: ctx.principal.id },
        ...(input.order_id ? { orderId: input.order_id } : {}),
      },
      orderBy: { position: "asc" },
      take: input.limit + 1,
    });
    const page = rows.slice(0, input.limit);
    const last = page.at(-1)?.position ?? after;
    return {
      body: {
        ucp: successEnvelope(["dev.ucp.shopping.order"], {}, ctx.ucpVersion),
        events: page.map((e) => ({
          id: e.id,
          type: e.kind,
          order_id: e.orderId,
          sequence: e.sequence,
          created_at: e.createdAt.toISOString(),
          order: e.payload,
        })),
        pagination: { has_next_page: rows.length > input.limit, cursor: encodeCursor(last) },
      },
    };
  },
});
