// Apparel word lists: everyday clothing and accessories with size/color grids.
import { APPAREL_SIZES, BASICS, color, SHOE_SIZES } from "./shared";
import type { ProductType, Vertical } from "./types";

const T_SHIRT: ProductType = {
  code: "TS",
  noun: "T-Shirt",
  categories: ["Apparel & Accessories > Clothing > Shirts & Tops > T-Shirts"],
  priceMinor: [1800, 4800],
  weightGrams: [140, 220],
  features: ["Organic Cotton", "Heavyweight", "Relaxed", "Pocket", "Slub", "Essential"],
  materials: ["Organic cotton", "Pima cotton", "Cotton-hemp blend", "Recycled cotton"],
  options: [APPAREL_SIZES, color(BASICS)],
  specs: [{ name: "fit", values: ["Slim", "Regular", "Relaxed", "Boxy"] }],
  tags: ["t-shirt", "tee", "tops", "basics"],
  uses: ["everyday wear", "layering", "weekends", "travel"],
  blurbs: [
    "Garment-dyed {material} that softens with every wash.",
    "A shoulder-to-shoulder tape keeps the collar in shape.",
  ],
  isGendered: true,
};

const HOODIE: ProductType = {
  code: "HD",
  noun: "Hoodie",
  categories: ["Apparel & Accessories > Clothing > Activewear > Sweatshirts"],
  priceMinor: [4800, 11800],
  weightGrams: [450, 800],
  features: ["Fleece", "Heavyweight", "Zip-Up", "Oversized", "Brushed"],
  materials: ["Brushed cotton fleece", "French terry", "Recycled polyester fleece"],
  options: [APPAREL_SIZES, color(BASICS)],
  tags: ["hoodie", "sweatshirt", "loungewear"],
  uses: ["cool evenings", "lounging", "the commute", "campus"],
  blurbs: [
    "A double-layer hood and rib-knit cuffs hold their shape.",
    "{material} that is warm without being stuffy.",
  ],
  isGendered: true,
};

const CHINOS: ProductType = {
  code: "CH",
  noun: "Chinos",
  isPlural: true,
  categories: ["Apparel & Accessories > Clothing > Pants > Chinos"],
  priceMinor: [5800, 12800],
  weightGrams: [420, 620],
  features: ["Stretch", "Slim", "Straight-Leg", "Tapered", "Washed"],
  materials: ["Stretch cotton twill", "Organic cotton twill", "Linen-cotton blend"],
  options: [
    { name: "Waist", values: ["28", "30", "32", "34", "36", "38"], isOrdered: true },
    color(["Khaki", "Navy", "Olive", "Stone", "Black"]),
  ],
  tags: ["pants", "chinos", "trousers"],
  uses: ["the office", "dinners out", "weekend errands"],
  blurbs: [
    "Hidden stretch moves with you all day.",
    "A gusseted crotch and reinforced pockets built for {use}.",
  ],
  isGendered: true,
};

const JEANS: ProductType = {
  code: "JN",
  noun: "Jeans",
  isPlural: true,
  categories: ["Apparel & Accessories > Clothing > Pants > Jeans"],
  priceMinor: [6800, 18800],
  weightGrams: [600, 900],
  features: ["Selvedge", "Raw Denim", "Slim", "Straight", "Relaxed", "Stretch"],
  materials: ["14 oz selvedge denim", "Organic cotton denim", "Stretch denim"],
  options: [
    { name: "Waist", values: ["28", "30", "32", "34", "36", "38"], isOrdered: true },
    color(["Indigo", "Black", "Light Wash", "Rinse"]),
  ],
  tags: ["jeans", "denim", "pants"],
  uses: ["everyday wear", "fading in", "workdays"],
  blurbs: ["Cut from {material} that ages into your own pattern of fades."],
  isGendered: true,
};

const DRESS: ProductType = {
  code: "DR",
  noun: "Dress",
  categories: ["Apparel & Accessories > Clothing > Dresses"],
  priceMinor: [5800, 16800],
  weightGrams: [220, 480],
  features: ["Wrap", "Midi", "Linen", "Slip", "Shirt", "Tiered"],
  materials: ["European linen", "Tencel lyocell", "Silk-blend satin", "Organic cotton poplin"],
  options: [APPAREL_SIZES, color(["Black", "Ivory", "Sage", "Terracotta", "Navy", "Floral Print"])],
  tags: ["dress", "womenswear"],
  uses: ["summer weddings", "office days", "vacations", "dinners out"],
  blurbs: [
    "Breathable {material} that drapes beautifully.",
    "Side pockets, because every dress should have them.",
  ],
};

const SNEAKER: ProductType = {
  code: "SN",
  noun: "Sneaker",
  categories: ["Apparel & Accessories > Shoes > Athletic Shoes", "Apparel & Accessories > Shoes > Sneakers"],
  priceMinor: [6800, 16800],
  weightGrams: [600, 900],
  features: ["Leather", "Canvas", "Low-Top", "High-Top", "Court", "Knit"],
  materials: ["Full-grain leather", "Organic canvas", "Recycled knit", "Suede"],
  options: [SHOE_SIZES, color(["White", "Black", "Off-White", "Navy", "Gum"])],
  tags: ["sneakers", "shoes", "footwear"],
  uses: ["city walks", "everyday wear", "travel days"],
  blurbs: ["A cupsole stitched to the upper lasts for years.", "{material} uppers over a cushioned footbed."],
  isGendered: true,
};

const BELT: ProductType = {
  code: "BL",
  noun: "Leather Belt",
  categories: ["Apparel & Accessories > Clothing Accessories > Belts"],
  priceMinor: [3800, 9800],
  weightGrams: [150, 260],
  features: ["Full-Grain", "Reversible", "Braided", "Dress", "Everyday"],
  materials: ["Full-grain leather", "Vegetable-tanned leather", "Suede"],
  options: [
    { name: "Size", values: ["30", "32", "34", "36", "38", "40"], isOrdered: true },
    color(["Black", "Brown", "Tan"]),
  ],
  specs: [{ name: "buckle", values: ["Solid brass", "Nickel", "Matte black"] }],
  tags: ["belt", "leather", "accessories"],
  uses: ["jeans", "suits", "daily wear"],
  blurbs: ["Cut from a single strip of {material}."],
};

const BEANIE: ProductType = {
  code: "BN",
  noun: "Beanie",
  categories: ["Apparel & Accessories > Clothing Accessories > Hats"],
  priceMinor: [1800, 4800],
  weightGrams: [60, 120],
  features: ["Ribbed", "Cuffed", "Fisherman", "Merino", "Chunky"],
  materials: ["Merino wool", "Lambswool", "Recycled acrylic", "Cashmere blend"],
  options: [color(BASICS)],
  tags: ["beanie", "hat", "winter", "knitwear"],
  uses: ["cold mornings", "ski trips", "city winters"],
  blurbs: ["A fold-over cuff doubles the warmth over your ears."],
};

const RAIN_COAT: ProductType = {
  code: "RC",
  noun: "Rain Coat",
  categories: ["Apparel & Accessories > Clothing > Outerwear > Coats & Jackets"],
  priceMinor: [9800, 26800],
  weightGrams: [500, 900],
  features: ["Waterproof", "Longline", "Hooded", "Rubberized", "Trench"],
  materials: ["Waxed cotton", "Bonded cotton", "Recycled polyester", "Rubberized cotton"],
  options: [APPAREL_SIZES, color(["Black", "Yellow", "Navy", "Olive", "Camel"])],
  tags: ["coat", "rain", "outerwear"],
  uses: ["rainy commutes", "city walks", "travel"],
  blurbs: ["Welded seams keep downpours out on {use}."],
  isGendered: true,
  isWeatherRated: true,
  isAlwaysWaterproof: true,
};

const FLANNEL_SHIRT: ProductType = {
  code: "FS",
  noun: "Flannel Shirt",
  categories: ["Apparel & Accessories > Clothing > Shirts & Tops"],
  priceMinor: [4800, 9800],
  weightGrams: [300, 450],
  features: ["Brushed", "Heavyweight", "Plaid", "Overshirt", "Lined"],
  materials: ["Brushed cotton flannel", "Organic cotton flannel", "Wool blend"],
  options: [APPAREL_SIZES, color(["Red Plaid", "Blue Plaid", "Green Plaid", "Gray Check"])],
  tags: ["flannel", "shirt", "plaid"],
  uses: ["fall weekends", "cabin trips", "layering"],
  blurbs: ["Double-brushed {material} for a soft, warm hand."],
  isGendered: true,
};

const CARDIGAN: ProductType = {
  code: "CD",
  noun: "Cardigan",
  categories: ["Apparel & Accessories > Clothing > Sweaters > Cardigans"],
  priceMinor: [6800, 18800],
  weightGrams: [300, 600],
  features: ["Cashmere", "Chunky", "Merino", "Cropped", "Shawl-Collar"],
  materials: ["Grade-A cashmere", "Extra-fine merino", "Alpaca blend", "Organic cotton"],
  options: [APPAREL_SIZES, color(BASICS)],
  tags: ["cardigan", "sweater", "knitwear"],
  uses: ["office layering", "chilly evenings", "travel"],
  blurbs: ["Knit from {material} with horn buttons."],
  isGendered: true,
};

const SCARF: ProductType = {
  code: "SC",
  noun: "Scarf",
  categories: ["Apparel & Accessories > Clothing Accessories > Scarves & Shawls"],
  priceMinor: [2800, 12800],
  weightGrams: [80, 300],
  features: ["Cashmere", "Oversized", "Lightweight", "Wool", "Fringed"],
  materials: ["Cashmere", "Lambswool", "Modal-silk blend", "Linen"],
  options: [color(["Camel", "Charcoal", "Burgundy", "Navy", "Ivory", "Tartan"])],
  tags: ["scarf", "accessories", "winter"],
  uses: ["winter commutes", "travel", "gifting"],
  blurbs: ["Generously sized to wrap twice."],
};

export const APPAREL: Vertical = {
  key: "apparel",
  types: [
    T_SHIRT,
    T_SHIRT,
    HOODIE,
    CHINOS,
    JEANS,
    DRESS,
    SNEAKER,
    BELT,
    BEANIE,
    RAIN_COAT,
    FLANNEL_SHIRT,
    CARDIGAN,
    SCARF,
  ],
  models: [
    "Everyday",
    "Harbor",
    "Union",
    "Mercer",
    "Bowery",
    "Clinton",
    "Hudson",
    "Linden",
    "Orchard",
    "Sterling",
    "Westside",
    "Vesper",
    "Marlow",
    "Bleecker",
    "Juno",
    "Archer",
    "Greenpoint",
    "Atlas",
    "Coast",
    "Prospect",
  ],
  suffixes: ["", "", "", "", " Classic", " Standard", " Heritage", " Studio", " No. 2"],
  closers: [
    "Made in small batches by factories we visit every year.",
    "Free exchanges within 30 days.",
    "Every seam is checked by hand before it ships.",
    "Designed in Brooklyn.",
  ],
};
