import "server-only";

import { z } from "zod";

import { formatMajor, parseMajor } from "@/lib/catalog/admin/major-units";
import { getDb } from "@/lib/config/db";
import { AppError } from "@/lib/core/errors";
import type { Store } from "@/lib/generated/prisma/client";

// What the store does with an agent's cancellation and refund requests (lib/orders/order-requests.ts): cancel at
// once while nothing has shipped, or let the merchant decide; pay back a refund request at once up to an amount,
// or let the merchant decide every one. The admin sends the amount as major-unit text, the merchant API in minor
// units; both end here. Also whether the store keeps the shipping addresses agents send, to offer them back to the
// same agent for the same buyer (lib/checkout/saved-addresses.ts); turning it off forgets every saved address.

export const AGENT_CANCELLATION_POLICIES = ["automatic", "review"] as const;

const PolicySchema = z.strictObject({
  agentCancellations: z.enum(AGENT_CANCELLATION_POLICIES, {
    error: "Choose whether cancellations happen at once or wait for you",
  }),
  /** Major units as the form shows them ("25.00"); or `agentRefundAutoMinor` from the merchant API. */
  agentRefundAuto: z.string().optional(),
  agentRefundAutoMinor: z
    .number({ error: "agent_refund_auto_minor is an integer (minor units)" })
    .int("agent_refund_auto_minor is an integer (minor units)")
    .min(0, "agent_refund_auto_minor is 0 or more")
    .max(2_147_483_647, "agent_refund_auto_minor is too large")
    .optional(),
  /** "on" / "off" from the form, a boolean from the merchant API; omitted: unchanged. */
  rememberAddresses: z
    .union([z.boolean(), z.enum(["on", "off"])], {
      error: "Choose whether agents' addresses are kept (on) or not (off)",
    })
    .transform((v) => v === true || v === "on")
    .optional(),
});

export type AgentRequestPolicy = {
  agentCancellations: string;
  agentRefundAuto: string;
  rememberAddresses: "on" | "off";
};

/** The policy as the admin's form shows it. */
export const agentRequestPolicyOf = (store: Store): AgentRequestPolicy => ({
  agentCancellations: store.agentCancellations,
  agentRefundAuto: formatMajor(store.agentRefundAutoMinor, store.currency),
  rememberAddresses: store.rememberAddresses ? "on" : "off",
});

/**
 * @throws AppError invalid_request (with the field's path)
 */
export const updateAgentRequestPolicy = async (store: Store, raw: unknown): Promise<Store> => {
  const parsed = PolicySchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError("invalid_request", issue.message, {
      path: `$${issue.path.map((p) => `.${String(p)}`).join("")}`,
    });
  }
  let refundAutoMinor = parsed.data.agentRefundAutoMinor ?? store.agentRefundAutoMinor;
  if (parsed.data.agentRefundAuto !== undefined) {
    const major = parseMajor(
      parsed.data.agentRefundAuto === "" ? "0" : parsed.data.agentRefundAuto,
      store.currency,
    );
    if (!major.ok) throw new AppError("invalid_request", major.message, { path: "$.agentRefundAuto" });
    refundAutoMinor = major.minor;
  }
  const remember = parsed.data.rememberAddresses ?? store.rememberAddresses;
  const db = await getDb();
  return db.$transaction(async (tx) => {
    // off means kept no longer: what was saved goes with it
    if (!remember) await tx.savedAddress.deleteMany({ where: { storeId: store.id } });
    return tx.store.update({
      where: { id: store.id },
      data: {
        agentCancellations: parsed.data.agentCancellations,
        agentRefundAutoMinor: refundAutoMinor,
        rememberAddresses: remember,
      },
    });
  });
};
