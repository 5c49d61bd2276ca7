/**
 * The simulator's only source of variation: a string hash and a seeded PRNG, written here so the
 * simulator behaves identically in Node and workerd and across versions of any library.
 *
 * - `hashOf(...parts)`: FNV-1a (32-bit) over the parts joined by U+001F, then MurmurHash3's `fmix32`
 *   finaliser, because plain FNV-1a barely changes its high bits when only the last character
 *   differs (replay 1 vs replay 2), and the PRNG's first draw should not inherit that.
 * - `mulberry32(seed)`: Tommy Ettinger's mulberry32, 32-bit state, floats in [0, 1). Plenty for
 *   choosing plans; not for statistics (the engines have their own RNG in src/engines/stats).
 */

export type HashPart = string | number | bigint | boolean;

export function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A 32-bit unsigned hash of the parts; different part boundaries give different hashes. */
export function hashOf(...parts: HashPart[]): number {
  return fmix32(fnv1a32(parts.map(String).join("\u001f")));
}

/** `hashOf` as 8 lower-case hex digits. */
export function hexOf(...parts: HashPart[]): string {
  return hashOf(...parts)
    .toString(16)
    .padStart(8, "0");
}

/** mulberry32: a generator of floats in [0, 1) from a 32-bit seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A generator seeded by the hash of the parts. */
export const rngOf = (...parts: HashPart[]): (() => number) => mulberry32(hashOf(...parts));

/** An integer in [0, n) from a generator. */
export const pick = (random: () => number, n: number): number => Math.floor(random() * n);
