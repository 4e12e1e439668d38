import "server-only";

import { requireCapability } from "@/lib/agents/negotiate-agent";
import { getDb } from "@/lib/config/db";
import { successEnvelope, type UcpMessage } from "@/lib/core/envelope";
import { AppError } from "@/lib/core/errors";
import { defineOperation } from "@/lib/core/operation";
import type { Variant } from "@/lib/generated/prisma/client";
import { LookupOutputSchema } from "@/lib/ucp/output-schemas";

import { productToWire, variantToWire } from "../to-wire";
import { inStockFirst, loadProducts } from "./load-products";
import { LOOKUP_MAX_IDS, LookupInputSchema } from "./schemas";

// lookup_catalog (UCP catalog lookup): one batch of identifiers — product ids and handles, variant ids, handles,
// SKUs and barcodes — resolved in two indexed queries. Each product comes back once; each returned variant says
// which inputs resolved to it: `exact` (the input names that variant) or `featured` (a product-level input; we
// pick the first in-stock variant). Unknown ids are left out with an info message (UCP: still 200).

/** A handle or SKU can repeat across stores: at most this many products per call. */
const MAX_PRODUCTS = 100;

type Input = { id: string; match: "exact" | "featured" };

export const lookupCatalog = defineOperation({
  name: "lookup_catalog",
  title: "Look up catalog",
  description: `Resolve up to ${LOOKUP_MAX_IDS} product ids, variant ids, handles, SKUs or barcodes in one call. Each variant lists the inputs that resolved to it (match exact or featured).`,
  errors: ["request_too_large"],
  scope: "both",
  input: LookupInputSchema,
  output: LookupOutputSchema,
  mutates: false,
  tier: "anonymous",
  buyerScope: "purchase:complete",
  mcp: {
    namespace: "catalog",
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  /** @throws AppError request_too_large */
  run: requireCapability("dev.ucp.shopping.catalog.lookup", async (ctx, input) => {
    const ids = [...new Set(input.ids)];
    if (ids.length > LOOKUP_MAX_IDS) {
      throw new AppError(
        "request_too_large",
        `lookup accepts at most ${LOOKUP_MAX_IDS} distinct ids per call (got ${ids.length})`,
        { path: "$.ids" },
      );
    }
    const db = await getDb();
    const scope = ctx.store ? { storeId: ctx.store.id } : {};
    const [productHits, variantHits] = await Promise.all([
      db.product.findMany({
        where: { ...scope, OR: [{ id: { in: ids } }, { handle: { in: ids } }] },
        select: { id: true, handle: true },
        take: MAX_PRODUCTS,
      }),
      db.variant.findMany({
        where: {
          ...scope,
          OR: [{ id: { in: ids } }, { sku: { in: ids } }, { barcode: { in: ids } }, { handle: { in: ids } }],
        },
        select: { id: true, productId: true, sku: true, barcode: true, handle: true },
        take: MAX_PRODUCTS,
      }),
    ]);

    // product id → variant id → inputs (variant-level inputs resolve now; product-level ones once loaded)
    const resolved = new Map<string, Map<string, Input[]>>();
    const featuredFor = new Map<string, string[]>();
    const matched = new Set<string>();
    const add = (productId: string, variantId: string, entry: Input) => {
      const variants = resolved.get(productId) ?? new Map<string, Input[]>();
      resolved.set(productId, variants);
      const inputs = variants.get(variantId) ?? [];
      if (!inputs.some((i) => i.id === entry.id)) inputs.push(entry);
      variants.set(variantId, inputs);
    };
    for (const v of variantHits) {
      for (const id of ids) {
        if (id === v.id || id === v.sku || id === v.barcode || id === v.handle) {
          add(v.productId, v.id, { id, match: "exact" });
          matched.add(id);
        }
      }
    }
    for (const p of productHits) {
      const inputs = ids.filter((id) => id === p.id || id === p.handle);
      inputs.forEach((id) => matched.add(id));
      featuredFor.set(p.id, inputs);
      if (!resolved.has(p.id)) resolved.set(p.id, new Map());
    }

    const rows = await loadProducts([...resolved.keys()]);
    const products = rows.map(({ store, variants, ...product }) => {
      const byVariant = resolved.get(product.id)!;
      const featured = inStockFirst(variants)[0]!;
      for (const id of featuredFor.get(product.id) ?? [])
        add(product.id, featured.id, { id, match: "featured" });
      const chosen: Variant[] = variants.filter((v) => byVariant.has(v.id));
      const wire = productToWire(product, chosen, store, ctx.baseUrl);
      return {
        ...wire,
        variants: chosen.map((v) => ({
          ...variantToWire(v, product, store, ctx.baseUrl),
          inputs: byVariant.get(v.id)!,
        })),
      };
    });
    const messages: UcpMessage[] = ids
      .filter((id) => !matched.has(id))
      .map((id) => ({ type: "info", code: "not_found", content: `No product or variant matches "${id}"` }));
    return {
      body: {
        ucp: successEnvelope(["dev.ucp.shopping.catalog.lookup"], {}, ctx.ucpVersion),
        products,
        ...(messages.length > 0 ? { messages } : {}),
      },
    };
  }),
});
