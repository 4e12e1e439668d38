import type { Checkout } from "@agent-commerce/agent-kit";

import { buyerCredentials, platformCredentials, storeMcpPath, type BridgeContext } from "./context";
import { businessError, type MissingField, type ToolError } from "./errors";

// A checkout as the bridge reads it before paying or explaining a refusal: the store's get_checkout, with the
// platform key, or for a crypto purchase the buyer's bearer first (a checkout the platform created is visible to
// the buyer once a buyer-bound call bound it, B17; before that its creator's key still reads it).

export type CheckoutRef = { store_slug: string; checkout_id: string };
export type LiveCheckout = Checkout & Record<string, unknown>;

const readWith = async (
  ctx: BridgeContext,
  ref: CheckoutRef,
  credentials: ReturnType<typeof platformCredentials>,
): Promise<LiveCheckout> => {
  const answer = await ctx.shop.tool(
    storeMcpPath(ref.store_slug),
    "get_checkout",
    { id: ref.checkout_id },
    { credentials, ...(ctx.headers ? { headers: ctx.headers } : {}) },
  );
  const refused = businessError(answer.structuredContent);
  if (refused) throw Object.assign(new Error(refused.message), { toolError: refused });
  return answer.structuredContent as LiveCheckout;
};

/**
 * The checkout as it stands now. A refusal is thrown carrying `toolError`; a transport failure (a 401 included)
 * is thrown as it came.
 */
export const readCheckout = async (
  ctx: BridgeContext,
  ref: CheckoutRef,
  { buyerFirst }: { buyerFirst: boolean },
): Promise<LiveCheckout> => {
  if (!buyerFirst) return readWith(ctx, ref, platformCredentials(ctx));
  try {
    return await readWith(ctx, ref, buyerCredentials(ctx));
  } catch (thrown) {
    const own = (thrown as { toolError?: ToolError }).toolError;
    if (own?.code !== "not_found" || !ctx.credentials.apiKey) throw thrown;
    return readWith(ctx, ref, platformCredentials(ctx));
  }
};

/** What an incomplete checkout still needs: its error messages (the preflight's), each with its JSONPath. */
export const missingOf = (checkout: Record<string, unknown>): MissingField[] =>
  (Array.isArray(checkout.messages) ? (checkout.messages as Record<string, unknown>[]) : [])
    .filter((m) => m.type === "error")
    .map((m) => ({
      path: typeof m.path === "string" ? m.path : "$",
      code: typeof m.code === "string" ? m.code : "error",
      message: typeof m.content === "string" ? m.content : "required",
    }));

/**
 * An incomplete checkout as a tool error: `code` as given (the service's own, when it answered one), the message
 * naming every missing field with its path, and `missing` listing them for a program.
 */
export const incompleteError = (
  ref: CheckoutRef,
  checkout: Record<string, unknown>,
  code = "checkout_incomplete",
): ToolError => {
  const missing = missingOf(checkout);
  const list = missing.map((m) => `${m.path} (${m.message})`).join("; ");
  return {
    code,
    message:
      `Checkout ${ref.checkout_id} is ${String(checkout.status)}` +
      (missing.length > 0
        ? `: missing ${list}. Set them with update_checkout (paths are in the checkout), then try again`
        : ": it cannot be paid yet; read it again with update_checkout"),
    ...(missing[0] ? { path: missing[0].path } : {}),
    missing,
  };
};
