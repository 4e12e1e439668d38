// The demo merchants. Everything here is test mode (sandbox card adapter, Sui testnet): demo data must never
// be able to move real money. Shares decide how a requested product total is split between stores.
import { APPAREL } from "./catalog/apparel";
import { ELECTRONICS } from "./catalog/electronics";
import { HOME_KITCHEN } from "./catalog/home-kitchen";
import { OUTDOOR } from "./catalog/outdoor";
import type { Vertical } from "./catalog/types";

/** Our coin symbols (lib/payments/crypto/coins.ts): types and decimals come from the coin table of the network. */
export type AcceptedCoin = string;

/** Postal address in UCP field names (wire shape, hence snake_case). */
export type PostalAddress = {
  street_address: string;
  address_locality: string;
  address_region: string;
  postal_code: string;
  address_country: string;
};

/** day: 0 = Sunday … 6 = Saturday (Date#getUTCDay numbering); a missing day means closed. */
export type OpeningHours = { day: number; open: string; close: string };

export type DemoLocation = {
  name: string;
  address: PostalAddress;
  latitudeE6: number;
  longitudeE6: number;
  openingHours: readonly OpeningHours[];
  services: readonly string[];
};

export type DemoStore = {
  slug: string;
  name: string;
  description: string;
  currency: string;
  country: string;
  taxRateBps: number;
  cardEnabled: boolean;
  cardBrands: readonly string[];
  cryptoEnabled: boolean;
  acceptedCoins: readonly AcceptedCoin[];
  /** Relative share of the requested product total. */
  share: number;
  verticals: readonly Vertical[];
  /** Overrides the verticals' model names, for a store with its own voice. */
  models?: readonly string[];
  /** Overrides the verticals' closing sentences (they name US cities and policies). */
  closers?: readonly string[];
  /** Percent applied to the verticals' USD base prices (integer maths; 95 = 5 % cheaper in this currency). */
  pricePercent: number;
  skuPrefix: string;
  /** 3-digit GS1 prefix of the seeded GTIN-13s ("0…" = US/UPC-A range, "40x" = Germany). */
  gs1Prefix: string;
  locations: readonly DemoLocation[];
};

// Accepted coins by our symbols: test-mode stores settle on the sandbox chain, with the coin types of our table.
export const USDC: AcceptedCoin = "USDC";
export const SUI: AcceptedCoin = "SUI";

const US_RETAIL_HOURS: readonly OpeningHours[] = [
  { day: 0, open: "11:00", close: "18:00" },
  { day: 1, open: "10:00", close: "20:00" },
  { day: 2, open: "10:00", close: "20:00" },
  { day: 3, open: "10:00", close: "20:00" },
  { day: 4, open: "10:00", close: "20:00" },
  { day: 5, open: "10:00", close: "21:00" },
  { day: 6, open: "09:00", close: "21:00" },
];

// German shop-closing law: closed on Sundays, so day 0 is absent.
const DE_RETAIL_HOURS: readonly OpeningHours[] = [
  { day: 1, open: "09:30", close: "19:00" },
  { day: 2, open: "09:30", close: "19:00" },
  { day: 3, open: "09:30", close: "19:00" },
  { day: 4, open: "09:30", close: "20:00" },
  { day: 5, open: "09:30", close: "20:00" },
  { day: 6, open: "09:00", close: "18:00" },
];

const PICKUP_POINT_HOURS: readonly OpeningHours[] = [1, 2, 3, 4, 5].map((day) => ({
  day,
  open: "08:00",
  close: "18:00",
}));

const us = (street: string, city: string, region: string, postalCode: string): PostalAddress => ({
  street_address: street,
  address_locality: city,
  address_region: region,
  postal_code: postalCode,
  address_country: "US",
});

export const DEMO_STORES: readonly DemoStore[] = [
  {
    slug: "summit-trail-outfitters",
    name: "Summit Trail Outfitters",
    description: "Hiking boots, shells, packs and camp gear, tested on the Front Range.",
    currency: "USD",
    country: "US",
    // Boulder, CO combined sales tax ≈ 8.85 %.
    taxRateBps: 885,
    cardEnabled: true,
    cardBrands: ["visa", "mastercard", "amex", "discover"],
    cryptoEnabled: true,
    acceptedCoins: [USDC, SUI],
    share: 30,
    verticals: [OUTDOOR],
    pricePercent: 100,
    skuPrefix: "STO",
    gs1Prefix: "061",
    locations: [
      {
        name: "Boulder Flagship",
        address: us("1650 Pearl St", "Boulder", "CO", "80302"),
        latitudeE6: 40_018_900,
        longitudeE6: -105_275_800,
        openingHours: US_RETAIL_HOURS,
        services: ["pickup", "returns", "repairs", "boot-fitting"],
      },
      {
        name: "Denver Union Station",
        address: us("1701 Wynkoop St", "Denver", "CO", "80202"),
        latitudeE6: 39_752_900,
        longitudeE6: -105_000_300,
        openingHours: US_RETAIL_HOURS,
        services: ["pickup", "returns"],
      },
      {
        name: "Salt Lake City",
        address: us("320 S State St", "Salt Lake City", "UT", "84111"),
        latitudeE6: 40_762_100,
        longitudeE6: -111_887_600,
        openingHours: US_RETAIL_HOURS,
        services: ["pickup", "returns", "rentals"],
      },
    ],
  },
  {
    slug: "urban-thread-apparel",
    name: "Urban Thread Apparel",
    description: "Everyday clothing and accessories made in small batches.",
    currency: "USD",
    country: "US",
    // New York City combined sales tax 8.875 %, rounded to whole basis points.
    taxRateBps: 888,
    cardEnabled: true,
    cardBrands: ["visa", "mastercard", "amex"],
    cryptoEnabled: false,
    acceptedCoins: [],
    share: 25,
    verticals: [APPAREL],
    pricePercent: 100,
    skuPrefix: "UTA",
    gs1Prefix: "062",
    locations: [
      {
        name: "Williamsburg",
        address: us("145 N 6th St", "Brooklyn", "NY", "11249"),
        latitudeE6: 40_718_600,
        longitudeE6: -73_959_700,
        openingHours: US_RETAIL_HOURS,
        services: ["pickup", "returns", "alterations"],
      },
      {
        name: "SoHo",
        address: us("98 Prince St", "New York", "NY", "10012"),
        latitudeE6: 40_724_700,
        longitudeE6: -73_998_900,
        openingHours: US_RETAIL_HOURS,
        services: ["pickup", "returns"],
      },
      {
        name: "Wicker Park",
        address: us("1520 N Milwaukee Ave", "Chicago", "IL", "60622"),
        latitudeE6: 41_909_600,
        longitudeE6: -87_676_400,
        openingHours: US_RETAIL_HOURS,
        services: ["pickup", "returns", "alterations"],
      },
    ],
  },
  {
    slug: "voltage-electronics",
    name: "Voltage Electronics",
    description: "Headphones, chargers, wearables and desk gear for people who build things.",
    currency: "USD",
    country: "US",
    // Seattle, WA combined sales tax 10.35 %.
    taxRateBps: 1035,
    cardEnabled: true,
    cardBrands: ["visa", "mastercard", "amex"],
    cryptoEnabled: true,
    acceptedCoins: [USDC],
    share: 20,
    verticals: [ELECTRONICS],
    pricePercent: 100,
    skuPrefix: "VOL",
    gs1Prefix: "063",
    locations: [
      {
        name: "Capitol Hill",
        address: us("1520 Broadway", "Seattle", "WA", "98122"),
        latitudeE6: 47_614_900,
        longitudeE6: -122_320_900,
        openingHours: US_RETAIL_HOURS,
        services: ["pickup", "returns", "repairs", "trade-in"],
      },
      {
        name: "Bellevue Square",
        address: us("575 Bellevue Square", "Bellevue", "WA", "98004"),
        latitudeE6: 47_615_800,
        longitudeE6: -122_203_700,
        openingHours: US_RETAIL_HOURS,
        services: ["pickup", "returns"],
      },
      {
        name: "Market Street",
        address: us("865 Market St", "San Francisco", "CA", "94103"),
        latitudeE6: 37_784_300,
        longitudeE6: -122_407_200,
        openingHours: US_RETAIL_HOURS,
        services: ["pickup", "returns", "trade-in"],
      },
      {
        name: "Austin Pickup Point",
        address: us("600 Congress Ave", "Austin", "TX", "78701"),
        latitudeE6: 30_268_100,
        longitudeE6: -97_742_800,
        openingHours: PICKUP_POINT_HOURS,
        services: ["pickup"],
      },
    ],
  },
  {
    slug: "hearth-and-table",
    name: "Hearth & Table",
    description: "Cookware, tableware and home textiles chosen by people who cook every day.",
    currency: "USD",
    country: "US",
    // Oregon has no sales tax: a deliberate zero so checkout demos show a tax-free store too.
    taxRateBps: 0,
    cardEnabled: true,
    cardBrands: ["visa", "mastercard", "amex", "discover"],
    cryptoEnabled: false,
    acceptedCoins: [],
    share: 17,
    verticals: [HOME_KITCHEN],
    pricePercent: 100,
    skuPrefix: "HAT",
    gs1Prefix: "064",
    locations: [
      {
        name: "Pearl District",
        address: us("1005 NW Couch St", "Portland", "OR", "97209"),
        latitudeE6: 45_523_600,
        longitudeE6: -122_681_400,
        openingHours: US_RETAIL_HOURS,
        services: ["pickup", "returns", "knife-sharpening", "gift-wrapping"],
      },
      {
        name: "Division Street",
        address: us("3350 SE Division St", "Portland", "OR", "97202"),
        latitudeE6: 45_504_800,
        longitudeE6: -122_630_000,
        openingHours: US_RETAIL_HOURS,
        services: ["pickup", "returns"],
      },
    ],
  },
  {
    slug: "alpenglow-bergsport",
    name: "Alpenglow Bergsport",
    description: "Mountain gear and outdoor clothing from Munich, priced in euros.",
    currency: "EUR",
    country: "DE",
    // German standard VAT 19 %.
    taxRateBps: 1900,
    cardEnabled: true,
    cardBrands: ["visa", "mastercard"],
    cryptoEnabled: true,
    acceptedCoins: [USDC, SUI],
    share: 8,
    verticals: [OUTDOOR, APPAREL],
    models: [
      "Zugspitze",
      "Karwendel",
      "Watzmann",
      "Wetterstein",
      "Alpspitz",
      "Edelweiss",
      "Enzian",
      "Dachstein",
      "Tauern",
      "Bergkristall",
      "Rofan",
      "Wendelstein",
      "Herzogstand",
      "Jochberg",
    ],
    closers: [
      "Tested in the Bavarian Alps before it reaches our shelves.",
      "Free returns within 30 days.",
      "Ask about our repair service in Munich and Garmisch.",
    ],
    pricePercent: 95,
    skuPrefix: "ALP",
    gs1Prefix: "401",
    locations: [
      {
        name: "München Sendlinger Straße",
        address: {
          street_address: "Sendlinger Straße 45",
          address_locality: "München",
          address_region: "BY",
          postal_code: "80331",
          address_country: "DE",
        },
        latitudeE6: 48_135_100,
        longitudeE6: 11_568_500,
        openingHours: DE_RETAIL_HOURS,
        services: ["pickup", "returns", "ski-service", "repairs"],
      },
      {
        name: "Garmisch-Partenkirchen",
        address: {
          street_address: "Zugspitzstraße 12",
          address_locality: "Garmisch-Partenkirchen",
          address_region: "BY",
          postal_code: "82467",
          address_country: "DE",
        },
        latitudeE6: 47_493_000,
        longitudeE6: 11_095_000,
        openingHours: DE_RETAIL_HOURS,
        services: ["pickup", "returns", "rentals"],
      },
    ],
  },
];

/** Splits `total` over the stores by share (largest remainder, so the parts always add up to `total` exactly). */
export const allocateProducts = (total: number, stores: readonly DemoStore[]): number[] => {
  const shareSum = stores.reduce((sum, s) => sum + s.share, 0);
  const exact = stores.map((s) => (total * s.share) / shareSum);
  const counts = exact.map(Math.floor);
  let left = total - counts.reduce((a, b) => a + b, 0);
  const byRemainder = exact
    .map((x, i) => ({ i, r: x - Math.floor(x) }))
    .sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of byRemainder) {
    if (left <= 0) break;
    counts[i] = (counts[i] ?? 0) + 1;
    left -= 1;
  }
  return counts;
};
