// The benchmark's query mix: a fixed, realistic set of ≥ 200 search bodies built from words and
// facet values of the seeded catalog — one-word, multi-word, typo, filtered, sorted, facet-heavy and deep-page
// searches. Deterministic for a given catalog (a seeded PRNG picks the words).

export type MixKind = "one-word" | "multi-word" | "typo" | "filtered" | "sorted" | "facets" | "deep-page";
export type MixEntry = { kind: MixKind; body: Record<string, unknown> };

export type CatalogSample = {
  titles: string[];
  tags: string[];
  categories: string[];
  sellers: string[];
};

const rng = (seed: number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};

const wordsOf = (title: string): string[] =>
  title
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 4);

/** A small typo: swap two inner letters, drop one, or replace one. */
const typo = (word: string, r: () => number): string => {
  const i = 1 + Math.floor(r() * (word.length - 2));
  const kind = Math.floor(r() * 3);
  if (kind === 0) return `${word.slice(0, i)}${word[i + 1] ?? ""}${word[i]}${word.slice(i + 2)}`;
  if (kind === 1) return `${word.slice(0, i)}${word.slice(i + 1)}`;
  return `${word.slice(0, i)}${word[i] === "e" ? "a" : "e"}${word.slice(i + 1)}`;
};

export const buildQueryMix = (sample: CatalogSample): MixEntry[] => {
  const r = rng(42);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const titleWords = sample.titles.map(wordsOf).filter((w) => w.length > 0);
  const allWords = [...new Set(titleWords.flat())];
  const mix: MixEntry[] = [];
  const add = (kind: MixKind, n: number, make: () => Record<string, unknown>) => {
    for (let i = 0; i < n; i++) mix.push({ kind, body: make() });
  };
  add("one-word", 50, () => ({ query: pick(allWords) }));
  add("multi-word", 40, () => {
    const words = pick(titleWords.filter((w) => w.length >= 2));
    return {
      query: [...words]
        .sort(() => r() - 0.5)
        .slice(0, 3)
        .join(" "),
    };
  });
  add("typo", 30, () => ({ query: typo(pick(allWords.filter((w) => w.length >= 5)), r) }));
  add("filtered", 40, () => {
    const q = pick(allWords);
    const filters = [
      { price: { max: 2_000 + Math.floor(r() * 20_000), currency: "USD" } },
      { tags: [pick(sample.tags)] },
      { categories: [pick(sample.categories).split(" > ").at(-1)!] },
      { seller: pick(sample.sellers) },
      { payment: ["USDC"] },
    ];
    return { query: q, filters: pick(filters) };
  });
  add("sorted", 30, () => {
    const sort = pick(["price_asc", "price_desc", "newest"]);
    return r() < 0.5
      ? { query: pick(allWords), sort }
      : { filters: { categories: [pick(sample.categories).split(" > ")[0]!] }, sort };
  });
  add("facets", 25, () =>
    pick([
      { filters: { available: false } },
      { filters: { available: true } },
      { filters: { payment: ["svc.crypto"] } },
      { filters: { categories: [pick(sample.categories).split(" > ")[0]!] } },
      { filters: { price: { max: 50_000 } } },
    ]),
  );
  // deep pages: the bench resolves the page-5 cursor of these before measuring
  add("deep-page", 25, () =>
    pick([
      { query: pick(allWords), pagination: { limit: 10 } },
      { filters: { available: false }, sort: pick(["newest", "price_asc"]), pagination: { limit: 10 } },
      { filters: { tags: [pick(sample.tags)] }, pagination: { limit: 10 } },
    ]),
  );
  return mix;
};
