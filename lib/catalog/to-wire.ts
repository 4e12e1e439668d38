import type { Product, Store, Variant } from "@/lib/generated/prisma/client";
import { storeEndpoint } from "@/lib/stores/store-endpoint";

import { valueAvailability, type SelectedOption } from "./select-variants";

// Product and variant → UCP wire shapes (CONTRACT.md §5). The only place catalog rows become snake_case JSON.
// Prices are Price objects {amount, currency} in minor units (seed vs spec #2); seller info rides in
// metadata.svc_seller (seed §2) and in variant.seller for generic UCP agents.

type Attribute = { name: string; value: string };
type OptionDef = { name: string; values: string[] };
type MediaItem = { type: string; url: string; alt_text?: string };

const asArray = <T>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);

/** Absolute URL for a stored media path (the schema wants `format: uri`). */
const absolute = (url: string, baseUrl: string): string =>
  /^https?:\/\//.test(url) ? url : `${baseUrl}${url}`;

export const sellerMetadata = (store: Pick<Store, "slug" | "name">, baseUrl: string) => ({
  svc_seller: { slug: store.slug, name: store.name, endpoint: storeEndpoint(store, baseUrl) },
});

const price = (amount: number, currency: string) => ({ amount, currency });

export const variantToWire = (
  variant: Variant,
  product: Product,
  store: Pick<Store, "slug" | "name">,
  baseUrl: string,
) => {
  const available = variant.inventory > 0;
  return {
    id: variant.id,
    title: variant.title,
    description: {
      plain:
        variant.title === product.title ? product.descriptionText : `${product.title} — ${variant.title}`,
    },
    handle: variant.handle,
    ...(variant.sku ? { sku: variant.sku } : {}),
    ...(variant.barcode
      ? { barcodes: [{ type: variant.barcodeType ?? "GTIN", value: variant.barcode }] }
      : {}),
    price: price(variant.priceMinor, variant.currency),
    ...(variant.listPriceMinor !== null
      ? { list_price: price(variant.listPriceMinor, variant.currency) }
      : {}),
    availability: { available, status: available ? "in_stock" : "out_of_stock" },
    options: asArray<SelectedOption>(variant.options),
    seller: {
      name: store.name,
      links: [{ type: "store", url: storeEndpoint(store, baseUrl), title: store.name }],
    },
  };
};

export type WireProduct = ReturnType<typeof productToWire>;

/**
 * A product with its variants (ordered so the featured one is first). `detail` adds option values with
 * `available`/`exists` as get_product's detail shape requires: relative to `selection` when given (lookup.md
 * "Availability Signals"), else over every variant. `allVariants` (default: `variants`) is the whole product when
 * only a subset is listed: price ranges and availability are computed over it.
 */
export const productToWire = (
  product: Product,
  variants: readonly Variant[],
  store: Pick<Store, "slug" | "name">,
  baseUrl: string,
  {
    detail = false,
    selection,
    allVariants = variants,
  }: { detail?: boolean; selection?: readonly SelectedOption[]; allVariants?: readonly Variant[] } = {},
) => {
  const amounts = allVariants.map((v) => v.priceMinor);
  const currency = allVariants[0]?.currency ?? "USD";
  const listAmounts = allVariants.map((v) => v.listPriceMinor ?? v.priceMinor);
  const optionDefs = asArray<OptionDef>(product.options);
  const availableLabels = (name: string) =>
    new Set(
      allVariants
        .filter((v) => v.inventory > 0)
        .flatMap((v) =>
          asArray<SelectedOption>(v.options)
            .filter((o) => o.name === name)
            .map((o) => o.label),
        ),
    );
  return {
    id: product.id,
    handle: product.handle,
    title: product.title,
    description: {
      plain: product.descriptionText,
      ...(product.descriptionHtml ? { html: product.descriptionHtml } : {}),
    },
    ...(product.url ? { url: absolute(product.url, baseUrl) } : {}),
    categories: product.categories.map((value) => ({ value, taxonomy: "google_product_category" })),
    price_range: { min: price(Math.min(...amounts), currency), max: price(Math.max(...amounts), currency) },
    ...(listAmounts.some((a, i) => a !== amounts[i])
      ? {
          list_price_range: {
            min: price(Math.min(...listAmounts), currency),
            max: price(Math.max(...listAmounts), currency),
          },
        }
      : {}),
    media: asArray<MediaItem>(product.media).map((m) => ({ ...m, url: absolute(m.url, baseUrl) })),
    options: optionDefs.map((o) => {
      const inStock = availableLabels(o.name);
      return {
        name: o.name,
        values: o.values.map((label) =>
          !detail
            ? { label }
            : selection
              ? { label, ...valueAvailability(allVariants, selection, o.name, label) }
              : { label, available: inStock.has(label), exists: true },
        ),
      };
    }),
    variants: variants.map((v) => variantToWire(v, product, store, baseUrl)),
    tags: product.tags,
    metadata: {
      ...sellerMetadata(store, baseUrl),
      attributes: asArray<Attribute>(product.attributes),
    },
  };
};
