/**
 * Maps the token `s[start, end)`, whose FNV-1a hash is `hash`, to a content-term id, or to -1
 * if it is a stopword. Receiving offsets rather than a string lets the hot path avoid slicing.
 */
export type Intern = (s: string, start: number, end: number, hash: number) => number;

/**
 * Per-call cache from token text to its interned id, keyed by a hash computed while the
 * scanner walks the characters. A repeated token then costs a probe and a character compare
 * instead of a string slice, a V8 string hash and a Map lookup; only the first occurrence of
 * each distinct token reaches `intern`. It only memoises `intern`, so it cannot change results.
 *
 * Open addressing with linear probing over 8,192 slots; one `score` call interns at most
 * 2 × 2,048 distinct tokens, and {@link resetTokenCache} starts every call afresh by bumping a
 * generation stamp instead of clearing arrays. Tokens longer than MAX_CACHED_LEN bypass the cache.
 */
const SLOTS = 8192;
const MASK = SLOTS - 1;
const MAX_ENTRIES = SLOTS / 2;
const MAX_CACHED_LEN = 32;

// 32-bit FNV-1a; the IDF index (idf.ts) hashes its vocabulary with the same function so a
// token's hash, computed once while scanning, serves both tables.
export const FNV_OFFSET = 0x811c9dc5 | 0;
export const FNV_PRIME = 0x01000193;

/** FNV-1a of the code units of `s[start, end)`, as the scanner computes it. */
export function fnv1a(s: string, start: number, end: number): number {
  let h = FNV_OFFSET;
  for (let i = start; i < end; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  return h;
}

const GEN = new Int32Array(SLOTS);
const HASH = new Int32Array(SLOTS);
const LEN = new Int32Array(SLOTS);
const OFF = new Int32Array(SLOTS);
const ID = new Int32Array(SLOTS);
const POOL = new Uint8Array(MAX_ENTRIES * MAX_CACHED_LEN);
let gen = 0;
let entries = 0;
let poolEnd = 0;

/** Empties the cache; call when the meaning of ids changes (a new `score` call). */
export function resetTokenCache(): void {
  if (++gen === 0x7fffffff) {
    GEN.fill(0);
    gen = 1;
  }
  entries = 0;
  poolEnd = 0;
}

/** Id of the token `s[start, end)` whose FNV-1a hash is `h`, via `intern` on a cache miss. */
export function cachedTokenId(s: string, start: number, end: number, h: number, intern: Intern): number {
  const len = end - start;
  if (len > MAX_CACHED_LEN) return intern(s, start, end, h);
  let slot = (h ^ (h >>> 13)) & MASK;
  for (;;) {
    if (GEN[slot] !== gen) break;
    if (HASH[slot] === h && LEN[slot] === len) {
      const off = OFF[slot];
      let j = 0;
      while (j < len && POOL[off + j] === s.charCodeAt(start + j)) j++;
      if (j === len) return ID[slot];
    }
    slot = (slot + 1) & MASK;
  }
  const id = intern(s, start, end, h);
  if (entries === MAX_ENTRIES)
    resetTokenCache(); // only reachable by callers other than score
  else {
    GEN[slot] = gen;
    HASH[slot] = h;
    LEN[slot] = len;
    OFF[slot] = poolEnd;
    ID[slot] = id;
    for (let j = 0; j < len; j++) POOL[poolEnd + j] = s.charCodeAt(start + j);
    poolEnd += len;
    entries++;
  }
  return id;
}
