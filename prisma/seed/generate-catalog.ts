// Turns (store, product index) into product and variant rows. Each product draws from its own PRNG stream seeded
// by "seed|store|index", so a product does not change when the total grows; only handle de-duplication looks
// at earlier products, and it runs in index order, so the whole catalog is reproducible.
import type { OptionSpec, ProductType, Vertical } from "./catalog/types";
import type { DemoStore } from "./demo-stores";
import { toGtin13 } from "./gtin";
import { createRng, type Rng } from "./prng";
import { SEED_NAMESPACE, seedId } from "./seed-ids";

export type Attribute = { name: string; value: string };
export type ProductOption = { name: string; values: string[] };
export type SelectedOption = { name: string; label: string };
export type MediaItem = { type: "image"; url: string; alt_text: string };

/** Columns of `products`, in the camelCase Prisma uses; both insert strategies start from this. */
export type ProductRow = {
  id: string;
  storeId: string;
  handle: string;
  title: string;
  descriptionText: string;
  descriptionHtml: string;
  categories: string[];
  tags: string[];
  attributes: Attribute[];
  options: ProductOption[];
  media: MediaItem[];
  url: null;
  createdAt: Date;
  updatedAt: Date;
};

export type VariantRow = {
  id: string;
  productId: string;
  storeId: string;
  handle: string;
  title: string;
  sku: string;
  barcode: string | null;
  barcodeType: string | null;
  priceMinor: number;
  listPriceMinor: number | null;
  currency: string;
  inventory: number;
  weightGrams: number;
  options: SelectedOption[];
  position: number;
  createdAt: Date;
  updatedAt: Date;
};

/** Per-store memory of used handles; unique (storeId, handle) exists on both products and variants. */
export type HandleRegistry = { products: Set<string>; variants: Set<string> };

export const createHandleRegistry = (): HandleRegistry => ({ products: new Set(), variants: new Set() });

/** Media URL relative to the base URL: one neutral placeholder, so the demo needs no image hosting. */
export const PLACEHOLDER_IMAGE_URL = "/media/placeholder.svg";

// Catalog shape knobs. ~8 % of variants out of stock gives "availability" filters something to find.
const OUT_OF_STOCK_RATE = 0.08;
const ON_SALE_RATE = 0.15;
const BARCODE_RATE = 0.7;
const TITLE_FEATURE_RATE = 0.8;
const VARIANT_COUNTS = [1, 1, 2, 2, 2, 3, 3, 4, 4, 4] as const;
const SALE_DISCOUNT_PERCENTS = [10, 15, 20, 25, 30] as const;
// Price endings in cents; .99 dominates like real shelves.
const PRICE_ENDINGS = [99, 99, 99, 95, 0] as const;
const MEDIA_ANGLES = ["front view", "side view", "detail", "in use"] as const;
const CATALOG_AGE_DAYS = 365;

export const slugify = (text: string): string =>
  text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/ß/g, "ss")
    .toLowerCase()
    .replace(/['’]/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");

/** First free "base", "base-2", "base-3"… in `used`; records the winner. */
const claimHandle = (used: Set<string>, base: string): string => {
  let handle = base;
  for (let n = 2; used.has(handle); n += 1) handle = `${base}-${n}`;
  used.add(handle);
  return handle;
};

/** Rounds down to whole currency units and applies a shelf ending (…,99 / …,95 / …,00); never below 1.00. */
const toShelfPrice = (minor: number, endingCents: number): number => {
  const units = Math.max(1, Math.floor(minor / 100));
  return endingCents === 0 ? units * 100 : (units - 1) * 100 + endingCents;
};

const escapeHtml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

// Proper nouns among the materials keep their capital mid-sentence ("Turkish cotton", "Dyneema composite").
const PROPER_MATERIAL_WORDS = new Set(["Dyneema", "European", "German", "Pima", "Tencel", "Turkish"]);

/**
 * A material as it reads mid-sentence: "Full-grain leather" → "full-grain leather", while brands and acronyms
 * ("Gore-Tex", "VG-10 steel", "BPA-free plastic") and proper nouns stay as written.
 */
export const materialInSentence = (material: string): string => {
  const firstWord = material.split(" ")[0] ?? "";
  const isPlainCapitalized = /^[A-Z][a-z]+(-[a-z0-9]+)*$/.test(firstWord);
  if (!isPlainCapitalized || PROPER_MATERIAL_WORDS.has(firstWord)) return material;
  return material.charAt(0).toLowerCase() + material.slice(1);
};

const fill = (template: string, values: { material: string; use: string; noun: string }): string =>
  template
    .replace(/\{material\}/g, materialInSentence(values.material))
    .replace(/\{use\}/g, values.use)
    .replace(/\{noun\}/g, values.noun.toLowerCase());

const capitalize = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

type ChosenOption = { spec: OptionSpec; values: string[] };

/**
 * Picks option values so that the variant grid has 1–4 cells: scales take a contiguous run (sizes 9–10, not 7
 * and 12), palettes any subset. With two options, four variants are a 2×2 grid; otherwise the second option
 * keeps a single value (still published, e.g. Color: ["Olive"]).
 */
const chooseOptions = (rng: Rng, type: ProductType): ChosenOption[] => {
  const target = rng.pick(VARIANT_COUNTS);
  const choose = (spec: OptionSpec, k: number): ChosenOption => {
    const count = Math.min(k, spec.values.length);
    if (spec.isOrdered) {
      const start = rng.int(0, spec.values.length - count);
      return { spec, values: spec.values.slice(start, start + count) };
    }
    return { spec, values: rng.sample(spec.values, count) };
  };
  const [first, second] = type.options;
  if (!first) return [];
  if (!second) return [choose(first, target)];
  if (target === 4) return [choose(first, 2), choose(second, 2)];
  return [choose(first, target), choose(second, 1)];
};

/** priceSteps: surcharged steps up priced scales; sizeSteps: steps up any scale (bigger sizes weigh more). */
type Cell = { labels: SelectedOption[]; priceSteps: number; sizeSteps: number };

const variantGrid = (chosen: readonly ChosenOption[]): Cell[] => {
  let cells: Cell[] = [{ labels: [], priceSteps: 0, sizeSteps: 0 }];
  for (const option of chosen) {
    const next: Cell[] = [];
    for (const cell of cells) {
      option.values.forEach((label, i) => {
        // Steps count from the smallest chosen value: the base price belongs to the first variant.
        const sizeSteps = option.spec.isOrdered ? i : 0;
        next.push({
          labels: [...cell.labels, { name: option.spec.name, label }],
          priceSteps: cell.priceSteps + (option.spec.priceStepMinor ? sizeSteps : 0),
          sizeSteps: cell.sizeSteps + sizeSteps,
        });
      });
    }
    cells = next;
  }
  return cells;
};

const stepPriceMinor = (chosen: readonly ChosenOption[]): number =>
  chosen.reduce((sum, o) => sum + (o.spec.isOrdered ? (o.spec.priceStepMinor ?? 0) : 0), 0);

export type GeneratedProduct = { product: ProductRow; variants: VariantRow[] };

export type GenerateProductInput = {
  store: DemoStore;
  storeId: string;
  /** 0-based position of the product in its store's catalog. */
  index: number;
  handles: HandleRegistry;
  /** Newest possible createdAt; products spread over the year before it. */
  anchor: Date;
};

export const generateProduct = ({
  store,
  storeId,
  index,
  handles,
  anchor,
}: GenerateProductInput): GeneratedProduct => {
  const rng = createRng(`${SEED_NAMESPACE}|${store.slug}|${index}`);
  const vertical: Vertical = rng.pick(store.verticals);
  const type = rng.pick(vertical.types);
  const model = `${rng.pick(store.models ?? vertical.models)}${rng.pick(vertical.suffixes)}`;
  const genderDraw = rng.next();
  const gender = type.isGendered ? (genderDraw < 0.45 ? "men" : genderDraw < 0.9 ? "women" : "unisex") : null;
  const feature = rng.chance(TITLE_FEATURE_RATE) ? rng.pick(type.features) : null;
  const namedMaterials = feature
    ? type.materials.filter((m) => m.toLowerCase().includes(feature.toLowerCase()))
    : [];
  const material = rng.pick(namedMaterials.length > 0 ? namedMaterials : type.materials);
  const genderPrefix = gender === "men" ? "Men's" : gender === "women" ? "Women's" : null;
  const title = [genderPrefix, model, feature, type.noun].filter((w): w is string => w !== null).join(" ");
  const handle = claimHandle(handles.products, slugify(title));

  const isWaterproof =
    type.isAlwaysWaterproof === true || feature === "Waterproof" || /gore-tex/i.test(material);
  const chosen = chooseOptions(rng, type);
  const specs = (type.specs ?? []).map((spec) => ({ name: spec.name, value: rng.pick(spec.values) }));

  const attributes: Attribute[] = [{ name: "material", value: material }];
  // Every option value is also an attribute, so an exact attribute filter (color = Olive) finds the product.
  for (const option of chosen) {
    for (const value of option.values) attributes.push({ name: option.spec.name.toLowerCase(), value });
  }
  if (type.isWeatherRated) attributes.push({ name: "waterproof", value: isWaterproof ? "yes" : "no" });
  if (gender) attributes.push({ name: "gender", value: gender });
  attributes.push(...specs);

  // Prices: one base draw, scaled by the store's currency factor, then per-step surcharges; integers throughout.
  const ending = rng.pick(PRICE_ENDINGS);
  const [minPrice, maxPrice] = type.priceMinor;
  const baseMinor = Math.round((rng.int(minPrice, maxPrice) * store.pricePercent) / 100);
  const stepMinor = Math.round((stepPriceMinor(chosen) * store.pricePercent) / 100);
  const isOnSale = rng.chance(ON_SALE_RATE);
  const discountPercent = rng.pick(SALE_DISCOUNT_PERCENTS);
  const hasBarcode = rng.chance(BARCODE_RATE);
  const [minWeight, maxWeight] = type.weightGrams;
  const baseWeight = rng.int(minWeight, maxWeight);

  const createdAt = new Date(anchor.getTime() - rng.int(0, CATALOG_AGE_DAYS * 24 * 3600) * 1000);
  const uses = rng.sample(type.uses, 2);
  const useText = uses.join(" and ");
  const blurbs = rng.sample(type.blurbs, Math.min(2, type.blurbs.length));
  const closer = rng.pick(store.closers ?? vertical.closers);
  const fillValues = { material, use: uses[0] ?? "everyday use", noun: type.noun };
  const sentences = [
    `The ${title} ${type.isPlural ? "are" : "is"} made for ${useText}.`,
    ...blurbs.map((b) => capitalize(fill(b, fillValues))),
    ...(blurbs.some((b) => b.includes("{material}")) ? [] : [`Made with ${materialInSentence(material)}.`]),
    ...(isWaterproof ? [`Fully waterproof, so wet weather never cuts ${uses[0] ?? "a day"} short.`] : []),
    closer,
  ];
  const descriptionText = sentences.join(" ");
  const highlights = [{ name: "material", value: material }, ...specs]
    .map((a) => `<li>${escapeHtml(capitalize(a.name))}: ${escapeHtml(a.value)}</li>`)
    .join("");
  const descriptionHtml = `<p>${escapeHtml(descriptionText)}</p><ul>${highlights}</ul>`;

  const tags = new Set<string>(type.tags);
  if (feature) tags.add(feature.toLowerCase());
  if (isWaterproof) tags.add("waterproof");
  if (gender === "men") tags.add("mens");
  if (gender === "women") tags.add("womens");
  if (isOnSale) tags.add("sale");

  const media: MediaItem[] = MEDIA_ANGLES.slice(0, rng.int(1, 3)).map((angle) => ({
    type: "image",
    url: PLACEHOLDER_IMAGE_URL,
    alt_text: `${title}, ${angle}`,
  }));

  const productId = seedId("product", store.slug, index);
  const product: ProductRow = {
    id: productId,
    storeId,
    handle,
    title,
    descriptionText,
    descriptionHtml,
    categories: [...type.categories],
    tags: [...tags].map((t) => t.toLowerCase()),
    attributes,
    options: chosen.map((o) => ({ name: o.spec.name, values: o.values })),
    media,
    url: null,
    createdAt,
    updatedAt: createdAt,
  };

  const variants = variantGrid(chosen).map((cell, position): VariantRow => {
    const priceMinor = toShelfPrice(baseMinor + cell.priceSteps * stepMinor, ending);
    const listCandidate = toShelfPrice(Math.round((priceMinor * 100) / (100 - discountPercent)), ending);
    const inventory = rng.chance(OUT_OF_STOCK_RATE) ? 0 : rng.chance(0.2) ? rng.int(41, 400) : rng.int(1, 40);
    const labels = cell.labels.map((l) => l.label);
    const variantHandleBase = labels.length > 0 ? `${handle}-${slugify(labels.join(" "))}` : handle;
    // GTIN body: GS1 prefix (3) + product index (8) + variant position (1); the index alone keeps them distinct.
    const gtinBody = `${store.gs1Prefix}${String(index % 100_000_000).padStart(8, "0")}${position % 10}`;
    return {
      id: seedId("variant", store.slug, index, position),
      productId,
      storeId,
      handle: claimHandle(handles.variants, variantHandleBase),
      title: labels.length > 0 ? labels.join(" / ") : "Default",
      sku: `${store.skuPrefix}-${type.code}-${String(index + 1).padStart(6, "0")}-${position + 1}`,
      barcode: hasBarcode ? toGtin13(gtinBody) : null,
      barcodeType: hasBarcode ? "gtin13" : null,
      priceMinor,
      listPriceMinor: isOnSale && listCandidate > priceMinor ? listCandidate : null,
      currency: store.currency,
      inventory,
      weightGrams: baseWeight + cell.sizeSteps * Math.round(baseWeight * 0.05),
      options: cell.labels,
      position,
      createdAt,
      updatedAt: createdAt,
    };
  });

  return { product, variants };
};
