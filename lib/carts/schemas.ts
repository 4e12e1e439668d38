import { z } from "zod";

// Cart request schemas (UCP cart.json request projections; seed §2 Cart). The only place they live.

export const MAX_CART_LINES = 100;
export const MAX_LINE_QUANTITY = 999;

export const LineItemInputSchema = z.object({
  item: z.object({ id: z.string().min(1, "item.id is required").max(200) }),
  quantity: z.number().int("quantity must be an integer").min(1).max(MAX_LINE_QUANTITY),
});

const CartFieldsSchema = z.object({
  line_items: z.array(LineItemInputSchema).min(1, "at least one line item").max(MAX_CART_LINES),
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
