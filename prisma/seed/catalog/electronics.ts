// Consumer electronics word lists: fewer sizes, more capacities and finishes, higher prices.
import { color, TECH_FINISHES } from "./shared";
import type { ProductType, Vertical } from "./types";

const EARBUDS: ProductType = {
  code: "EB",
  noun: "Wireless Earbuds",
  isPlural: true,
  categories: ["Electronics > Audio > Audio Components > Headphones & Headsets > Headphones"],
  priceMinor: [4900, 27900],
  weightGrams: [40, 70],
  features: ["Noise-Cancelling", "Waterproof", "Sport", "True Wireless", "Hi-Res"],
  materials: ["Matte polycarbonate", "Recycled plastic", "Aluminum"],
  options: [color(TECH_FINISHES)],
  specs: [
    { name: "battery life", values: ["6 hours", "8 hours", "10 hours"] },
    { name: "connectivity", values: ["Bluetooth 5.3", "Bluetooth 5.4"] },
  ],
  tags: ["earbuds", "headphones", "audio", "wireless", "bluetooth"],
  uses: ["workouts", "commutes", "calls", "flights"],
  blurbs: [
    "Adaptive noise cancelling tunes out the world on {use}.",
    "The pocketable case adds three extra charges.",
  ],
  isWeatherRated: true,
};

const HEADPHONES: ProductType = {
  code: "HP",
  noun: "Over-Ear Headphones",
  isPlural: true,
  categories: ["Electronics > Audio > Audio Components > Headphones & Headsets > Headphones"],
  priceMinor: [7900, 44900],
  weightGrams: [220, 380],
  features: ["Noise-Cancelling", "Wireless", "Studio", "Foldable", "Open-Back"],
  materials: ["Memory-foam cushions", "Aluminum", "Protein leather"],
  options: [color(TECH_FINISHES)],
  specs: [{ name: "battery life", values: ["30 hours", "40 hours", "60 hours"] }],
  tags: ["headphones", "audio", "wireless", "bluetooth"],
  uses: ["long flights", "focus sessions", "mixing", "gaming"],
  blurbs: [
    "40 mm drivers deliver tight bass and clear mids.",
    "{material} for hours of comfortable listening.",
  ],
};

const SPEAKER: ProductType = {
  code: "SP",
  noun: "Bluetooth Speaker",
  categories: ["Electronics > Audio > Audio Components > Speakers"],
  priceMinor: [3900, 29900],
  weightGrams: [300, 2200],
  features: ["Waterproof", "Portable", "Rugged", "360°", "Smart"],
  materials: ["Fabric-wrapped aluminum", "Rubberized shell"],
  options: [color(TECH_FINISHES)],
  specs: [{ name: "battery life", values: ["12 hours", "20 hours", "24 hours"] }],
  tags: ["speaker", "audio", "bluetooth", "portable"],
  uses: ["beach days", "backyard parties", "camping", "the shower"],
  blurbs: ["Pair two for stereo sound at {use}."],
  isWeatherRated: true,
};

const CHARGER: ProductType = {
  code: "CG",
  noun: "USB-C Charger",
  categories: ["Electronics > Electronics Accessories > Power > Power Adapters & Chargers"],
  priceMinor: [1900, 8900],
  weightGrams: [60, 260],
  features: ["GaN", "Fast", "Compact", "Dual-Port", "Travel"],
  materials: ["Gallium nitride", "Fire-retardant polycarbonate"],
  options: [
    { name: "Power", values: ["30 W", "65 W", "100 W", "140 W"], isOrdered: true, priceStepMinor: 1500 },
  ],
  tags: ["charger", "usb-c", "power"],
  uses: ["laptops", "phones", "travel"],
  blurbs: ["Charges a laptop and a phone at once."],
};

const POWER_BANK: ProductType = {
  code: "PB",
  noun: "Power Bank",
  categories: ["Electronics > Electronics Accessories > Power > Power Banks"],
  priceMinor: [2900, 12900],
  weightGrams: [180, 650],
  features: ["Slim", "Rugged", "Magnetic", "Fast-Charge", "Solar"],
  materials: ["Aluminum shell", "Recycled plastic"],
  options: [
    {
      name: "Capacity",
      values: ["5,000 mAh", "10,000 mAh", "20,000 mAh", "26,800 mAh"],
      isOrdered: true,
      priceStepMinor: 1500,
    },
    color(["Black", "White", "Blue"]),
  ],
  tags: ["power bank", "battery", "charging", "usb-c"],
  uses: ["travel days", "festivals", "backcountry trips"],
  blurbs: ["Passthrough charging tops up the bank and your phone overnight."],
  isWeatherRated: true,
};

const SMARTWATCH: ProductType = {
  code: "SW",
  noun: "Smartwatch",
  categories: ["Electronics > Electronics Accessories > Wearable Technology > Smartwatches"],
  priceMinor: [12900, 69900],
  weightGrams: [30, 80],
  features: ["GPS", "Fitness", "Waterproof", "Solar", "AMOLED"],
  materials: ["Titanium case", "Aluminum case", "Sapphire glass"],
  options: [
    { name: "Case Size", values: ["41 mm", "45 mm", "49 mm"], isOrdered: true, priceStepMinor: 3000 },
    color(TECH_FINISHES),
  ],
  specs: [{ name: "battery life", values: ["2 days", "7 days", "14 days"] }],
  tags: ["smartwatch", "wearables", "fitness", "gps"],
  uses: ["marathon training", "swims", "sleep tracking", "hikes"],
  blurbs: ["Multi-band GPS keeps tracks accurate under tree cover."],
  isWeatherRated: true,
};

const KEYBOARD: ProductType = {
  code: "KB",
  noun: "Mechanical Keyboard",
  categories: ["Electronics > Electronics Accessories > Computer Accessories > Input Devices > Keyboards"],
  priceMinor: [6900, 24900],
  weightGrams: [600, 1400],
  features: ["Wireless", "Low-Profile", "Hot-Swappable", "Compact", "Backlit"],
  materials: ["Aluminum frame", "PBT keycaps", "Polycarbonate case"],
  options: [
    { name: "Switch", values: ["Linear", "Tactile", "Clicky"], isOrdered: false },
    color(["Black", "White", "Gray"]),
  ],
  specs: [{ name: "layout", values: ["75%", "TKL", "Full-size", "65%"] }],
  tags: ["keyboard", "mechanical", "computer", "accessories"],
  uses: ["coding", "writing", "gaming"],
  blurbs: ["Gasket mounting gives a soft, quiet typing feel."],
};

const MOUSE: ProductType = {
  code: "MS",
  noun: "Wireless Mouse",
  categories: [
    "Electronics > Electronics Accessories > Computer Accessories > Input Devices > Mice & Trackballs",
  ],
  priceMinor: [2900, 14900],
  weightGrams: [60, 140],
  features: ["Ergonomic", "Silent", "Gaming", "Ultralight", "Vertical"],
  materials: ["Textured polymer", "Magnesium alloy"],
  options: [color(["Black", "White", "Graphite", "Pink"])],
  tags: ["mouse", "computer", "accessories", "wireless"],
  uses: ["long workdays", "gaming", "design work"],
  blurbs: ["A precise sensor tracks on glass and fabric alike."],
};

const MONITOR: ProductType = {
  code: "MN",
  noun: "4K Monitor",
  categories: ["Electronics > Video > Computer Monitors"],
  priceMinor: [24900, 129900],
  weightGrams: [4200, 8500],
  features: ["IPS", "USB-C", "Curved", "High-Refresh", "HDR"],
  materials: ["Aluminum stand", "Matte anti-glare panel"],
  options: [
    { name: "Screen Size", values: ["27 in", "32 in", "34 in"], isOrdered: true, priceStepMinor: 10000 },
  ],
  specs: [{ name: "refresh rate", values: ["60 Hz", "120 Hz", "144 Hz"] }],
  tags: ["monitor", "display", "4k", "computer"],
  uses: ["photo editing", "home offices", "gaming"],
  blurbs: ["A single USB-C cable carries video, data and 90 W of power."],
};

const WEBCAM: ProductType = {
  code: "WC",
  noun: "Webcam",
  categories: ["Electronics > Cameras & Optics > Cameras > Webcams"],
  priceMinor: [4900, 19900],
  weightGrams: [80, 180],
  features: ["4K", "1080p", "Auto-Focus", "Wide-Angle", "Streaming"],
  materials: ["Glass lens", "Aluminum body"],
  options: [],
  tags: ["webcam", "camera", "video calls"],
  uses: ["video calls", "streaming", "online classes"],
  blurbs: ["Dual microphones pick up your voice, not the keyboard."],
};

const USB_HUB: ProductType = {
  code: "UH",
  noun: "USB-C Hub",
  categories: ["Electronics > Electronics Accessories > Computer Accessories > USB & FireWire Hubs"],
  priceMinor: [2900, 12900],
  weightGrams: [70, 250],
  features: ["7-in-1", "10-in-1", "Travel", "Aluminum", "Thunderbolt"],
  materials: ["Aluminum", "Braided cable"],
  options: [color(["Space Gray", "Silver"])],
  tags: ["usb-c", "hub", "adapter", "computer"],
  uses: ["laptops", "hot desks", "travel"],
  blurbs: ["HDMI, Ethernet and an SD reader in one pocketable block."],
};

const PORTABLE_SSD: ProductType = {
  code: "SD",
  noun: "Portable SSD",
  categories: [
    "Electronics > Electronics Accessories > Computer Components > Storage Devices > Solid State Drives",
  ],
  priceMinor: [6900, 29900],
  weightGrams: [40, 120],
  features: ["Rugged", "Waterproof", "Compact", "High-Speed", "Encrypted"],
  materials: ["Aluminum", "Rubber bumper"],
  options: [
    { name: "Capacity", values: ["500 GB", "1 TB", "2 TB", "4 TB"], isOrdered: true, priceStepMinor: 5000 },
    color(["Black", "Blue", "Orange"]),
  ],
  specs: [{ name: "interface", values: ["USB 3.2 Gen 2", "USB4", "Thunderbolt 4"] }],
  tags: ["ssd", "storage", "portable", "usb-c"],
  uses: ["video editing", "backups", "travel"],
  blurbs: ["Read speeds up to 2,000 MB/s for {use}."],
  isWeatherRated: true,
};

const ACTION_CAMERA: ProductType = {
  code: "AC",
  noun: "Action Camera",
  categories: ["Electronics > Cameras & Optics > Cameras > Video Cameras"],
  priceMinor: [14900, 49900],
  weightGrams: [120, 190],
  features: ["Waterproof", "5K", "Stabilized", "360°", "Compact"],
  materials: ["Polycarbonate housing", "Magnesium alloy"],
  options: [
    {
      name: "Bundle",
      values: ["Camera Only", "Adventure Kit", "Creator Kit"],
      isOrdered: true,
      priceStepMinor: 5000,
    },
  ],
  tags: ["camera", "action camera", "video"],
  uses: ["mountain biking", "snorkeling", "ski runs", "travel vlogs"],
  blurbs: ["Horizon-lock stabilization keeps footage level on {use}."],
  isWeatherRated: true,
};

const E_READER: ProductType = {
  code: "ER",
  noun: "E-Reader",
  categories: ["Electronics > Computers > Tablet Computers > E-Book Readers"],
  priceMinor: [9900, 27900],
  weightGrams: [170, 240],
  features: ["Waterproof", "Glare-Free", "Color", "Compact"],
  materials: ["Recycled plastic", "Aluminum back"],
  options: [{ name: "Storage", values: ["16 GB", "32 GB"], isOrdered: true, priceStepMinor: 2000 }],
  tags: ["e-reader", "books", "reading"],
  uses: ["beach reading", "commutes", "bedtime"],
  blurbs: ["A warm front light is easy on the eyes at night."],
  isWeatherRated: true,
};

export const ELECTRONICS: Vertical = {
  key: "electronics",
  types: [
    EARBUDS,
    HEADPHONES,
    SPEAKER,
    CHARGER,
    POWER_BANK,
    SMARTWATCH,
    KEYBOARD,
    MOUSE,
    MONITOR,
    WEBCAM,
    USB_HUB,
    PORTABLE_SSD,
    ACTION_CAMERA,
    E_READER,
  ],
  models: [
    "Pulse",
    "Volt",
    "Aero",
    "Nimbus",
    "Quasar",
    "Helix",
    "Orbit",
    "Photon",
    "Vector",
    "Zenith",
    "Arc",
    "Flux",
    "Prism",
    "Echo",
    "Nova",
    "Ion",
    "Spark",
    "Vertex",
    "Lumen",
    "Cobalt",
  ],
  suffixes: ["", "", "", " Pro", " Max", " Mini", " Plus", " 2", " 3", " SE"],
  closers: [
    "Includes a two-year warranty and free firmware updates.",
    "Ships with a USB-C cable; no power adapter in the box.",
    "30-day returns, even if it is opened.",
    "Certified for use in the US and EU.",
  ],
};
