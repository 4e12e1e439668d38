// The conformance store's data: the flower shop the official UCP conformance suite (commit fdced3a) shops in,
// written as our own seed from the facts its test data publishes (products with prices in minor units, stock,
// discount codes, shipping rates, promotions and known customers). Nothing here is the suite's code; the ids are
// the ones its requests name (`bouquet_roses`, `std-ship`, `10OFF`).

export type FlowerProduct = {
  id: string;
  title: string;
  priceMinor: number;
  stock: number;
  imageUrl: string;
  /** Product tags; `FREE_SHIPPING_TAG` makes the standard rate free (promo_2). */
  tags: readonly string[];
};

/** promo_2: the tag the standard rate is free for, carried by the rose bouquets only. */
export const FREE_SHIPPING_TAG = "free-shipping";

export const FLOWER_PRODUCTS: readonly FlowerProduct[] = [
  {
    id: "bouquet_roses",
    title: "Bouquet of Red Roses",
    priceMinor: 3500,
    stock: 1000,
    imageUrl: "https://example.com/roses.jpg",
    tags: [FREE_SHIPPING_TAG],
  },
  {
    id: "pot_ceramic",
    title: "Ceramic Pot",
    priceMinor: 1500,
    stock: 2000,
    imageUrl: "https://example.com/pot.jpg",
    tags: [],
  },
  {
    id: "bouquet_sunflowers",
    title: "Sunflower Bundle",
    priceMinor: 2500,
    stock: 500,
    imageUrl: "https://example.com/sunflowers.jpg",
    tags: [],
  },
  {
    id: "bouquet_tulips",
    title: "Spring Tulips",
    priceMinor: 3000,
    stock: 1500,
    imageUrl: "https://example.com/tulips.jpg",
    tags: [],
  },
  {
    id: "orchid_white",
    title: "White Orchid",
    priceMinor: 4500,
    stock: 800,
    imageUrl: "https://example.com/orchid.jpg",
    tags: [],
  },
  // out of stock on purpose: the suite's out-of-stock checks buy it
  {
    id: "gardenias",
    title: "Gardenias",
    priceMinor: 2000,
    stock: 0,
    imageUrl: "https://example.com/gardenias.jpg",
    tags: [],
  },
];

/** percentage values in basis points (our unit), fixed amounts in minor units. */
export const FLOWER_DISCOUNTS = [
  { code: "10OFF", title: "10% Off", kind: "percentage", value: 1000 },
  { code: "WELCOME20", title: "20% Off", kind: "percentage", value: 2000 },
  { code: "FIXED500", title: "$5.00 Off", kind: "fixed_amount", value: 500 },
] as const;

/**
 * Shipping rates: one standard rate anywhere, an express rate for the US and an international express rate for
 * everywhere else. `promo_1` (free shipping from a 10,000 goods subtotal) is the standard rate's free-shipping
 * threshold; `promo_2` (free shipping for rose bouquets whatever the subtotal) is its free-shipping tag, which
 * the rose bouquets carry (free when every item shipped has it).
 */
export const FLOWER_SHIPPING_RATES = [
  {
    code: "std-ship",
    title: "Standard Shipping",
    country: "*",
    priceMinor: 500,
    freeOverMinor: 10_000,
    freeForTag: FREE_SHIPPING_TAG,
  },
  {
    code: "exp-ship-us",
    title: "Express Shipping (US)",
    country: "US",
    priceMinor: 1500,
    freeOverMinor: null,
    freeForTag: null,
  },
  {
    code: "exp-ship-intl",
    title: "International Express",
    country: "*",
    priceMinor: 2500,
    freeOverMinor: null,
    freeForTag: null,
  },
] as const;

/** The known customers and their saved addresses (by e-mail). */
export const FLOWER_CUSTOMERS = [
  {
    email: "john.doe@example.com",
    name: "John Doe",
    addresses: [
      {
        id: "addr_1",
        street_address: "123 Main St",
        address_locality: "Springfield",
        address_region: "IL",
        postal_code: "62704",
        address_country: "US",
      },
      {
        id: "addr_2",
        street_address: "456 Oak Ave",
        address_locality: "Metropolis",
        address_region: "NY",
        postal_code: "10012",
        address_country: "US",
      },
    ],
  },
  {
    email: "jane.smith@example.com",
    name: "Jane Smith",
    addresses: [
      {
        id: "addr_3",
        street_address: "789 Pine Ln",
        address_locality: "Smallville",
        address_region: "KS",
        postal_code: "66002",
        address_country: "US",
      },
    ],
  },
  { email: "jane.doe@example.com", name: "Jane Doe", addresses: [] },
] as const;
