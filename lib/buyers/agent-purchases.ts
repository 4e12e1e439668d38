import "server-only";

import { getDb, type Db } from "@/lib/config/db";
import { buyerPrincipalPrefix } from "@/lib/credentials/principal";
import type { IntentMandate, OrderStatus } from "@/lib/generated/prisma/client";
import {
  allowanceStatus,
  remainingOf,
  WINDOWS,
  type AllowanceStatus,
  type WindowName,
} from "@/lib/mandates/spend-ledger";
import { cryptoReceiptsOf } from "@/lib/orders/crypto-receipts";
import { buyerOrdersWhere } from "@/lib/orders/list-buyer-orders";
import { paidMinor } from "@/lib/orders/settle-refund";
import { RAIL_HANDLER_IDS } from "@/lib/ucp/rails";

// One query of what a buyer's agents bought for them (DECISIONS B17, B20), for the buyer's pages: per agent (OAuth
// client, by the name the buyer saw on the consent page), every purchase it made for the buyer on every rail, and
// per allowance what is spent and what is left in each rolling window.
// The purchases come from the orders themselves, not from the ledger: an order is the buyer's when its checkout is
// bound to (or was created by) the pair buyer + agent, or when the ledger debited it to one of the buyer's
// allowances (a platform-key card completion carrying the buyer's intent mandate). An order placed before every
// buyer-bound purchase had to count (no ledger entry) is still listed, marked as counted against no allowance, so
// the page never shows $0.00 beside money an agent really spent. An order bound to the buyer alone (`buyer:<id>`,
// paid on the wallet page by the signed-in buyer) is the buyer's own purchase, not an agent's.

/** Purchases are listed for the longest rolling window an allowance has, so the list and the windows agree. */
export const PURCHASE_WINDOW_MS = WINDOWS.month;
/** A bound on what one page reads; a buyer with more purchases in 30 days sees the newest. */
const MAX_PURCHASES = 200;

export type AllowanceView = {
  id: string;
  status: AllowanceStatus;
  currency: string;
  perOrderMax: number | null;
  merchants: string[] | "*";
  expiresAt: string;
  reserved: number;
  windows: { name: WindowName; limit: number | null; spent: number; remaining: number | null }[];
};

export type Purchase = {
  orderId: string;
  store: { slug: string; name: string };
  placedAt: Date;
  status: OrderStatus;
  currency: string;
  /** What the buyer paid through the rail (order total less a service-funded coupon), minor units. */
  amountMinor: number;
  /** Refunds already paid back, minor units. */
  refundedMinor: number;
  /** The rail in words: "Card", "Crypto (USDC)", "Crypto (USDC + SUI)"; null when not paid through a rail. */
  paidWith: string | null;
  /** The allowance the ledger debited for it, or null: it counts against no allowance. */
  allowanceId: string | null;
};

export type AgentPurchases = {
  clientId: string;
  /** The client's name from its metadata, as the buyer approved it (its host when no consent was ever recorded). */
  clientName: string;
  /** The buyer's consent is active (a revoked agent still shows what it bought). */
  linked: boolean;
  /** Newest first, within PURCHASE_WINDOW_MS. */
  purchases: Purchase[];
  /** Per currency, what its purchases cost net of refunds paid back, within PURCHASE_WINDOW_MS. */
  spent: { currency: string; amountMinor: number }[];
  /** Newest first. */
  allowances: AllowanceView[];
};

export type BuyerPurchases = {
  agents: AgentPurchases[];
  /** Orders the buyer paid themselves (wallet page, no agent), within PURCHASE_WINDOW_MS. */
  own: Purchase[];
};

const hostOf = (clientId: string): string => {
  try {
    return new URL(clientId).host;
  } catch {
    return clientId;
  }
};

const symbolsOf = (legs: readonly { symbol: string }[]): string =>
  [...new Set(legs.map((l) => l.symbol))].join(" + ");

/** The rail in words a person reads on the buyer's pages. */
export const paidWithWords = (
  handlerId: string | null,
  legs: readonly { symbol: string }[] | undefined,
): string | null => {
  if (handlerId === RAIL_HANDLER_IDS.card) return "Card";
  if (handlerId !== RAIL_HANDLER_IDS.crypto) return null;
  const symbols = legs ? symbolsOf(legs) : "";
  return symbols ? `Crypto (${symbols})` : "Crypto";
};

/** Who an order belongs to: the agent's client id, "own" (the buyer alone) or null (not this buyer's binding). */
export const ownerOf = (
  order: { principalId: string; boundPrincipalId: string | null },
  buyerId: string,
): { clientId: string } | "own" | null => {
  const prefix = buyerPrincipalPrefix(buyerId);
  for (const principal of [order.boundPrincipalId, order.principalId]) {
    if (!principal) continue;
    if (principal.startsWith(prefix)) return { clientId: principal.slice(prefix.length) };
    if (principal === `buyer:${buyerId}`) return "own";
  }
  return null;
};

const allowanceView = async (db: Db, row: IntentMandate, now: Date): Promise<AllowanceView> => {
  const usage = await remainingOf(db, row, now);
  return {
    id: row.id,
    status: allowanceStatus(row, now),
    currency: row.currency,
    perOrderMax: row.perOrderMax,
    merchants: row.merchants as string[] | "*",
    expiresAt: row.expiresAt.toISOString(),
    reserved: usage.reserved,
    windows: (Object.keys(WINDOWS) as WindowName[]).map((name) => ({
      name,
      limit: usage.windows[name].limit,
      spent: usage.windows[name].spent,
      remaining: usage.windows[name].remaining,
    })),
  };
};

/**
 * The buyer's purchases per agent and their allowances' usage now. Every linked agent is listed (with or without
 * purchases), and any other agent that bought for the buyer in the window. Newest agent consent first.
 */
export const agentPurchasesOf = async (buyerId: string, now: Date): Promise<BuyerPurchases> => {
  const db = await getDb();
  const since = new Date(now.getTime() - PURCHASE_WINDOW_MS);
  const [consents, allowances] = await Promise.all([
    db.buyerConsent.findMany({ where: { buyerId }, orderBy: { grantedAt: "desc" } }),
    db.intentMandate.findMany({ where: { buyerId }, orderBy: { createdAt: "desc" } }),
  ]);
  const allowanceIds = allowances.map((a) => a.id);
  // the ledger's debits name the orders that counted, including a platform's completion carrying the allowance
  const debits = allowanceIds.length
    ? await db.spendEntry.findMany({
        where: { allowanceId: { in: allowanceIds }, kind: "debit", orderId: { not: null } },
        select: { orderId: true, allowanceId: true },
      })
    : [];
  const debitOf = new Map(debits.map((d) => [d.orderId!, d.allowanceId]));
  const orders = await db.order.findMany({
    where: {
      createdAt: { gt: since },
      OR: [buyerOrdersWhere(buyerId), ...(debits.length ? [{ id: { in: [...debitOf.keys()] } }] : [])],
    },
    include: {
      store: { select: { slug: true, name: true } },
      adjustments: { select: { status: true, refundMinor: true } },
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: MAX_PURCHASES,
  });
  const receipts = await cryptoReceiptsOf(db, orders);
  const clientOfAllowance = new Map(allowances.map((a) => [a.id, a.clientId]));

  const byAgent = new Map<string, Purchase[]>();
  const own: Purchase[] = [];
  for (const o of orders) {
    const allowanceId = debitOf.get(o.id) ?? null;
    const owner = ownerOf(o, buyerId);
    const clientId =
      owner !== null && owner !== "own"
        ? owner.clientId
        : allowanceId
          ? clientOfAllowance.get(allowanceId)
          : null;
    const purchase: Purchase = {
      orderId: o.id,
      store: o.store,
      placedAt: o.createdAt,
      status: o.status,
      currency: o.currency,
      amountMinor: paidMinor(o),
      refundedMinor: o.adjustments
        .filter((a) => a.status === "completed")
        .reduce((sum, a) => sum + a.refundMinor, 0),
      paidWith: paidWithWords(o.handlerId, receipts.get(o.id)?.crypto_payment.legs),
      allowanceId,
    };
    if (clientId) byAgent.set(clientId, [...(byAgent.get(clientId) ?? []), purchase]);
    else if (owner === "own") own.push(purchase);
  }

  const consentOf = new Map(consents.map((c) => [c.clientId, c]));
  const clientIds = [
    ...consents.filter((c) => !c.revokedAt).map((c) => c.clientId),
    ...[...byAgent.keys()].filter((id) => !consentOf.get(id) || consentOf.get(id)!.revokedAt),
  ];
  const agents = await Promise.all(
    clientIds.map(async (clientId): Promise<AgentPurchases> => {
      const consent = consentOf.get(clientId);
      const purchases = byAgent.get(clientId) ?? [];
      const spent = new Map<string, number>();
      for (const p of purchases) {
        spent.set(p.currency, (spent.get(p.currency) ?? 0) + p.amountMinor - p.refundedMinor);
      }
      return {
        clientId,
        clientName: consent?.clientName ?? hostOf(clientId),
        linked: Boolean(consent && !consent.revokedAt),
        purchases,
        spent: [...spent].map(([currency, amountMinor]) => ({ currency, amountMinor })),
        allowances: await Promise.all(
          allowances.filter((a) => a.clientId === clientId).map((a) => allowanceView(db, a, now)),
        ),
      };
    }),
  );
  return { agents, own };
};
