import type { MandateCheckout } from "./mandate.js";

// The parts of UCP 2026-04-08 shopping objects (as this service answers them) an agent reads. Objects are open: a
// response carries more fields than typed here, and an agent may send a response back as its update.

export type UcpMessage = {
  type: "error" | "warning" | "info" | string;
  code?: string;
  content: string;
  severity?: string;
  /** JSONPath of the field the message is about. */
  path?: string;
};

export type Price = { amount: number; currency: string };

export type Variant = {
  id: string;
  title?: string;
  sku?: string;
  price: Price;
  availability?: { available?: boolean };
};

export type Product = { id: string; title: string; handle?: string; variants: Variant[] };

export type SearchRequest = {
  query?: string;
  filters?: Record<string, unknown>;
  sort?: string;
  pagination?: { limit?: number; cursor?: string };
  context?: Record<string, unknown>;
};

export type SearchResponse = {
  products: Product[];
  pagination?: { has_next_page: boolean; cursor?: string; total_count?: number };
  messages?: UcpMessage[];
};

export type CheckoutStatus =
  | "incomplete"
  | "requires_escalation"
  | "ready_for_complete"
  | "complete_in_progress"
  | "completed"
  | "canceled";

export type PostalAddress = {
  first_name?: string;
  last_name?: string;
  street_address?: string;
  extended_address?: string;
  address_locality?: string;
  address_region?: string;
  postal_code?: string;
  address_country?: string;
  phone_number?: string;
};

export type FulfillmentOption = { id: string; title?: string; totals?: { type: string; amount: number }[] };

export type Checkout = MandateCheckout & {
  id: string;
  status: CheckoutStatus | string;
  currency: string;
  line_items: {
    id?: string;
    item: { id: string; title?: string; price: number };
    quantity: number;
    totals?: { type: string; amount: number }[];
  }[];
  totals: { type: string; amount: number; display_text?: string }[];
  buyer?: { email?: string; first_name?: string; last_name?: string } | null;
  fulfillment?: {
    methods?: {
      id?: string;
      type?: string;
      destinations?: (PostalAddress & { id?: string })[];
      selected_destination_id?: string | null;
      groups?: { id?: string; selected_option_id?: string | null; options?: FulfillmentOption[] }[];
    }[];
  } | null;
  messages?: UcpMessage[];
  continue_url?: string;
  order?: { id: string; permalink_url?: string };
};

export type CheckoutCreate = {
  line_items?: { item: { id: string }; quantity: number }[];
  cart_id?: string;
  buyer?: { email?: string; first_name?: string; last_name?: string; phone_number?: string };
  fulfillment?: {
    methods: {
      type?: "shipping";
      destinations?: (PostalAddress & { id?: string })[];
      selected_destination_id?: string | null;
      groups?: { id?: string; selected_option_id?: string | null }[];
    }[];
  };
  discounts?: { codes: string[] };
  payment?: { instruments: { handler_id: string; selected?: boolean }[] };
  [field: string]: unknown;
};

export type CheckoutUpdate = Omit<CheckoutCreate, "cart_id">;

export type CheckoutComplete = {
  payment?: {
    instruments: {
      handler_id: string;
      selected?: boolean;
      credential?: { type: string; token: string };
    }[];
  };
  ap2?: { checkout_mandate?: string };
};

export type Order = {
  id: string;
  checkout_id?: string;
  permalink_url?: string;
  line_items?: unknown[];
  totals?: { type: string; amount: number }[];
  [field: string]: unknown;
};
