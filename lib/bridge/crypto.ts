import { UcpError } from "@agent-commerce/agent-kit";

import { buyerCredentials, type BridgeContext } from "./context";
import { businessError, toToolError, type ToolError } from "./errors";
import { BridgeInputError, formatBaseUnits, formatMoney } from "./money";

// What quote_purchase and the crypto side of confirm_purchase share: the buyer's bearer (crypto is buyer-bound,
// seed §5 rule 1: sent alone), the buyer's allowance from /account/mcp (the AP2 intent mandate the buyer signed for
// this agent on the wallet page), and coin amounts made readable. The bridge reads only wire forms here: the
// allowance envelope is base64 JSON {payload, signature} as the service hands it out.

/** The buyer's bearer, or a refusal naming the argument that needs it. */
export const requireBearer = (ctx: BridgeContext, what: string, path: string): void => {
  if (ctx.credentials.authorization) return;
  throw new BridgeInputError(
    "identity_required",
    `${what} is buyer-bound: connect to the bridge with the buyer's OAuth bearer (Authorization: Bearer …, scope purchase:complete)`,
    path,
  );
};

/** The answer of get_intent_mandate (/account/mcp). */
export type Allowance = {
  id: string;
  intent_mandate: string;
  currency: string;
  per_order_max: number | null;
  expires_at: string;
};

/** The fields of an allowance's signed payload the bridge uses; null when the envelope is not readable. */
export const allowancePayload = (
  envelope: string,
): { buyer_address?: string; merchants?: "*" | string[] } | null => {
  try {
    const decoded = JSON.parse(Buffer.from(envelope, "base64").toString("utf8")) as { payload?: unknown };
    const payload = decoded.payload as { buyer_address?: unknown; merchants?: unknown } | undefined;
    if (typeof payload !== "object" || payload === null) return null;
    return {
      ...(typeof payload.buyer_address === "string" ? { buyer_address: payload.buyer_address } : {}),
      ...(payload.merchants === "*" ||
      (Array.isArray(payload.merchants) && payload.merchants.every((m) => typeof m === "string"))
        ? { merchants: payload.merchants as "*" | string[] }
        : {}),
    };
  } catch {
    return null;
  }
};

/**
 * The buyer's allowance for this agent: `id` (payment_mandate_id) or, without one, the newest valid one; null
 * when the buyer has signed none (and `id` was not given). A 401 propagates (relayed to the MCP client).
 */
export const fetchAllowance = async (
  ctx: BridgeContext,
  id: string | undefined,
  path: string,
): Promise<Allowance | null> => {
  const answer = await ctx.account.tool("/account/mcp", "get_intent_mandate", id ? { id } : {}, {
    credentials: buyerCredentials(ctx),
    ...(ctx.headers ? { headers: ctx.headers } : {}),
  });
  const refused = businessError(answer.structuredContent);
  if (refused) {
    if (refused.code === "not_found" && id === undefined) return null;
    throw new BridgeInputError(
      refused.code,
      `${refused.message}. The buyer signs an allowance for this agent on the wallet page (continue_url from quote_purchase); get_intent_mandate lists it`,
      path,
    );
  }
  return answer.structuredContent as unknown as Allowance;
};

/** The service's refusal of a crypto call as a bridge error, its path moved onto the bridge argument it is about. */
export const refusalAt = (error: ToolError, paths: Record<string, string>, fallback: string): never => {
  const own = error.path === undefined ? undefined : paths[error.path];
  const prefixed =
    error.path !== undefined && own === undefined
      ? Object.entries(paths).find(
          ([raw]) => error.path!.startsWith(`${raw}.`) || error.path!.startsWith(`${raw}[`),
        )
      : undefined;
  const path = own ?? (prefixed ? `${prefixed[1]}${error.path!.slice(prefixed[0].length)}` : undefined);
  // what else the service (or the bridge) said travels with it: what is missing, where the buyer acts next
  const { code, message, path: _path, ...details } = error;
  throw new BridgeInputError(code, message, path ?? error.path ?? fallback, details);
};

/** A thrown call failure as a ToolError; a 401 is rethrown so the HTTP surface relays it (seed §5 rule 6). */
export const failureOf = (ctx: BridgeContext, thrown: unknown): ToolError => {
  if (thrown instanceof UcpError && thrown.status === 401 && ctx.onUnauthorized) throw thrown;
  return toToolError(thrown);
};

type RawLeg = {
  coin_type: string;
  symbol: string;
  decimals: number;
  amount: string;
  fiat_amount: number;
  rate?: unknown;
};

/** A quote leg with its amount readable: base units kept, whole coins beside them, the fiat part formatted. */
export const presentLeg = (leg: RawLeg, currency: string) => {
  const whole = formatBaseUnits(leg.amount, leg.decimals);
  return {
    coin_type: leg.coin_type,
    symbol: leg.symbol,
    decimals: leg.decimals,
    amount: leg.amount,
    amount_formatted: whole,
    formatted: `${whole} ${leg.symbol}`,
    fiat_amount: { amount: leg.fiat_amount, currency, formatted: formatMoney(leg.fiat_amount, currency) },
    ...(leg.rate !== undefined ? { rate: leg.rate } : {}),
  };
};

/** SUI's decimals: the gas reserve is always in SUI, which a quote may not list among its legs. */
const SUI_DECIMALS = 9;
const isSui = (coinType: string) => /^0x0*2::sui::SUI$/.test(coinType);

/** The gas reserve (SUI the wallet keeps for the fee) with its amount in whole coins. */
export const presentGasReserve = (
  reserve: { coin_type: string; amount: string } | undefined,
  legs: readonly RawLeg[],
) => {
  if (!reserve) return undefined;
  const decimals = isSui(reserve.coin_type)
    ? SUI_DECIMALS
    : legs.find((l) => l.coin_type === reserve.coin_type)?.decimals;
  if (decimals === undefined) return { ...reserve };
  const whole = formatBaseUnits(reserve.amount, decimals);
  return {
    ...reserve,
    amount_formatted: whole,
    formatted: `${whole} ${isSui(reserve.coin_type) ? "SUI" : reserve.coin_type.split("::").pop()}`,
  };
};

export type { RawLeg };
