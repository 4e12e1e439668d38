import "server-only";

import { z } from "zod";

import { EmailAddressSchema } from "@/lib/accounts/schemas";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";

// A buyer asks the merchant to forget their addresses: every address agents saved for that e-mail in this store
// (lib/checkout/saved-addresses.ts), whichever agent saved it. E-mails are kept trimmed and lower-cased, as typed
// here.

const ForgetSchema = z.strictObject({ email: EmailAddressSchema });

/** @throws AppError invalid_request (the e-mail, at `$.email`) */
export const forgetSavedAddresses = async (
  store: Store,
  raw: unknown,
): Promise<{ email: string; forgotten: number }> => {
  const parsed = ForgetSchema.safeParse(raw);
  if (!parsed.success) {
    throw new AppError("invalid_request", parsed.error.issues[0]!.message, { path: "$.email" });
  }
  const { email } = parsed.data;
  const { count } = await (await getDb()).savedAddress.deleteMany({ where: { storeId: store.id, email } });
  return { email, forgotten: count };
};
