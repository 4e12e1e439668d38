import { z } from "zod";

import { parseMajor } from "./major-units";

// The one schema of a product as a merchant writes it: the admin's form, the CSV/JSON import (one product per
// group of rows) and, later, the merchant REST API all parse with it, so a rule cannot differ between them.
// Prices are major-unit decimals in the store's currency (text, or a JSON number) and come out as integer minor
// units; a price with more decimals than the currency has is refused beside its field, never rounded.

const HANDLE = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;

/** "" and whitespace-only count as absent (an empty form field, an empty CSV cell). */
const blankToUndefined = (value: unknown) =>
  typeof value === "string" && value.trim() === "" ? undefined : value;

const price = (currency: string) =>
  z.union([z.string(), z.number()]).transform((value, ctx) => {
    const parsed = parseMajor(String(value), currency);
    if (parsed.ok) return parsed.minor;
    ctx.addIssue({ code: "custom", message: parsed.message });
    return z.NEVER;
  });

const count = (what: string, max: number) =>
  z.preprocess(
    (value) => (typeof value === "string" && /^\s*\d+\s*$/.test(value) ? Number(value) : value),
    z
      .number({ error: `Enter the ${what} as a whole number` })
      .int(`Enter the ${what} as a whole number`)
      .min(0, `The ${what} cannot be negative`)
      .max(max, `The ${what} is at most ${max}`),
  );

const word = (what: string) =>
  z.string().trim().min(1, `A ${what} cannot be empty`).max(200, `A ${what} has at most 200 characters`);

const words = (what: string, max: number) => z.array(word(what)).max(max, `At most ${max} ${what}s`);

/**
 * One product tag as stored: trimmed and lower-cased (tags match case-insensitively). Shipping rates name a tag
 * with it too (their free-shipping tag), so the two always compare alike.
 */
export const ProductTagSchema = word("tag").toLowerCase();

/** A URL the catalog links to (never fetched by us): http(s) only, so a buyer's client can show it safely. */
export const ImageUrlSchema = z
  .string()
  .trim()
  .max(2000, "Use a URL of at most 2000 characters")
  .refine((text) => {
    try {
      const url = new URL(text);
      return (url.protocol === "https:" || url.protocol === "http:") && url.hostname.length > 0;
    } catch {
      return false;
    }
  }, "Use an http(s) URL such as https://example.com/image.jpg");

export const variantInputSchema = (currency: string) =>
  z.strictObject({
    /** Present when editing an existing variant (it keeps its id, so carts holding it still work). */
    id: z.preprocess(blankToUndefined, z.string().max(64).optional()),
    title: z.string().trim().min(1, "Name the variant (e.g. Default)").max(200, "Use at most 200 characters"),
    sku: z.preprocess(blankToUndefined, z.string().trim().max(100, "Use at most 100 characters").optional()),
    price: price(currency),
    listPrice: z.preprocess(blankToUndefined, price(currency).optional()),
    inventory: count("inventory", 1_000_000_000),
    weightGrams: z.preprocess(blankToUndefined, count("weight", 10_000_000).default(0)),
  });

export const productInputSchema = (currency: string) =>
  z.strictObject({
    /** Path-safe id of the product in the store; made from the title when absent. */
    handle: z.preprocess(
      blankToUndefined,
      z
        .string()
        .trim()
        .toLowerCase()
        .max(100, "Use at most 100 characters")
        .regex(HANDLE, "Use lower-case letters, digits and hyphens")
        .optional(),
    ),
    title: z.string().trim().min(1, "Give the product a title").max(200, "Use at most 200 characters"),
    description: z.preprocess((v) => v ?? "", z.string().trim().max(20_000, "Use at most 20000 characters")),
    categories: words("category", 20).default([]),
    tags: z
      .array(ProductTagSchema)
      .max(50, "At most 50 tags")
      .default([])
      .transform((tags) => [...new Set(tags)]),
    attributes: z
      .array(
        z.strictObject({
          name: z.string().trim().min(1, "Name the attribute").max(100, "Use at most 100 characters"),
          value: z
            .string()
            .trim()
            .min(1, "Give the attribute a value")
            .max(500, "Use at most 500 characters"),
        }),
      )
      .max(50, "At most 50 attributes")
      .default([]),
    images: z
      .array(
        z.strictObject({
          url: ImageUrlSchema,
          alt: z.preprocess(
            blankToUndefined,
            z.string().trim().max(300, "Use at most 300 characters").optional(),
          ),
        }),
      )
      .max(20, "At most 20 images")
      .default([]),
    variants: z
      .array(variantInputSchema(currency))
      .min(1, "Add at least one variant with a price")
      .max(100, "At most 100 variants")
      .superRefine((variants, ctx) => {
        const seen = new Map<string, number>();
        variants.forEach((v, i) => {
          if (!v.sku) return;
          if (seen.has(v.sku)) {
            ctx.addIssue({ code: "custom", path: [i, "sku"], message: `SKU ${v.sku} is used twice` });
          }
          seen.set(v.sku, i);
        });
      }),
  });

export type ProductInput = z.output<ReturnType<typeof productInputSchema>>;
export type ProductInputRaw = z.input<ReturnType<typeof productInputSchema>>;

/** Editing: the product's id beside the same fields. */
export const updateProductInputSchema = (currency: string) =>
  productInputSchema(currency).extend({ productId: z.string().min(1).max(64) });

export const DeleteProductInputSchema = z.strictObject({ productId: z.string().min(1).max(64) });

export const ListProductsInputSchema = z.strictObject({
  query: z.preprocess(blankToUndefined, z.string().trim().max(200).optional()),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
});
export type ListProductsInput = z.input<typeof ListProductsInputSchema>;

/** A zod issue path as the JSONPath our errors carry: ["variants", 0, "price"] → "$.variants[0].price". */
export const jsonPath = (path: readonly PropertyKey[]): string =>
  `$${path.map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`)).join("")}`;
