// Small deterministic randomness for the seed: the same (seed, store, index) always yields the same product,
// whatever the total size or the order stores are seeded in. Not for anything security-related.
import { createHash } from "node:crypto";

export type Rng = {
  /** Uniform float in [0, 1). */
  next: () => number;
  /** Uniform integer in [min, max] (both inclusive). */
  int: (min: number, max: number) => number;
  /** True with probability p. */
  chance: (p: number) => boolean;
  pick: <T>(items: readonly T[]) => T;
  /** k distinct items, in their original order (keeps size scales ascending). */
  sample: <T>(items: readonly T[], k: number) => T[];
};

/** 32-bit seed from a string (first 4 bytes of its SHA-256; good enough spread for independent streams). */
export const hashSeed = (text: string): number => createHash("sha256").update(text).digest().readUInt32LE(0);

// mulberry32 (Tommy Ettinger, public domain): tiny, fast, full 2^32 period, plenty for catalog variety.
const mulberry32 = (seed: number): (() => number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

export const createRng = (seedText: string): Rng => {
  const next = mulberry32(hashSeed(seedText));
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => {
    const item = items[Math.floor(next() * items.length)];
    if (item === undefined) throw new Error("pick() from an empty list");
    return item;
  };
  const sample = <T>(items: readonly T[], k: number): T[] => {
    const indexes = items.map((_, i) => i);
    // Partial Fisher–Yates over the indexes, then restore the source order.
    for (let i = 0; i < Math.min(k, indexes.length); i += 1) {
      const j = i + Math.floor(next() * (indexes.length - i));
      const a = indexes[i];
      const b = indexes[j];
      if (a === undefined || b === undefined) break;
      indexes[i] = b;
      indexes[j] = a;
    }
    return indexes
      .slice(0, k)
      .sort((x, y) => x - y)
      .flatMap((i) => {
        const item = items[i];
        return item === undefined ? [] : [item];
      });
  };
  return { next, int, chance: (p) => next() < p, pick, sample };
};
