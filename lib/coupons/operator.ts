import "server-only";

import { z } from "zod";

import type { AccountSummary } from "@/lib/accounts/accounts";
import { requireOperator } from "@/lib/accounts/operator";
import { storeForAccount } from "@/lib/accounts/store-access";
import { parseMajor } from "@/lib/catalog/admin/major-units";
import { getDb } from "@/lib/config/db";
import { AppError, toAppError } from "@/lib/core/errors";

import { issueCoupon, IssueCouponInputSchema, listCouponPayables, listCoupons } from "./issue-coupons";

// Service coupons on the admin pages (DECISIONS B16): the operator issues coupons, sees them and what the service
// owes each merchant, and records payables as settled once paid outside the rails; a store's owner and staff see
// what is owed to their store. Anyone but the operator gets not_found for the operator's part, like the operator's
// page itself (lib/accounts/operator.ts).

/** The issue form as typed: the amount in major units of `currency`, one buyer address per line. */
export const IssueCouponFormSchema = z.object({
  description: z.string().max(200).default(""),
  amount: z.string().max(40),
  currency: z.string().max(10),
  /** A calendar day (YYYY-MM-DD): the coupon is good until the end of that day, UTC. */
  expires_on: z.string().max(40),
  buyer_addresses: z.string().max(100_000),
});
export type IssueCouponForm = z.input<typeof IssueCouponFormSchema>;

const DEFAULT_DESCRIPTION = "Service coupon";

/** The form's field an error of the CLI's schema belongs to. */
const FORM_FIELD: Record<string, string> = {
  amount_minor: "amount",
  expires_at: "expires_on",
};

/**
 * The operator issues a coupon from the page's form: the same operation and schema as the CLI (issueCoupon), after
 * the major-unit amount is read with integer arithmetic (refused, never rounded, past the currency's decimals).
 * @throws AppError not_found (not the operator), invalid_request with the form field's path
 */
export const operatorIssueCoupon = async (
  account: AccountSummary,
  raw: IssueCouponForm,
  now = new Date(),
) => {
  requireOperator(account);
  const parsedForm = IssueCouponFormSchema.safeParse(raw);
  if (!parsedForm.success) {
    const issue = parsedForm.error.issues[0]!;
    throw new AppError("invalid_request", issue.message, { path: `$.${issue.path.join(".")}` });
  }
  const form = parsedForm.data;
  const currency = form.currency.trim().toUpperCase();
  // the currency first: the amount's decimals depend on it
  const currencyCheck = IssueCouponInputSchema.shape.currency.safeParse(currency);
  if (!currencyCheck.success) {
    throw new AppError("invalid_request", currencyCheck.error.issues[0]!.message, { path: "$.currency" });
  }
  const amount = parseMajor(form.amount, currency);
  if (!amount.ok) throw new AppError("invalid_request", amount.message, { path: "$.amount" });
  if (!/^\d{4}-\d{2}-\d{2}$/.test(form.expires_on.trim())) {
    throw new AppError("invalid_request", "Enter the last day the coupon is good for (YYYY-MM-DD)", {
      path: "$.expires_on",
    });
  }
  const expiresAt = new Date(`${form.expires_on.trim()}T23:59:59.999Z`);
  if (Number.isNaN(expiresAt.getTime()) || expiresAt.toISOString().slice(0, 10) !== form.expires_on.trim()) {
    throw new AppError("invalid_request", "That day does not exist", { path: "$.expires_on" });
  }
  try {
    return await issueCoupon(
      {
        description: form.description.trim() || DEFAULT_DESCRIPTION,
        amount_minor: amount.minor,
        currency,
        expires_at: expiresAt,
        buyer_addresses: form.buyer_addresses.split(/[\s,]+/).filter((a) => a.length > 0),
      },
      now,
    );
  } catch (thrown) {
    const error = toAppError(thrown);
    const field = /^\$\.([a-z_]+)/.exec(error.path ?? "")?.[1];
    if (error.code !== "invalid_request" || !field) throw thrown;
    // the schema's message without its path ("buyer_addresses.1: …"): the page says it beside the field, naming
    // which address when it is one of them
    const index = /^\$\.buyer_addresses\.(\d+)/.exec(error.path ?? "")?.[1];
    const message = error.message.replace(/^[a-z_.0-9]+: /, "");
    throw new AppError(
      error.code,
      index === undefined ? message : `Address ${Number(index) + 1}: ${message}`,
      {
        path: `$.${FORM_FIELD[field] ?? field}`,
      },
    );
  }
};

/** Every coupon with its grant and redemption counts. @throws AppError not_found unless the operator */
export const operatorListCoupons = async (account: AccountSummary) => {
  requireOperator(account);
  return listCoupons();
};

export type PayableView = Awaited<ReturnType<typeof listCouponPayables>>[number] & {
  store_slug: string;
  store_name: string;
};

const withStores = async (
  payables: Awaited<ReturnType<typeof listCouponPayables>>,
): Promise<PayableView[]> => {
  const stores = await (
    await getDb()
  ).store.findMany({
    where: { id: { in: [...new Set(payables.map((p) => p.store_id))] } },
    select: { id: true, slug: true, name: true },
  });
  return payables.map((p) => {
    const store = stores.find((s) => s.id === p.store_id);
    return { ...p, store_slug: store?.slug ?? "", store_name: store?.name ?? p.store_id };
  });
};

/** What the service owes every store, newest first. @throws AppError not_found unless the operator */
export const operatorListPayables = async (account: AccountSummary): Promise<PayableView[]> => {
  requireOperator(account);
  return withStores(await listCouponPayables());
};

/** Open payables summed per currency (minor units). */
export const openTotals = (payables: { status: string; currency: string; amount_minor: number }[]) => {
  const totals = new Map<string, number>();
  for (const p of payables) {
    if (p.status === "open") totals.set(p.currency, (totals.get(p.currency) ?? 0) + p.amount_minor);
  }
  return [...totals].map(([currency, amount_minor]) => ({ currency, amount_minor }));
};

/**
 * What the service owes one store, for its owner and staff (and the operator).
 * @throws AppError store_not_found (no such store, or not this account's)
 */
export const storeCouponPayables = async (account: AccountSummary, slug: string) => {
  const { store } = await storeForAccount(account, slug, "staff");
  const payables = await listCouponPayables({ storeId: store.id });
  return { payables: await withStores(payables), open: openTotals(payables) };
};

export const SettlePayablesSchema = z
  .object({
    store_slug: z.string().min(1).max(100),
    /** The open payables the operator saw and paid: one that arrived meanwhile is not settled unseen. */
    payable_ids: z.array(z.string().min(1).max(200)).min(1).max(1000),
  })
  .strict();

/**
 * Records a store's open payables as paid outside the rails: open → settled with the time; a settled or void one
 * is left as it is, so settling twice changes nothing. Returns how many moved.
 * @throws AppError not_found (not the operator), store_not_found, invalid_request
 */
export const operatorSettlePayables = async (
  account: AccountSummary,
  raw: z.input<typeof SettlePayablesSchema>,
  now = new Date(),
): Promise<{ settled: number }> => {
  requireOperator(account);
  const parsed = SettlePayablesSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError("invalid_request", `${issue.path.join(".") || "input"}: ${issue.message}`, {
      path: `$.${issue.path.join(".")}`,
    });
  }
  const { store } = await storeForAccount(account, parsed.data.store_slug, "owner");
  const db = await getDb();
  const { count } = await db.couponPayable.updateMany({
    where: { id: { in: parsed.data.payable_ids }, storeId: store.id, status: "open" },
    data: { status: "settled", settledAt: now },
  });
  return { settled: count };
};
