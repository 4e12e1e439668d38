// Home & kitchen word lists: cookware, tableware, textiles.
import { color, KITCHEN_FINISHES } from "./shared";
import type { ProductType, Vertical } from "./types";

const CHEFS_KNIFE: ProductType = {
  code: "KN",
  noun: "Chef's Knife",
  categories: [
    "Home & Garden > Kitchen & Dining > Kitchen Tools & Utensils > Kitchen Knives > Chef's Knives",
  ],
  priceMinor: [3900, 24900],
  weightGrams: [160, 280],
  features: ["Damascus", "Forged", "Japanese", "Carbon Steel", "Everyday"],
  materials: ["VG-10 steel", "German stainless steel", "High-carbon steel"],
  options: [
    { name: "Blade Length", values: ["6 in", "8 in", "10 in"], isOrdered: true, priceStepMinor: 1500 },
  ],
  specs: [{ name: "handle", values: ["Walnut", "Pakkawood", "Olive wood", "G10"] }],
  tags: ["knife", "cutlery", "kitchen"],
  uses: ["weeknight prep", "carving", "fine dicing"],
  blurbs: ["A {material} blade honed to 15° per side.", "Full-tang balance for long prep sessions."],
};

const SKILLET: ProductType = {
  code: "SK",
  noun: "Cast Iron Skillet",
  categories: ["Home & Garden > Kitchen & Dining > Cookware & Bakeware > Cookware > Skillets & Frying Pans"],
  priceMinor: [2900, 14900],
  weightGrams: [1800, 3600],
  features: ["Pre-Seasoned", "Enameled", "Lightweight", "Heritage", "Deep"],
  materials: ["Cast iron", "Enameled cast iron"],
  options: [{ name: "Size", values: ["8 in", "10 in", "12 in"], isOrdered: true, priceStepMinor: 1000 }],
  tags: ["skillet", "cast iron", "cookware"],
  uses: ["searing steaks", "cornbread", "campfire cooking"],
  blurbs: ["Goes from stovetop to oven to table.", "A polished {material} surface releases eggs with ease."],
};

const DUTCH_OVEN: ProductType = {
  code: "DO",
  noun: "Dutch Oven",
  categories: ["Home & Garden > Kitchen & Dining > Cookware & Bakeware > Cookware > Dutch Ovens"],
  priceMinor: [7900, 34900],
  weightGrams: [4000, 6500],
  features: ["Enameled", "Round", "Oval", "Heritage"],
  materials: ["Enameled cast iron"],
  options: [
    { name: "Capacity", values: ["3.5 qt", "5.5 qt", "7.25 qt"], isOrdered: true, priceStepMinor: 3000 },
    color(["Cherry Red", "Cream", "Sage Green", "Marine Blue", "Matte Black"]),
  ],
  tags: ["dutch oven", "cookware", "cast iron"],
  uses: ["braises", "sourdough", "soups"],
  blurbs: ["A tight lid bastes your braise while it simmers."],
};

const COFFEE_GRINDER: ProductType = {
  code: "GR",
  noun: "Burr Coffee Grinder",
  categories: ["Home & Garden > Kitchen & Dining > Kitchen Appliances > Coffee Grinders"],
  priceMinor: [4900, 29900],
  weightGrams: [600, 3200],
  features: ["Conical", "Flat", "Manual", "Electric", "Precision"],
  materials: ["Stainless steel burrs", "Ceramic burrs"],
  options: [color(KITCHEN_FINISHES)],
  specs: [{ name: "grind settings", values: ["18", "40", "100"] }],
  tags: ["coffee", "grinder", "kitchen appliances"],
  uses: ["espresso", "pour-over", "French press"],
  blurbs: ["{material} give a consistent grind for {use}."],
};

const FRENCH_PRESS: ProductType = {
  code: "FP",
  noun: "French Press",
  categories: ["Home & Garden > Kitchen & Dining > Kitchen Appliances > Coffee Makers & Espresso Machines"],
  priceMinor: [2400, 8900],
  weightGrams: [400, 900],
  features: ["Insulated", "Glass", "Double-Wall", "Classic"],
  materials: ["Borosilicate glass", "Stainless steel"],
  options: [{ name: "Capacity", values: ["350 ml", "800 ml", "1 L"], isOrdered: true, priceStepMinor: 500 }],
  tags: ["coffee", "french press", "brewing"],
  uses: ["slow mornings", "camping", "cold brew"],
  blurbs: ["A four-level filter keeps grounds out of your cup."],
};

const KETTLE: ProductType = {
  code: "KT",
  noun: "Pour-Over Kettle",
  categories: ["Home & Garden > Kitchen & Dining > Kitchen Appliances > Electric Kettles"],
  priceMinor: [3900, 16900],
  weightGrams: [700, 1300],
  features: ["Gooseneck", "Electric", "Variable-Temperature", "Stovetop"],
  materials: ["Stainless steel", "Matte powder coat"],
  options: [color(KITCHEN_FINISHES)],
  tags: ["kettle", "coffee", "tea"],
  uses: ["pour-over", "green tea", "precise brewing"],
  blurbs: ["Holds temperature to the degree for {use}."],
};

const CUTTING_BOARD: ProductType = {
  code: "CB",
  noun: "Cutting Board",
  categories: ["Home & Garden > Kitchen & Dining > Kitchen Tools & Utensils > Cutting Boards"],
  priceMinor: [2400, 12900],
  weightGrams: [800, 3500],
  features: ["End-Grain", "Walnut", "Reversible", "Juice-Groove", "Maple"],
  materials: ["Black walnut", "Hard maple", "Acacia", "Teak"],
  options: [{ name: "Size", values: ["Small", "Medium", "Large"], isOrdered: true, priceStepMinor: 1500 }],
  tags: ["cutting board", "wood", "kitchen"],
  uses: ["carving", "serving cheese", "daily prep"],
  blurbs: ["End-grain {material} is gentle on knife edges."],
};

const DINNERWARE: ProductType = {
  code: "DW",
  noun: "Dinnerware Set",
  categories: ["Home & Garden > Kitchen & Dining > Tableware > Dinnerware"],
  priceMinor: [5900, 24900],
  weightGrams: [3500, 9000],
  features: ["Stoneware", "Porcelain", "Reactive-Glaze", "Speckled", "Handmade"],
  materials: ["Stoneware", "Porcelain", "Earthenware"],
  options: [
    { name: "Pieces", values: ["12-Piece", "16-Piece", "24-Piece"], isOrdered: true, priceStepMinor: 4000 },
    color(["White", "Speckled Cream", "Slate", "Sage", "Ocean"]),
  ],
  tags: ["dinnerware", "plates", "tableware"],
  uses: ["dinner parties", "everyday meals", "holidays"],
  blurbs: [
    "Dishwasher and microwave safe.",
    "Each {material} piece is glazed by hand, so no two match exactly.",
  ],
};

const FOOD_STORAGE: ProductType = {
  code: "FS",
  noun: "Glass Food Storage Set",
  categories: ["Home & Garden > Kitchen & Dining > Food Storage > Food Storage Containers"],
  priceMinor: [2900, 7900],
  weightGrams: [1500, 4000],
  features: ["Leakproof", "Oven-Safe", "Stackable", "Snap-Lock"],
  materials: ["Borosilicate glass", "Tempered glass"],
  options: [
    { name: "Pieces", values: ["10-Piece", "18-Piece", "24-Piece"], isOrdered: true, priceStepMinor: 1000 },
  ],
  tags: ["food storage", "meal prep", "containers"],
  uses: ["meal prep", "leftovers", "packed lunches"],
  blurbs: ["Airtight lids lock in freshness."],
};

const THROW_BLANKET: ProductType = {
  code: "TB",
  noun: "Throw Blanket",
  categories: ["Home & Garden > Linens & Bedding > Bedding > Blankets"],
  priceMinor: [3900, 19900],
  weightGrams: [600, 1800],
  features: ["Chunky Knit", "Waffle", "Wool", "Fringed", "Sherpa"],
  materials: ["Merino wool", "Organic cotton", "Alpaca blend", "Recycled fleece"],
  options: [color(["Oatmeal", "Charcoal", "Rust", "Sage", "Ivory"])],
  tags: ["blanket", "throw", "bedding", "cozy"],
  uses: ["movie nights", "reading nooks", "guest rooms"],
  blurbs: ["Soft {material} that gets cozier with time."],
};

const BATH_TOWEL: ProductType = {
  code: "BT",
  noun: "Bath Towel Set",
  categories: ["Home & Garden > Linens & Bedding > Towels > Bath Towels & Washcloths"],
  priceMinor: [3400, 12900],
  weightGrams: [900, 2400],
  features: ["Turkish Cotton", "Quick-Dry", "Plush", "Waffle", "Organic"],
  materials: ["Turkish cotton", "Organic cotton", "Linen"],
  options: [
    { name: "Set", values: ["2-Piece", "4-Piece", "6-Piece"], isOrdered: true, priceStepMinor: 2000 },
    color(["White", "Stone", "Sage", "Navy"]),
  ],
  tags: ["towels", "bath", "linens"],
  uses: ["everyday showers", "spa days", "guest baths"],
  blurbs: ["Long-staple {material} loops absorb fast and dry faster."],
};

const CANDLE: ProductType = {
  code: "CN",
  noun: "Scented Candle",
  categories: ["Home & Garden > Decor > Home Fragrances > Candles"],
  priceMinor: [1800, 6800],
  weightGrams: [250, 700],
  features: ["Soy", "Wood-Wick", "Hand-Poured", "Three-Wick"],
  materials: ["Soy wax", "Coconut wax", "Beeswax"],
  options: [
    {
      name: "Scent",
      values: ["Cedar & Sage", "Fig Leaf", "Sea Salt", "Amber", "Pine Forest"],
      isOrdered: false,
    },
  ],
  specs: [{ name: "burn time", values: ["40 hours", "60 hours", "80 hours"] }],
  tags: ["candle", "home fragrance", "decor"],
  uses: ["slow evenings", "bath time", "gifting"],
  blurbs: ["Hand-poured {material} with a clean, even burn."],
};

export const HOME_KITCHEN: Vertical = {
  key: "home-kitchen",
  types: [
    CHEFS_KNIFE,
    SKILLET,
    DUTCH_OVEN,
    COFFEE_GRINDER,
    FRENCH_PRESS,
    KETTLE,
    CUTTING_BOARD,
    DINNERWARE,
    FOOD_STORAGE,
    THROW_BLANKET,
    BATH_TOWEL,
    CANDLE,
  ],
  models: [
    "Hearth",
    "Harvest",
    "Larder",
    "Copper Creek",
    "Millstone",
    "Willow",
    "Oakhurst",
    "Fieldhouse",
    "Saltbox",
    "Ember",
    "Meadow",
    "Homestead",
    "Pantry",
    "Orchard",
    "Kinfolk",
    "Brambleton",
    "Farmhouse",
    "Alder",
  ],
  suffixes: ["", "", "", "", " Classic", " Signature", " Essential", " Artisan"],
  closers: [
    "Every piece is tested in our own test kitchen.",
    "Gift wrapping available at checkout.",
    "Free shipping on orders over $75.",
    "Packed in plastic-free, recyclable packaging.",
  ],
};
