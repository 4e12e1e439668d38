// Outdoor & hiking word lists. Hiking boots carry many "Waterproof" draws on purpose: the full-text search demo
// ("waterproof hiking boots") should find a healthy handful in every catalog size.
import { APPAREL_SIZES, BRIGHTS, color, EARTH_TONES, SHOE_SIZES, SOCK_SIZES } from "./shared";
import type { ProductType, Vertical } from "./types";

const HIKING_BOOT: ProductType = {
  code: "HB",
  noun: "Hiking Boot",
  categories: [
    "Apparel & Accessories > Shoes > Hiking Boots",
    "Sporting Goods > Outdoor Recreation > Hiking",
  ],
  priceMinor: [9900, 27900],
  weightGrams: [900, 1600],
  features: [
    "Waterproof",
    "Waterproof",
    "Waterproof",
    "Lightweight",
    "Insulated",
    "Mid-Cut",
    "Leather",
    "All-Terrain",
  ],
  materials: ["Full-grain leather", "Nubuck leather", "Gore-Tex", "Suede and mesh", "Recycled nylon"],
  options: [SHOE_SIZES, color(EARTH_TONES)],
  specs: [
    { name: "sole", values: ["Vibram Megagrip", "Vibram XS Trek", "Rubber lug sole"] },
    { name: "drop", values: ["8 mm", "10 mm", "12 mm"] },
  ],
  tags: ["hiking", "boots", "footwear", "trail"],
  uses: ["day hikes", "multi-day treks", "muddy trails", "rocky scrambles", "winter walks"],
  blurbs: [
    "A {material} upper and deep lugs keep you steady on loose ground.",
    "Cushioned midsoles soak up the miles on long {use}.",
    "Padded collars and a gusseted tongue keep grit out of these hiking boots.",
  ],
  isGendered: true,
  isWeatherRated: true,
};

const TRAIL_RUNNER: ProductType = {
  code: "TR",
  noun: "Trail Running Shoe",
  categories: [
    "Apparel & Accessories > Shoes > Athletic Shoes > Running Shoes",
    "Sporting Goods > Outdoor Recreation > Hiking",
  ],
  priceMinor: [8900, 17900],
  weightGrams: [520, 780],
  features: ["Lightweight", "Waterproof", "Cushioned", "Grippy", "Responsive"],
  materials: ["Engineered mesh", "Ripstop nylon", "Gore-Tex", "Recycled polyester"],
  options: [SHOE_SIZES, color(BRIGHTS)],
  specs: [{ name: "drop", values: ["4 mm", "6 mm", "8 mm"] }],
  tags: ["running", "trail", "shoes", "footwear"],
  uses: ["fast hikes", "trail runs", "ultra races", "technical descents"],
  blurbs: [
    "A rock plate under the forefoot shields you on sharp {use}.",
    "The {material} upper drains fast and dries faster.",
  ],
  isGendered: true,
  isWeatherRated: true,
};

const RAIN_JACKET: ProductType = {
  code: "RJ",
  noun: "Rain Jacket",
  categories: ["Apparel & Accessories > Clothing > Outerwear > Coats & Jackets"],
  priceMinor: [7900, 34900],
  weightGrams: [280, 520],
  features: ["Waterproof", "Packable", "Breathable", "Stretch", "3-Layer"],
  materials: ["Gore-Tex", "Recycled nylon", "Ripstop polyester", "2.5-layer nylon"],
  options: [APPAREL_SIZES, color(BRIGHTS)],
  specs: [{ name: "fit", values: ["Regular", "Athletic", "Relaxed"] }],
  tags: ["jacket", "rain", "shell", "outerwear"],
  uses: ["storm days", "alpine ridges", "rainy commutes", "shoulder-season hikes"],
  blurbs: [
    "Fully taped seams and a helmet-compatible hood shrug off sideways rain.",
    "Pit zips dump heat on steep {use}.",
  ],
  isGendered: true,
  isWeatherRated: true,
  isAlwaysWaterproof: true,
};

const DOWN_JACKET: ProductType = {
  code: "DJ",
  noun: "Down Jacket",
  categories: ["Apparel & Accessories > Clothing > Outerwear > Coats & Jackets"],
  priceMinor: [14900, 37900],
  weightGrams: [300, 700],
  features: ["Insulated", "Packable", "Ultralight", "Hooded", "Water-Resistant"],
  materials: ["800-fill goose down", "650-fill duck down", "Recycled down", "Synthetic insulation"],
  options: [APPAREL_SIZES, color(EARTH_TONES)],
  specs: [{ name: "fill power", values: ["650", "800", "850"] }],
  tags: ["jacket", "down", "insulation", "outerwear", "winter"],
  uses: ["cold belays", "winter camps", "frosty mornings", "ski-lift rides"],
  blurbs: ["It stuffs into its own pocket for {use}.", "Baffled {material} traps warmth without the bulk."],
  isGendered: true,
  isWeatherRated: true,
};

const BACKPACK: ProductType = {
  code: "BP",
  noun: "Hiking Backpack",
  categories: [
    "Luggage & Bags > Backpacks > Hiking Backpacks",
    "Sporting Goods > Outdoor Recreation > Camping & Hiking",
  ],
  priceMinor: [5900, 29900],
  weightGrams: [700, 2100],
  features: ["Lightweight", "Ventilated", "Waterproof", "Ultralight", "Roll-Top", "Trail"],
  materials: ["Ripstop nylon", "Dyneema composite", "Recycled polyester", "Waxed canvas"],
  options: [
    {
      name: "Capacity",
      values: ["22 L", "28 L", "35 L", "45 L", "60 L"],
      isOrdered: true,
      priceStepMinor: 2000,
    },
    color(EARTH_TONES),
  ],
  specs: [{ name: "hydration compatible", values: ["yes", "no"] }],
  tags: ["backpack", "pack", "hiking", "bags"],
  uses: ["day hikes", "hut-to-hut trips", "overnighters", "travel"],
  blurbs: [
    "A suspended mesh back panel keeps air moving on {use}.",
    "Stretch side pockets swallow bottles and layers.",
  ],
  isWeatherRated: true,
};

const TENT: ProductType = {
  code: "TN",
  noun: "Backpacking Tent",
  categories: ["Sporting Goods > Outdoor Recreation > Camping & Hiking > Tents"],
  priceMinor: [14900, 59900],
  weightGrams: [900, 3200],
  features: ["Ultralight", "Freestanding", "4-Season", "3-Season", "Waterproof"],
  materials: ["Silnylon", "Ripstop polyester", "Dyneema composite"],
  options: [
    {
      name: "Capacity",
      values: ["1-Person", "2-Person", "3-Person", "4-Person"],
      isOrdered: true,
      priceStepMinor: 6000,
    },
  ],
  specs: [{ name: "doors", values: ["1", "2"] }],
  tags: ["tent", "camping", "shelter", "backpacking"],
  uses: ["thru-hikes", "alpine camps", "festival weekends", "desert nights"],
  blurbs: [
    "Color-coded clips make pitching in the dark quick.",
    "A {material} fly sheds wind and rain on exposed {use}.",
  ],
  isWeatherRated: true,
  isAlwaysWaterproof: true,
};

const SLEEPING_BAG: ProductType = {
  code: "SB",
  noun: "Sleeping Bag",
  categories: ["Sporting Goods > Outdoor Recreation > Camping & Hiking > Sleeping Bags"],
  priceMinor: [7900, 44900],
  weightGrams: [600, 1800],
  features: ["Down", "Synthetic", "Ultralight", "Mummy", "Quilt-Style"],
  materials: ["800-fill goose down", "Synthetic insulation", "Recycled polyester"],
  options: [{ name: "Length", values: ["Regular", "Long"], isOrdered: true, priceStepMinor: 2000 }],
  specs: [{ name: "temperature rating", values: ["-7 °C", "-1 °C", "4 °C", "10 °C"] }],
  tags: ["sleeping bag", "camping", "sleep"],
  uses: ["cold nights", "summer camps", "alpine bivouacs"],
  blurbs: ["A draft collar and contoured hood seal in warmth on {use}."],
};

const HEADLAMP: ProductType = {
  code: "HL",
  noun: "Headlamp",
  categories: ["Sporting Goods > Outdoor Recreation > Camping & Hiking > Camping Lights & Lanterns"],
  priceMinor: [1900, 8900],
  weightGrams: [60, 160],
  features: ["Rechargeable", "Waterproof", "Ultralight", "Red-Light", "High-Output"],
  materials: ["Aluminum", "Polycarbonate"],
  options: [color(["Black", "Glacier Blue", "Sunset Orange", "Lime"])],
  specs: [
    { name: "brightness", values: ["300 lumens", "450 lumens", "800 lumens", "1200 lumens"] },
    { name: "battery", values: ["USB-C rechargeable", "3× AAA"] },
  ],
  tags: ["headlamp", "light", "camping", "night"],
  uses: ["pre-dawn starts", "night runs", "camp chores"],
  blurbs: ["A lockout mode stops it draining in your pack."],
  isWeatherRated: true,
};

const TREKKING_POLES: ProductType = {
  code: "TP",
  noun: "Trekking Poles",
  isPlural: true,
  categories: ["Sporting Goods > Outdoor Recreation > Camping & Hiking > Hiking Poles"],
  priceMinor: [3900, 17900],
  weightGrams: [380, 620],
  features: ["Carbon", "Collapsible", "Lightweight", "Adjustable"],
  materials: ["Carbon fiber", "7075 aluminum", "Cork grips"],
  options: [{ name: "Length", values: ["100-120 cm", "110-130 cm", "120-140 cm"], isOrdered: true }],
  tags: ["trekking poles", "hiking", "poles"],
  uses: ["steep descents", "river crossings", "long days"],
  blurbs: ["Flick-locks adjust length with gloves on.", "{material} shafts save your knees on {use}."],
};

const WATER_FILTER: ProductType = {
  code: "WF",
  noun: "Water Filter",
  categories: ["Sporting Goods > Outdoor Recreation > Camping & Hiking > Portable Water Filters & Purifiers"],
  priceMinor: [2500, 12900],
  weightGrams: [60, 400],
  features: ["Squeeze", "Gravity", "Compact", "Ultralight"],
  materials: ["Hollow-fiber membrane", "BPA-free plastic"],
  options: [],
  specs: [{ name: "flow rate", values: ["1 L/min", "1.7 L/min", "2 L/min"] }],
  tags: ["water filter", "hydration", "camping", "backpacking"],
  uses: ["backcountry trips", "travel", "emergency kits"],
  blurbs: ["Removes 99.9999% of bacteria straight from streams and lakes."],
};

const MERINO_BASE_LAYER: ProductType = {
  code: "ML",
  noun: "Merino Base Layer",
  categories: [
    "Apparel & Accessories > Clothing > Activewear",
    "Apparel & Accessories > Clothing > Underwear & Socks",
  ],
  priceMinor: [4900, 11900],
  weightGrams: [150, 280],
  features: ["Lightweight", "Midweight", "Crew", "Quarter-Zip", "Long-Sleeve"],
  materials: ["Merino wool", "Merino-nylon blend"],
  options: [APPAREL_SIZES, color(EARTH_TONES)],
  tags: ["base layer", "merino", "wool", "thermal"],
  uses: ["ski tours", "cold hikes", "layering", "travel"],
  blurbs: ["Merino regulates temperature and resists odor day after day."],
  isGendered: true,
};

const HIKING_SOCKS: ProductType = {
  code: "HS",
  noun: "Hiking Socks",
  isPlural: true,
  categories: ["Apparel & Accessories > Clothing > Underwear & Socks > Socks"],
  priceMinor: [1600, 3200],
  weightGrams: [60, 120],
  features: ["Cushioned", "Merino", "Lightweight", "Crew", "Quarter"],
  materials: ["Merino wool", "Recycled nylon"],
  options: [SOCK_SIZES, color(["Charcoal", "Olive", "Rust", "Navy"])],
  tags: ["socks", "hiking", "merino"],
  uses: ["long hikes", "boot break-in", "everyday wear"],
  blurbs: ["Targeted cushioning sits under the heel and forefoot where boots rub."],
};

const WATER_BOTTLE: ProductType = {
  code: "WB",
  noun: "Insulated Water Bottle",
  categories: ["Sporting Goods > Outdoor Recreation > Camping & Hiking > Water Bottles"],
  priceMinor: [2200, 4900],
  weightGrams: [320, 560],
  features: ["Vacuum", "Leakproof", "Wide-Mouth", "Trail"],
  materials: ["18/8 stainless steel", "Powder-coated steel"],
  options: [
    { name: "Capacity", values: ["500 ml", "750 ml", "1 L"], isOrdered: true, priceStepMinor: 500 },
    color(BRIGHTS),
  ],
  tags: ["water bottle", "hydration", "insulated"],
  uses: ["summit pushes", "hot days", "the office"],
  blurbs: ["Double walls keep water cold for 24 hours."],
};

const CAMP_STOVE: ProductType = {
  code: "CS",
  noun: "Camp Stove",
  categories: ["Sporting Goods > Outdoor Recreation > Camping & Hiking > Camping Cookware & Dinnerware"],
  priceMinor: [3900, 16900],
  weightGrams: [80, 1200],
  features: ["Compact", "Ultralight", "Windproof", "Integrated"],
  materials: ["Titanium", "Anodized aluminum", "Stainless steel"],
  options: [],
  specs: [{ name: "fuel", values: ["Isobutane canister", "White gas", "Multi-fuel"] }],
  tags: ["stove", "camping", "cooking"],
  uses: ["hut trips", "car camping", "backcountry coffee"],
  blurbs: ["Boils a liter of water in about three minutes."],
};

export const OUTDOOR: Vertical = {
  key: "outdoor",
  types: [
    HIKING_BOOT,
    HIKING_BOOT,
    TRAIL_RUNNER,
    RAIN_JACKET,
    DOWN_JACKET,
    BACKPACK,
    TENT,
    SLEEPING_BAG,
    HEADLAMP,
    TREKKING_POLES,
    WATER_FILTER,
    MERINO_BASE_LAYER,
    HIKING_SOCKS,
    WATER_BOTTLE,
    CAMP_STOVE,
  ],
  models: [
    "Trailblazer",
    "Ridgeline",
    "Summit",
    "Cascade",
    "Timberline",
    "Switchback",
    "Granite",
    "Basecamp",
    "Talus",
    "Cirque",
    "Highpoint",
    "Redwood",
    "Sierra",
    "Alpine",
    "Canyon",
    "Boulder",
    "Tundra",
    "Kestrel",
    "Ptarmigan",
    "Scree",
    "Glacier",
    "Moraine",
    "Saddle",
    "Wayfinder",
    "Backcountry",
    "Juniper",
    "Cairn",
    "Ember",
  ],
  suffixes: ["", "", "", "", " Pro", " II", " Lite", " XT", " GTX", " 2.0"],
  closers: [
    "Backed by our lifetime repair promise.",
    "Tested on the trails around our shop before it hit the shelf.",
    "Free returns on unworn gear within 60 days.",
    "Part of our Leave No Trace partnership: 1% of sales fund trail crews.",
  ],
};
