// A checkout as the service answers it at 2026-04-08 (lib/checkout/to-wire.ts), with everything the older
// versions lack or shape differently: map capabilities, payment handlers with available instruments, a negative
// discount total, an unrecoverable error, context/signals/attribution, a provisional discount, an order label.
export const checkout0408 = () => ({
  ucp: {
    version: "2026-04-08",
    status: "success",
    capabilities: {
      "dev.ucp.shopping.checkout": [{ version: "2026-04-08" }],
      "dev.ucp.shopping.fulfillment": [{ version: "2026-04-08" }],
      "dev.ucp.shopping.discount": [{ version: "2026-04-08" }],
      "dev.ucp.shopping.buyer_consent": [{ version: "2026-04-08" }],
    },
    payment_handlers: {
      "sh.svc.card": [
        {
          id: "svc.card",
          version: "2026-04-08",
          available_instruments: [{ type: "card", constraints: { brands: ["visa"] } }],
          config: { environment: "sandbox", currency: "USD" },
        },
      ],
    },
  },
  id: "chk_1",
  status: "ready_for_complete",
  currency: "USD",
  line_items: [
    {
      id: "li_1",
      item: { id: "var_1", title: "Mug", price: 2000 },
      quantity: 2,
      totals: [
        { type: "subtotal", amount: 4000 },
        { type: "total", amount: 4000 },
      ],
    },
  ],
  buyer: { email: "b@example.com", first_name: "Ada", consent: { marketing: false } },
  fulfillment: {
    methods: [
      {
        id: "m1",
        type: "shipping",
        line_item_ids: ["li_1"],
        destinations: [{ id: "d1", address_country: "US", postal_code: "94107" }],
        selected_destination_id: "d1",
        groups: [
          {
            id: "g1",
            line_item_ids: ["li_1"],
            options: [
              {
                id: "std",
                title: "Standard",
                totals: [
                  { type: "subtotal", amount: 500 },
                  { type: "total", amount: 500 },
                ],
              },
            ],
            selected_option_id: "std",
          },
        ],
      },
    ],
  },
  discounts: {
    codes: ["SAVE10"],
    applied: [{ code: "SAVE10", title: "10% off", amount: 400, provisional: false }],
  },
  payment: { instruments: [{ id: "i1", handler_id: "svc.card", type: "card", selected: true }] },
  totals: [
    { type: "subtotal", amount: 4000 },
    { type: "discount", amount: -400 },
    { type: "fulfillment", amount: 500 },
    { type: "total", amount: 4100 },
  ],
  messages: [
    {
      type: "error",
      code: "out_of_stock",
      content: "Gone",
      severity: "unrecoverable",
      path: "$.line_items[0]",
    },
  ],
  links: [],
  expires_at: "2026-12-02T14:00:00.000Z",
  context: { address_country: "US" },
  signals: { "dev.example.risk": { score: 1 } },
  attribution: { source: "agent" },
  order: { id: "ord_1", permalink_url: "https://shop.example/o/ord_1", label: "#1001" },
});

export const handlerDocs = (key: string) => ({
  spec: `https://svc.example/ucp/handlers/${key}`,
  config_schema: `https://svc.example/ucp/handlers/${key}/config.json`,
  instrument_schemas: [`https://svc.example/ucp/handlers/${key}/instrument.json`],
});
