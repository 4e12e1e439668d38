import "server-only";

import { z } from "zod";

import { buyerIdOrThrow } from "@/lib/buyers/buyer-of";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import { defineOperation } from "@/lib/core/operation";
import type { Principal } from "@/lib/credentials/principal";
import type { Prisma } from "@/lib/generated/prisma/client";
import { MyOrderOutputSchema, MyOrdersOutputSchema } from "@/lib/ucp/output-schemas";

import { cryptoReceiptsOf } from "./crypto-receipts";
import { ORDER_INCLUDE, orderToWire } from "./to-wire";

// The buyer's orders on /account/mcp (seed §6: `get_my_order` is the buyer-side reconciliation path), as the
// calling agent may see them: orders of checkouts THIS agent created with the buyer's bearer, or that a platform
// created and this agent's buyer-bound call bound to the buyer (DECISIONS B17), across every store
// (another agent of the same buyer sees none of them; the buyer sees all on /account/orders). Newest first,
// keyset-paginated by (created_at, id) behind an opaque cursor.

/** The calling agent's orders: its principal is the pair (buyer, agent). @throws AppError identity_required */
const agentOrdersWhere = (principal: Principal): Prisma.OrderWhereInput => {
  buyerIdOrThrow(principal);
  return { OR: [{ principalId: principal.id }, { boundPrincipalId: principal.id }] };
};

const MAX_PAGE = 50;
const CURSOR_PREFIX = "mo1.";

const encodeCursor = (createdAt: Date, id: string): string =>
  `${CURSOR_PREFIX}${Buffer.from(JSON.stringify([createdAt.toISOString(), id])).toString("base64url")}`;

const decodeCursor = (cursor: string): { createdAt: Date; id: string } => {
  try {
    if (!cursor.startsWith(CURSOR_PREFIX)) throw new Error("prefix");
    const [at, id] = JSON.parse(Buffer.from(cursor.slice(CURSOR_PREFIX.length), "base64url").toString()) as [
      unknown,
      unknown,
    ];
    const createdAt = new Date(String(at));
    if (typeof id !== "string" || Number.isNaN(createdAt.getTime())) throw new Error("shape");
    return { createdAt, id };
  } catch {
    throw new AppError("invalid_request", "cursor is not one list_my_orders returned", { path: "$.cursor" });
  }
};

export const getMyOrder = defineOperation({
  name: "get_my_order",
  title: "Get my order",
  description:
    "One of the buyer's orders by id (from list_my_orders), in any store: the full UCP order snapshot with the store it was placed in; a crypto order adds crypto_payment (its legs of the transaction and the digest) and, when a combined payment paid it, payment_group (every checkout of the group with its order, null while not completed).",
  errors: ["not_found"],
  scope: "global",
  input: z.object({ id: z.string().min(1).max(200) }),
  output: MyOrderOutputSchema,
  mutates: false,
  tier: "token",
  buyerScope: "purchase:complete",
  mcp: {
    takesId: true,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  /** @throws AppError identity_required, not_found */
  run: async (ctx, input) => {
    const db = await getDb();
    const order = await db.order.findFirst({
      where: { id: input.id, ...agentOrdersWhere(ctx.principal) },
      include: { ...ORDER_INCLUDE, store: true },
    });
    if (!order) throw new AppError("not_found", `No order "${input.id}" of yours`, { path: "$.id" });
    const { store, ...row } = order;
    const receipt = (await cryptoReceiptsOf(db, [row])).get(row.id);
    return {
      body: {
        ...orderToWire(row, { store, baseUrl: ctx.baseUrl, ucpVersion: ctx.ucpVersion }),
        store: { slug: store.slug, name: store.name },
        ...receipt,
      },
    };
  },
});

export const listMyOrders = defineOperation({
  name: "list_my_orders",
  title: "List my orders",
  description: `The buyer's orders across every store, newest first (at most ${MAX_PAGE} per page; pass the returned cursor for the next page). Crypto orders carry crypto_payment (their legs and the transaction digest); orders paid by one combined payment share a payment_group (its id, digest and every checkout with its order, null while that checkout is not completed: complete it with the same digest).`,
  scope: "global",
  input: z
    .object({
      limit: z.number().int().min(1).max(MAX_PAGE).default(20),
      cursor: z.string().max(200).optional(),
    })
    .strict(),
  output: MyOrdersOutputSchema,
  mutates: false,
  tier: "token",
  buyerScope: "purchase:complete",
  mcp: {
    flat: true,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  /** @throws AppError identity_required, invalid_request (cursor) */
  run: async (ctx, input) => {
    const mine = agentOrdersWhere(ctx.principal);
    const after = input.cursor === undefined ? null : decodeCursor(input.cursor);
    const db = await getDb();
    const rows = await db.order.findMany({
      where: {
        AND: [
          mine,
          after
            ? {
                OR: [
                  { createdAt: { lt: after.createdAt } },
                  { createdAt: after.createdAt, id: { lt: after.id } },
                ],
              }
            : {},
        ],
      },
      include: { ...ORDER_INCLUDE, store: true },
      orderBy: [{ createdAt: "desc" }, { id: "desc" }],
      take: input.limit + 1,
    });
    const page = rows.slice(0, input.limit);
    const last = page.at(-1);
    const hasNext = rows.length > input.limit && last !== undefined;
    // crypto orders carry their leg of the transaction; orders of one combined payment name their group
    const receipts = await cryptoReceiptsOf(db, page);
    return {
      body: {
        orders: page.map(({ store, ...row }) => {
          const { ucp: _ucp, ...order } = orderToWire(row, {
            store,
            baseUrl: ctx.baseUrl,
            ucpVersion: ctx.ucpVersion,
          });
          return { ...order, store: { slug: store.slug, name: store.name }, ...receipts.get(row.id) };
        }),
        pagination: {
          has_next_page: hasNext,
          ...(hasNext ? { cursor: encodeCursor(last.createdAt, last.id) } : {}),
        },
      },
    };
  },
});
