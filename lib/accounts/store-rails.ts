import "server-only";

import { z } from "zod";

import { AppError } from "@/lib/core/errors";
import {
  createMerchantKey,
  CreateMerchantKeyInputSchema,
  listMerchantKeys,
  revokeMerchantKey,
  type CreateMerchantKeyInput,
} from "@/lib/credentials/merchant-keys";
import { setCryptoSettings } from "@/lib/stores/crypto-settings";
import {
  closeOwedBackOfStore,
  CloseOwedBackSchema,
  owedBackOfStore,
  paymentRailsOf,
} from "@/lib/stores/payment-rails";
import { setStripeKeys } from "@/lib/stores/set-stripe-keys";

import type { AccountSummary } from "./accounts";
import { storeForAccount } from "./store-access";

// The admin's payments and API-keys pages, for one signed-in account: staff may look, only an owner changes the
// rails or the store's merchant keys. Each action is the account check, then the same operation the CLI and the
// merchant REST API call (set-stripe-keys, crypto-settings, owed-back, merchant-keys).

/** The input as `schema` reads it. @throws AppError invalid_request with the JSONPath of the first bad field */
const parseInput = <S extends z.ZodType>(schema: S, raw: unknown): z.output<S> => {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new AppError("invalid_request", issue.message, {
    path: `$${issue.path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("")}`,
  });
};

/** The payments page's data. @throws AppError store_not_found (no part in it) */
export const railsPageOf = async (account: AccountSummary, slug: string) => {
  const { store, role } = await storeForAccount(account, slug, "staff");
  return { store, role, rails: paymentRailsOf(store), owedBack: await owedBackOfStore(store) };
};

export const StripeKeysFormSchema = z.strictObject({
  secret_key: z.string().trim().max(300).optional(),
  publishable_key: z.string().trim().max(300).optional(),
  webhook_secret: z.string().trim().max(300).optional(),
});

/**
 * Sets the live Stripe keys: blank fields keep what is stored (a secret is never shown back to be re-entered).
 * @throws AppError store_not_found, owner_required, invalid_request (with the field's path)
 */
export const setStripeKeysAs = async (
  account: AccountSummary,
  slug: string,
  raw: z.input<typeof StripeKeysFormSchema>,
): Promise<void> => {
  const { store } = await storeForAccount(account, slug, "owner");
  const input = parseInput(StripeKeysFormSchema, raw);
  const given = (value: string | undefined) => (value ? value : undefined);
  await setStripeKeys(store.slug, {
    secretKey: given(input.secret_key),
    publishableKey: given(input.publishable_key),
    webhookSecret: given(input.webhook_secret),
  });
};

/** @throws AppError store_not_found, owner_required, invalid_request, unsupported_coin */
export const setCryptoSettingsAs = async (account: AccountSummary, slug: string, raw: unknown) => {
  const { store } = await storeForAccount(account, slug, "owner");
  return setCryptoSettings(store.slug, raw);
};

/** @throws AppError store_not_found, owner_required, not_found, invalid_request, conflict */
export const closeOwedBackAs = async (account: AccountSummary, slug: string, raw: unknown) => {
  const { store } = await storeForAccount(account, slug, "owner");
  return closeOwedBackOfStore(store, parseInput(CloseOwedBackSchema, raw));
};

/** The API-keys page's data: staff may see the keys (never a secret). */
export const merchantKeysPageOf = async (account: AccountSummary, slug: string) => {
  const { store, role } = await storeForAccount(account, slug, "staff");
  return { store, role, keys: await listMerchantKeys(store) };
};

/** @throws AppError store_not_found, owner_required; ZodError for a bad name or permissions */
export const createMerchantKeyAs = async (
  account: AccountSummary,
  slug: string,
  input: CreateMerchantKeyInput,
) => {
  const { store } = await storeForAccount(account, slug, "owner");
  return createMerchantKey(store, parseInput(CreateMerchantKeyInputSchema, input), { accountId: account.id });
};

/** @throws AppError store_not_found, owner_required, not_found */
export const revokeMerchantKeyAs = async (account: AccountSummary, slug: string, id: string) => {
  const { store } = await storeForAccount(account, slug, "owner");
  return revokeMerchantKey(store, id);
};
