import type { Variant } from "@/lib/generated/prisma/client";

// UCP get_product option selection (catalog/lookup.md "Option Selection"): the effective selections after
// relaxation, the featured variant, and the variants that match. Pure: the rows in, the choice out.

export type SelectedOption = { name: string; label: string };

export const optionsOf = (variant: Pick<Variant, "options">): SelectedOption[] =>
  Array.isArray(variant.options) ? (variant.options as SelectedOption[]) : [];

/** Whether a variant carries every one of these selections. */
export const matchesSelection = (variant: Pick<Variant, "options">, selection: readonly SelectedOption[]) =>
  selection.every((s) => optionsOf(variant).some((o) => o.name === s.name && o.label === s.label));

/**
 * Drops selections until some variant matches them all (lookup.md "Input": `preferences` lists option names in
 * relaxation priority order and the server drops from its end first). Selections `preferences` does not name
 * have the lowest priority and go first, the last requested first (the most recent choice of a progressive UI).
 */
export const relaxSelection = (
  variants: readonly Pick<Variant, "options">[],
  requested: readonly SelectedOption[],
  preferences: readonly string[] = [],
): SelectedOption[] => {
  const rank = (s: SelectedOption): number => {
    const p = preferences.indexOf(s.name);
    return p === -1 ? preferences.length + (requested.length - requested.indexOf(s)) : p;
  };
  const selection = [...requested];
  while (selection.length > 0 && !variants.some((v) => matchesSelection(v, selection))) {
    const lowest = selection.reduce((a, b) => (rank(b) > rank(a) ? b : a));
    selection.splice(selection.indexOf(lowest), 1);
  }
  return selection;
};

export type VariantSelection<V> = {
  /** `product.selected`: the effective selections (null when the product has no options to select). */
  selected: SelectedOption[] | null;
  /** Featured first, then the other variants to show. */
  variants: V[];
};

/**
 * The variants and effective selections of get_product (lookup.md "Resolution Behavior"):
 * - by variant id: that variant first, `selected` its options, the others only when they match them (a request
 *   `selected` is ignored: the variant fully determines the selection);
 * - by product id with `selected`: the relaxed selection, the variants matching it (an available one first);
 * - by product id alone: the featured variant's options (the first available, else the first); every variant is
 *   listed, featured first, so the detail page still shows the whole product.
 */
export const selectVariants = <V extends Pick<Variant, "options" | "inventory">>(
  variants: readonly V[],
  hasOptions: boolean,
  { featured, selected, preferences }: { featured?: V; selected?: SelectedOption[]; preferences?: string[] },
): VariantSelection<V> => {
  const firstAvailable = (list: readonly V[]) => list.find((v) => v.inventory > 0) ?? list[0];
  if (featured) {
    const own = optionsOf(featured);
    return {
      selected: hasOptions ? own : own.length > 0 ? own : null,
      variants: [featured, ...variants.filter((v) => v !== featured && matchesSelection(v, own))],
    };
  }
  if (selected !== undefined && hasOptions) {
    const effective = relaxSelection(variants, selected, preferences);
    const matching = variants.filter((v) => matchesSelection(v, effective));
    const lead = firstAvailable(matching);
    return { selected: effective, variants: lead ? [lead, ...matching.filter((v) => v !== lead)] : matching };
  }
  const lead = firstAvailable(variants);
  return {
    selected: hasOptions && lead ? optionsOf(lead) : null,
    variants: lead ? [lead, ...variants.filter((v) => v !== lead)] : [...variants],
  };
};

/**
 * Availability of one option value relative to the effective selections (lookup.md "Availability Signals"): the
 * variants that keep every other selection and take this value — `exists` if any, `available` if one is in stock.
 */
export const valueAvailability = (
  variants: readonly Pick<Variant, "options" | "inventory">[],
  selection: readonly SelectedOption[],
  name: string,
  label: string,
): { available: boolean; exists: boolean } => {
  const wanted = [...selection.filter((s) => s.name !== name), { name, label }];
  const matching = variants.filter((v) => matchesSelection(v, wanted));
  return { exists: matching.length > 0, available: matching.some((v) => v.inventory > 0) };
};
