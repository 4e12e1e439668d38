import "server-only";

import { z } from "zod";

import { requireCapability } from "@/lib/agents/negotiate-agent";
import { getDb } from "@/lib/config/db";
import { successEnvelope } from "@/lib/core/envelope";
import { AppError } from "@/lib/core/errors";
import { defineOperation } from "@/lib/core/operation";

import { productToWire } from "./to-wire";

// get_product (UCP catalog lookup §get_product): full detail of one product by product id or variant id, on the
// global catalog or scoped to one store. A variant id puts that variant first and mirrors its options in
// `selected`. A miss is a business outcome: 200 + `not_found` (unrecoverable).

export const GetProductInputSchema = z.object({
  id: z.string().min(1, "id is required").max(200),
  selected: z.array(z.object({ name: z.string(), label: z.string() })).optional(),
  preferences: z.array(z.string()).optional(),
  context: z.record(z.string(), z.unknown()).optional(),
});
export type GetProductInput = z.infer<typeof GetProductInputSchema>;

export const getProduct = defineOperation({
  name: "get_product",
  title: "Get product",
  description:
    "Full detail of one product (all variants, options, media, availability) by product id or variant id.",
  scope: "both",
  input: GetProductInputSchema,
  mutates: false,
  tier: "anonymous",
  mcp: { namespace: "catalog", annotations: { readOnlyHint: true } },
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
    const variants = featured
      ? [featured, ...product.variants.filter((v) => v !== featured)]
      : product.variants;
    const { store, ...row } = product;
    const wire = productToWire(row, variants, store, ctx.baseUrl, { detail: true });
    return {
      body: {
        ucp: successEnvelope(["dev.ucp.shopping.catalog.lookup"], {}, ctx.ucpVersion),
        product: featured ? { ...wire, selected: wire.variants[0]?.options ?? [] } : wire,
      },
    };
  }),
});
