// Shapes of the hand-written word lists the catalog generator draws from (one file per vertical).

export type OptionSpec = {
  /** Display name on the wire, e.g. "Size", "Color". */
  name: string;
  values: readonly string[];
  /**
   * True for scales (sizes, capacities): variants take a contiguous run of values, and each step up may cost
   * `priceStepMinor` more. False for colors and finishes: variants take any subset at the same price.
   */
  isOrdered: boolean;
  /** Extra price per step along an ordered scale, in minor units of the product's base (USD) price. */
  priceStepMinor?: number;
};

/** A fixed fact picked once per product, published as an attribute ({ name, value }) and used in copy. */
export type SpecSpec = { name: string; values: readonly string[] };

export type ProductType = {
  /** Two-letter code in SKUs ("HB" = hiking boot). */
  code: string;
  /** Singular noun ending the title: "Hiking Boot". */
  noun: string;
  /** Google-product-taxonomy-like paths; the first is the primary category. */
  categories: readonly string[];
  /** Inclusive base price range in USD minor units before the store's price factor. */
  priceMinor: readonly [number, number];
  weightGrams: readonly [number, number];
  /**
   * Title words placed before the noun ("Waterproof", "Lightweight"); repeats weight the draw. A feature that
   * names a material ("Carbon", "Merino") pins the material to a matching entry, so copy never contradicts it.
   */
  features: readonly string[];
  materials: readonly string[];
  options: readonly OptionSpec[];
  specs?: readonly SpecSpec[];
  tags: readonly string[];
  /** What it is for, used in the description ("day hikes", "rainy commutes"). */
  uses: readonly string[];
  /** Copy lines; {material}, {use} and {noun} are filled in per product. */
  blurbs: readonly string[];
  /** Plural nouns ("Trekking Poles", "Jeans") take "are" in copy. */
  isPlural?: boolean;
  /** Titles get "Men's " / "Women's " prefixes and a matching attribute. */
  isGendered?: boolean;
  /** Publishes a "waterproof" attribute (yes when a title feature or material says so). */
  isWeatherRated?: boolean;
  /** Waterproof by nature (rain shells, tents), whatever the title feature. */
  isAlwaysWaterproof?: boolean;
};

export type Vertical = {
  key: string;
  types: readonly ProductType[];
  /** Model names that open titles ("Trailblazer"); the store's voice. */
  models: readonly string[];
  /** Optional trailing model markers ("Pro", "II"); "" entries weight "no suffix". */
  suffixes: readonly string[];
  /** Closing sentences shared by the vertical. */
  closers: readonly string[];
};
