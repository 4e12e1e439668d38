import { z } from "zod";

// The wire shapes each operation answers with, as zod schemas read by the MCP tool list (`outputSchema`) and
// checked against the official UCP schemas by a unit test (output-schemas.test.ts): the required fields of the
// UCP resource are required here too. Objects are loose on purpose: UCP lets a business add fields and
// extensions, and a client validating structuredContent must not reject a body the spec allows. Nested parts
// are described only as far as an agent needs to navigate them; the UCP schemas stay the full reference.

const Amount = z.number().int().describe("Integer minor units of the currency");

export const UcpEnvelopeSchema = z
  .object({
    version: z.string().describe("UCP version of this answer (YYYY-MM-DD)"),
    status: z.enum(["success", "error"]).optional(),
    // a map at 2026-01-23 and later, an array of {name, version} at 2026-01-11 (docs/ucp-versions.md §3.1)
    capabilities: z
      .union([z.record(z.string(), z.unknown()), z.array(z.object({ name: z.string() }).loose())])
      .optional(),
    payment_handlers: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();

export const MessageSchema = z
  .object({
    type: z.enum(["error", "warning", "info"]),
    code: z.string().optional(),
    content: z.string(),
    severity: z.string().optional(),
    path: z.string().optional().describe("JSONPath of the field at fault"),
  })
  .loose();

/** UCP error_response.json: a business outcome that is not the resource (messages[] says what to do). */
export const ErrorEnvelopeSchema = z
  .object({
    ucp: UcpEnvelopeSchema.extend({ status: z.literal("error") }),
    messages: z.array(MessageSchema).min(1),
    continue_url: z.string().optional(),
  })
  .loose()
  .describe("UCP error envelope: ucp.status is error; read messages[] (code, severity, path)");

const Total = z.object({ type: z.string(), amount: Amount, display_text: z.string().optional() }).loose();
const Totals = z.array(Total);
const Pagination = z
  .object({ has_next_page: z.boolean(), cursor: z.string().optional(), total_count: z.number().optional() })
  .loose();

const LineItem = z
  .object({
    id: z.string(),
    item: z.object({ id: z.string(), title: z.string(), price: Amount }).loose(),
    quantity: z.number().int(),
    totals: Totals,
  })
  .loose();

const Link = z.object({ type: z.string(), url: z.string() }).loose();

/** A UCP resource body: the envelope plus the resource's fields. */
const resource = <S extends z.core.$ZodLooseShape>(shape: S, description: string) =>
  z
    .object({ ucp: UcpEnvelopeSchema, ...shape })
    .loose()
    .describe(description);

const Product = z
  .object({
    id: z.string(),
    title: z.string(),
    description: z.unknown(),
    price_range: z.unknown(),
    variants: z.array(z.object({ id: z.string() }).loose()),
  })
  .loose();

export const ProductOutputSchema = resource({ product: Product }, "UCP get_product_response");

export const SearchOutputSchema = resource(
  {
    products: z.array(Product),
    pagination: Pagination.optional(),
    messages: z.array(MessageSchema).optional(),
  },
  "UCP search_response",
);

export const LookupOutputSchema = resource(
  { products: z.array(Product), messages: z.array(MessageSchema).optional() },
  "UCP lookup_response",
);

export const CartOutputSchema = resource(
  {
    id: z.string(),
    line_items: z.array(LineItem),
    currency: z.string(),
    totals: Totals,
    messages: z.array(MessageSchema).optional(),
    links: z.array(Link).optional(),
    continue_url: z.string().optional(),
    expires_at: z.string().optional(),
  },
  "UCP cart",
);

export const CheckoutOutputSchema = resource(
  {
    id: z.string(),
    status: z
      .string()
      .describe(
        "incomplete | requires_escalation | ready_for_complete | complete_in_progress | completed | canceled",
      ),
    line_items: z.array(LineItem),
    currency: z.string(),
    totals: Totals,
    messages: z.array(MessageSchema).optional(),
    links: z.array(Link),
    continue_url: z.string().optional(),
    expires_at: z.string().optional(),
    order: z.object({ id: z.string(), permalink_url: z.string() }).loose().optional(),
  },
  "UCP checkout",
);

const orderShape = {
  id: z.string(),
  checkout_id: z.string(),
  permalink_url: z.string(),
  line_items: z.array(z.object({ id: z.string(), item: z.object({ id: z.string() }).loose() }).loose()),
  fulfillment: z.object({}).loose(),
  currency: z.string(),
  totals: Totals,
};

export const OrderOutputSchema = resource(orderShape, "UCP order");

const Location = z.object({ id: z.string(), name: z.string() }).loose();

export const LocationsSearchOutputSchema = resource(
  { locations: z.array(Location), pagination: Pagination },
  "Store locations, nearest first when a distance was given",
);

export const LocationsLookupOutputSchema = resource(
  { locations: z.array(Location), messages: z.array(MessageSchema).optional() },
  "Store locations by id; ids not found are listed in messages[]",
);

export const OrderEventsOutputSchema = resource(
  {
    events: z.array(
      z
        .object({
          id: z.string(),
          type: z.string(),
          order_id: z.string(),
          sequence: z.number().int(),
          created_at: z.string(),
          order: z.unknown(),
        })
        .loose(),
    ),
    pagination: Pagination,
  },
  "Order events since the cursor, oldest first",
);

const Money = z.object({ amount: Amount, currency: z.string() });

export const CatalogChangesOutputSchema = resource(
  {
    changes: z.array(
      z
        .object({
          id: z.string(),
          kind: z.enum(["created", "updated", "deleted"]),
          resource: z.enum(["product", "variant"]),
          seller: z.string().nullable(),
          product_id: z.string(),
          variant_id: z.string().optional(),
          changed_fields: z.array(z.string()).optional(),
          price: Money.optional(),
          list_price: Money.nullable().optional(),
          availability: z.object({ available: z.boolean(), status: z.string() }).loose().optional(),
          changed_at: z.string(),
        })
        .loose(),
    ),
    pagination: Pagination,
  },
  "Catalog changes after since or the cursor, oldest first",
);

const Delivery = z
  .object({
    webhook_id: z.string(),
    order_id: z.string(),
    state: z.enum(["pending", "delivered", "dead"]),
    attempts: z.array(z.object({ at: z.string(), status: z.number().int().nullable() }).loose()),
  })
  .loose();

export const DeliveriesOutputSchema = resource(
  { deliveries: z.array(Delivery) },
  "Webhook deliveries, newest first",
);

export const RedeliveryOutputSchema = resource({ delivery: Delivery }, "The delivery queued again");

const LinkedAgent = z
  .object({
    client_id: z.string(),
    client_name: z.string(),
    scopes: z.array(z.string()),
    granted_at: z.string(),
    last_used_at: z.string().nullable(),
  })
  .loose();

export const LinkedAgentsOutputSchema = z
  .object({ linked_agents: z.array(LinkedAgent) })
  .loose()
  .describe("The agents linked to the buyer's account");

export const RevokedAgentOutputSchema = z
  .object({ revoked: LinkedAgent })
  .loose()
  .describe("The agent that was unlinked");

const StoreRef = z.object({ slug: z.string(), name: z.string() }).loose();

const CryptoReceipt = {
  crypto_payment: z
    .object({
      transaction_digest: z.string(),
      legs: z.array(
        z.object({
          coin_type: z.string(),
          symbol: z.string(),
          decimals: z.number().int(),
          amount: z.string(),
        }),
      ),
    })
    .optional()
    .describe("crypto orders: this order's legs of the transaction that paid it"),
  payment_group: z
    .object({
      id: z.string(),
      transaction_digest: z.string(),
      checkouts: z.array(
        z.object({ store_slug: z.string(), checkout_id: z.string(), order_id: z.string().nullable() }),
      ),
    })
    .optional()
    .describe(
      "orders paid by one combined payment: the group and each checkout's order (null: not completed)",
    ),
};

export const MyOrderOutputSchema = resource(
  { ...orderShape, store: StoreRef, ...CryptoReceipt },
  "UCP order with the store it was placed in",
);

export const MyOrdersOutputSchema = z
  .object({
    orders: z.array(z.object({ ...orderShape, store: StoreRef, ...CryptoReceipt }).loose()),
    pagination: Pagination,
  })
  .loose()
  .describe("The buyer's orders, newest first");

const QuoteLeg = z.object({
  coin_type: z.string(),
  symbol: z.string(),
  decimals: z.number().int(),
  amount: z.string().describe("base units of the coin, a decimal string"),
  fiat_amount: z.number().int().describe("the part of the total this leg pays, store currency minor units"),
  rate: z.object({
    usd_price: z.string(),
    expo: z.number().int(),
    source: z.string(),
    published_at: z.string(),
  }),
});

export const PreparedPaymentOutputSchema = resource(
  {
    checkout_id: z.string(),
    buyer_address: z.string(),
    transaction: z.object({
      bytes: z
        .string()
        .describe("the unsigned transaction: TransactionData BCS, base64; the wallet signs it"),
      digest: z.string(),
    }),
    quote: z.object({
      mode: z.string().describe("auto | named"),
      currency: z.string(),
      total: z.number().int(),
      legs: z.array(QuoteLeg),
      gas_reserve: z.object({ coin_type: z.string(), amount: z.string() }),
      expires_at: z.string(),
    }),
    expires_at: z.string(),
    continue_url: z.string().describe("the wallet page where the buyer can sign instead"),
  },
  "A prepared crypto payment (svc.crypto)",
);

const CombinedLeg = z.object({
  coin_type: z.string(),
  symbol: z.string(),
  decimals: z.number().int(),
  amount: z.string().describe("base units of the coin, a decimal string"),
  fiat_amount: z.number().int().describe("the part of this checkout's total the leg pays, minor units"),
});

export const PreparedCombinedPaymentOutputSchema = z
  .object({
    group_id: z.string(),
    buyer_address: z.string(),
    transaction: z.object({
      bytes: z
        .string()
        .describe("the unsigned transaction paying every store: TransactionData BCS, base64; sign it once"),
      digest: z.string().describe("complete each checkout at its store with this digest"),
    }),
    checkouts: z.array(
      z.object({
        store_slug: z.string(),
        checkout_id: z.string(),
        total: z.number().int(),
        currency: z.string(),
        legs: z.array(CombinedLeg),
      }),
    ),
    quote: z.object({
      mode: z.string().describe("auto | named"),
      currency: z.string(),
      total: z.number().int(),
      legs: z.array(QuoteLeg),
      gas_reserve: z.object({ coin_type: z.string(), amount: z.string() }),
      expires_at: z.string(),
    }),
    expires_at: z.string(),
    continue_url: z.string().describe("the group's wallet page, where the buyer can sign instead"),
  })
  .loose()
  .describe("A prepared combined crypto payment (svc.crypto): one transaction for 2–5 checkouts");

const WindowsSchema = z.object({
  day: z.number().int().nullable(),
  week: z.number().int().nullable(),
  month: z.number().int().nullable(),
});

export const AllowanceListOutputSchema = z
  .object({
    allowances: z.array(
      z
        .object({
          id: z.string().describe("send as payment_mandate_id; get_intent_mandate fetches its signed string"),
          status: z.enum(["active", "paused", "revoked", "expired"]),
          currency: z.string(),
          per_order_max: z.number().int().nullable(),
          limits: WindowsSchema.describe("rolling 24 h / 7 d / 30 d limits, minor units (null: none)"),
          remaining: WindowsSchema.extend({
            currency: z.string(),
            per_order_max: z.number().int().nullable(),
            reserved: z.number().int().describe("held now by prepared payments"),
          }).describe("what is left per window now, after spend and reservations"),
          spent: z.object({ day: z.number().int(), week: z.number().int(), month: z.number().int() }),
          merchants: z.union([z.literal("*"), z.array(z.string())]),
          expires_at: z.string(),
          created_at: z.string(),
          updated_at: z.string(),
        })
        .loose(),
    ),
  })
  .loose()
  .describe("The buyer's spend allowances for the calling agent");

export const IntentMandateOutputSchema = z
  .object({
    id: z.string(),
    intent_mandate: z.string().describe("send as ap2.intent_mandate (base64 JSON {payload, signature})"),
    currency: z.string(),
    per_order_max: z.number().int().nullable(),
    expires_at: z.string(),
  })
  .loose()
  .describe("The buyer's signed spend allowance for the calling agent");
