import type { ChangeRow } from "./read-changes";

// One change on the wire (docs/catalog-changes.md "Response"): snake_case, money in minor units with its currency,
// a variant's state after the change (price, list price, availability) on every variant change but a deletion.

const price = (amount: number, currency: string) => ({ amount, currency });

export const changeToWire = (row: ChangeRow) => {
  const isVariant = row.variantId !== null;
  const state =
    isVariant && row.kind !== "deleted" && row.priceMinor !== null && row.currency !== null
      ? {
          price: price(row.priceMinor, row.currency),
          list_price: row.listPriceMinor === null ? null : price(row.listPriceMinor, row.currency),
          availability: {
            available: row.available === true,
            status: row.available === true ? "in_stock" : "out_of_stock",
          },
        }
      : {};
  return {
    id: row.id,
    kind: row.kind,
    resource: isVariant ? "variant" : "product",
    seller: row.storeSlug,
    product_id: row.productId,
    ...(isVariant ? { variant_id: row.variantId } : {}),
    ...(row.kind === "updated" ? { changed_fields: row.fields } : {}),
    ...state,
    changed_at: row.changedAt,
  };
};
