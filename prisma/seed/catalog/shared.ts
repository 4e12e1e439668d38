// Option scales and palettes reused across verticals.
import type { OptionSpec } from "./types";

export const APPAREL_SIZES: OptionSpec = {
  name: "Size",
  values: ["XS", "S", "M", "L", "XL", "XXL"],
  isOrdered: true,
};
export const SHOE_SIZES: OptionSpec = {
  name: "Size",
  values: ["7", "7.5", "8", "8.5", "9", "9.5", "10", "10.5", "11", "11.5", "12", "13"],
  isOrdered: true,
};
export const SOCK_SIZES: OptionSpec = { name: "Size", values: ["S", "M", "L", "XL"], isOrdered: true };

export const color = (values: readonly string[]): OptionSpec => ({ name: "Color", values, isOrdered: false });

export const EARTH_TONES = [
  "Black",
  "Slate Gray",
  "Olive",
  "Desert Tan",
  "Forest Green",
  "Navy",
  "Rust",
  "Charcoal",
];
export const BRIGHTS = ["Black", "Glacier Blue", "Sunset Orange", "Alpine Red", "Lime", "Graphite", "White"];
export const BASICS = [
  "Black",
  "White",
  "Heather Gray",
  "Navy",
  "Oatmeal",
  "Burgundy",
  "Sage",
  "Camel",
  "Denim Blue",
];
export const TECH_FINISHES = ["Midnight Black", "Silver", "Space Gray", "Arctic White", "Deep Blue", "Sand"];
export const KITCHEN_FINISHES = [
  "Matte Black",
  "Stainless Steel",
  "Cream",
  "Sage Green",
  "Terracotta",
  "Cobalt Blue",
];
