import "server-only";

import { getDb } from "@/lib/config/db";
import type { Store } from "@/lib/generated/prisma/client";

import { cryptoSettingsOf } from "./crypto-settings";
import { liveRequirementsMissing } from "./make-store-live";

// What a merchant still has to do before agents can buy, read from the store's real state each time (nothing is
// ticked by hand, so it cannot drift): a product to sell, a shipping rate (checkout refuses every address without
// one), a payment rail, optionally crypto and webhooks, and going live (mode "live", which needs the live
// configuration of each enabled rail: make-store-live.ts).

export type SetupStepKey = "products" | "shipping" | "card" | "crypto" | "webhooks" | "live";

export type SetupStep = {
  key: SetupStepKey;
  done: boolean;
  /** Agents can buy without it (a store sells on one rail; webhooks are for the merchant's own systems). */
  optional: boolean;
  /** One sentence on the current state, for the merchant. */
  detail: string;
};

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The store's setup steps in the order a merchant does them. */
export const storeSetupChecklist = async (store: Store): Promise<SetupStep[]> => {
  const db = await getDb();
  const [products, rates] = await Promise.all([
    db.product.count({ where: { storeId: store.id } }),
    db.shippingRate.findMany({
      where: { storeId: store.id },
      select: { country: true },
      distinct: ["country"],
    }),
  ]);
  const countries = rates.map((r) => r.country).sort();
  const crypto = cryptoSettingsOf(store);
  const cryptoReady = crypto.enabled && crypto.payoutAddress !== null && crypto.acceptedCoins.length > 0;
  // the reasons only, without the operator CLI hints make-store-live.ts adds for its own command
  const liveMissing = liveRequirementsMissing(store).map((m) => m.replace(/ \(npm run admin[^)]*\)/, ""));
  const isLive = store.mode === "live";
  return [
    {
      key: "products",
      done: products > 0,
      optional: false,
      detail: products > 0 ? `${plural(products, "product")} in the catalog.` : "No products yet.",
    },
    {
      key: "shipping",
      done: countries.length > 0,
      optional: false,
      detail:
        countries.length === 0
          ? "Not shipping yet: agents cannot buy until the store has a shipping rate."
          : countries.includes("*")
            ? "Ships anywhere."
            : `Ships to ${countries.join(", ")}.`,
    },
    {
      key: "card",
      done: store.cardEnabled,
      optional: store.cryptoEnabled,
      detail: !store.cardEnabled
        ? "Card payments are off."
        : isLive
          ? "Card payments on Stripe."
          : "On, with the sandbox payment provider in test mode (no real money).",
    },
    {
      key: "crypto",
      done: cryptoReady,
      optional: store.cardEnabled,
      detail: cryptoReady
        ? `Accepts ${crypto.acceptedCoins.map((c) => c.symbol).join(", ")} on Sui.`
        : crypto.enabled
          ? "On, but it needs a payout address and at least one coin."
          : "Off: stablecoin payments on Sui, if you want them.",
    },
    {
      key: "webhooks",
      done: Boolean(store.webhookUrl?.trim()),
      optional: true,
      detail: store.webhookUrl?.trim()
        ? "Order events are sent to your endpoint."
        : "No endpoint: your systems hear of orders only from this admin.",
    },
    {
      key: "live",
      done: isLive,
      optional: false,
      detail: isLive
        ? "Live: agents pay with real money."
        : liveMissing.length > 0
          ? `In test mode. To go live it needs ${liveMissing.join("; and ")}.`
          : "In test mode, ready to go live.",
    },
  ];
};
