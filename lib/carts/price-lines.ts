import "server-only";

import type { Db } from "@/lib/config/db";
import type { Store, Variant } from "@/lib/generated/prisma/client";
import type { UcpMessage } from "@/lib/http/envelope";

import type { LineItemInput } from "./schemas";

// Live pricing and availability for requested lines (seed §2: carts show live prices). Unknown variants are
// dropped with an `item_unavailable` error; lines beyond stock stay with an `out_of_stock` error so the agent
// can fix them in one update. Line indexes in paths refer to the response's `line_items`.

export type PricedLine = {
  variant: Variant & { product: { title: string; media: unknown } };
  quantity: number;
};

export const priceLines = async (
  db: Db,
  store: Store,
  lines: readonly LineItemInput[],
): Promise<{ lines: PricedLine[]; messages: UcpMessage[] }> => {
  const ids = [...new Set(lines.map((l) => l.item.id))];
  const variants = await db.variant.findMany({
    where: { id: { in: ids }, storeId: store.id },
    include: { product: { select: { title: true, media: true } } },
  });
  const byId = new Map(variants.map((v) => [v.id, v]));
  const messages: UcpMessage[] = [];
  const priced: PricedLine[] = [];
  for (const line of lines) {
    const variant = byId.get(line.item.id);
    if (!variant) {
      messages.push({
        type: "error",
        code: "item_unavailable",
        content: `Variant "${line.item.id}" is not sold by ${store.name}; use a variant id from this store's catalog`,
        severity: "recoverable",
      });
      continue;
    }
    const index = priced.length;
    priced.push({ variant, quantity: line.quantity });
    if (variant.inventory < line.quantity) {
      messages.push({
        type: "error",
        code: "out_of_stock",
        content:
          variant.inventory === 0
            ? `${variant.product.title} (${variant.title}) is out of stock`
            : `Only ${variant.inventory} of ${variant.product.title} (${variant.title}) in stock`,
        severity: "recoverable",
        path: `$.line_items[${index}].quantity`,
      });
    }
  }
  return { lines: priced, messages };
};
