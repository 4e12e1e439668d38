import "server-only";

import { z } from "zod";

import { requireCapability } from "@/lib/agents/negotiate-agent";
import { getDb } from "@/lib/config/db";
import { successEnvelope } from "@/lib/core/envelope";
import { AppError } from "@/lib/core/errors";
import { defineOperation } from "@/lib/core/operation";
import { ProductOutputSchema } from "@/lib/ucp/output-schemas";

import { selectVariants } from "./select-variants";
import { productToWire } from "./to-wire";

// get_product (UCP catalog lookup §get_product): full detail of one product by product id or variant id, on the
// global catalog or scoped to one store. `product.selected` is the effective selection for a product with options
// (the variant's own options, the request's `selected` relaxed per `preferences`, or the featured variant's), and
// option values carry availability relative to it (./select-variants.ts). A miss is a business outcome: 200 +
// `not_found` (unrecoverable).

export const GetProductInputSchema = z.object({
  id: z.string().min(1, "id is required").max(200),
  selected: z
    .array(z.object({ name: z.string().max(200), label: z.string().max(200) }))
    .max(50)
    .refine((s) => new Set(s.map((o) => o.name)).size === s.length, "each option name at most once")
    .optional(),
  preferences: z.array(z.string().max(200)).max(50).optional(),
  context: z.record(z.string(), z.unknown()).optional(),
});
export type GetProductInput = z.infer<typeof GetProductInputSchema>;

export const getProduct = defineOperation({
  name: "get_product",
  title: "Get product",
  description:
    "Full detail of one product by product id or variant id: every variant (id, price in minor units, availability), options, media. Find ids with search_catalog or lookup_catalog first. Returns { product }; to buy, pass a variant id as line_items[].item.id to create_cart or create_checkout on the store named in product.metadata.svc_seller.",
  errors: ["not_found"],
  scope: "both",
  input: GetProductInputSchema,
  output: ProductOutputSchema,
  mutates: false,
  tier: "anonymous",
  buyerScope: "purchase:complete",
  mcp: {
    namespace: "catalog",
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  /** @throws AppError not_found */
  run: requireCapability("dev.ucp.shopping.catalog.lookup", async (ctx, input) => {
    const db = await getDb();
    const storeFilter = ctx.store ? { storeId: ctx.store.id } : {};
    const variantHit = input.id.startsWith("var_")
      ? await db.variant.findFirst({ where: { id: input.id, ...storeFilter }, select: { productId: true } })
      : null;
    const productId = variantHit?.productId ?? input.id;
    const product = await db.product.findFirst({
      where: { id: productId, ...storeFilter },
      include: { variants: { orderBy: { position: "asc" } }, store: true },
    });
    if (!product || product.variants.length === 0) {
      throw new AppError("not_found", `No product or variant with id "${input.id}"`, { path: "$.id" });
    }
    const featured = variantHit ? product.variants.find((v) => v.id === input.id) : undefined;
    const { store, ...row } = product;
    const hasOptions = Array.isArray(row.options) && row.options.length > 0;
    const { selected, variants } = selectVariants(product.variants, hasOptions, {
      ...(featured ? { featured } : {}),
      ...(input.selected ? { selected: input.selected } : {}),
      ...(input.preferences ? { preferences: input.preferences } : {}),
    });
    const wire = productToWire(row, variants, store, ctx.baseUrl, {
      detail: true,
      allVariants: product.variants,
      ...(selected ? { selection: selected } : {}),
    });
    return {
      body: {
        ucp: successEnvelope(["dev.ucp.shopping.catalog.lookup"], {}, ctx.ucpVersion),
        product: selected ? { ...wire, selected } : wire,
      },
    };
  }),
});
