import { z } from "zod";

// Cart request schemas (UCP cart.json request projections; seed §2 Cart). The only place they live.

export const MAX_CART_LINES = 100;
export const MAX_LINE_QUANTITY = 999;

export const LineItemInputSchema = z.object({
  item: z.object({ id: z.string().min(1, "item.id is required").max(200) }),
  quantity: z.number().int("quantity must be an integer").min(1).max(MAX_LINE_QUANTITY),
});

/**
 * A variant may appear once per cart or checkout: a duplicate line is refused with the path of the repeat, so the
 * agent merges the quantities itself instead of us guessing which line it meant.
 */
export const rejectDuplicateVariants = (
  lines: readonly { item: { id: string } }[],
  ctx: z.RefinementCtx,
): void => {
  const seen = new Map<string, number>();
  lines.forEach((line, i) => {
    const first = seen.get(line.item.id);
    if (first === undefined) {
      seen.set(line.item.id, i);
      return;
    }
    ctx.addIssue({
      code: "custom",
      path: [i, "item", "id"],
      message: `duplicate line item: variant ${line.item.id} is already line ${first}; send one line with the total quantity`,
    });
  });
};

export const LineItemsInputSchema = z
  .array(LineItemInputSchema)
  .min(1, "at least one line item")
  .max(MAX_CART_LINES)
  .superRefine(rejectDuplicateVariants);

/** UCP discount extension input (cart and checkout): the code set, replaced as a whole; [] clears it. */
export const DiscountsInputSchema = z.object({
  codes: z.array(z.string().trim().min(1, "empty discount code").max(64)).max(10).optional(),
});

const CartFieldsSchema = z.object({
  line_items: LineItemsInputSchema,
  discounts: DiscountsInputSchema.optional(),
  buyer: z.record(z.string(), z.unknown()).optional(),
  context: z.record(z.string(), z.unknown()).optional(),
  signals: z.record(z.string(), z.unknown()).optional(),
  attribution: z.record(z.string(), z.string()).optional(),
});

export const CreateCartInputSchema = CartFieldsSchema;
export const UpdateCartInputSchema = CartFieldsSchema.extend({ id: z.string().min(1).max(200) });
export const CartIdInputSchema = z.object({ id: z.string().min(1).max(200) });

export type LineItemInput = z.infer<typeof LineItemInputSchema>;
export type CreateCartInput = z.infer<typeof CreateCartInputSchema>;
export type UpdateCartInput = z.infer<typeof UpdateCartInputSchema>;
