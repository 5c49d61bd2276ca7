// Python counts, slices and orders strings by code point; JavaScript by UTF-16 unit. These three helpers are
// the one place the engines cross that gap (judge verdict cuts, chain-determinism record texts and key
// order, reasoning-quality lengths and sorts, rpl prompt lengths).

/**
 * Python `s[:n]` for `n >= 0`: the first `n` code points of `s` (a JS slice would count UTF-16 units and
 * could cut a surrogate pair in half).
 */
export function headCodePoints(s: string, n: number): string {
  // No string of at most n units has more than n code points.
  if (s.length <= n) return s;
  let out = "";
  let k = 0;
  for (const ch of s) {
    if (k++ === n) break;
    out += ch;
  }
  return out;
}

/** Python `len(s)`: code points (a surrogate pair counts once, a lone surrogate once). */
export function lenCodePoints(s: string): number {
  let k = 0;
  for (const _ of s) k++;
  return k;
}

const isHigh = (u: number) => u >= 0xd800 && u <= 0xdbff;
const isLow = (u: number) => u >= 0xdc00 && u <= 0xdfff;

/**
 * Python's `str` order (`sorted()`, `<`): code point by code point, a string before any longer string it
 * begins. A comparator: negative, zero or positive. JS's `<` compares UTF-16 units, which puts U+10000 and
 * above (surrogate pairs D800–DFFF) before U+E000–U+FFFF.
 *
 * Lone surrogates (JSON `"\ud800"` decodes to one in Python too) are code points of their own, between
 * U+D7FF and U+E000. The common prefix of UTF-16 units is skipped without decoding; only the code point
 * where the strings first differ is read.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  // One is a prefix of the other in units. If the shorter ends in a high surrogate the longer pairs, the
  // longer's code point there is a pair (>= U+10000) against a lone high surrogate: shorter first still.
  if (i === n) return a.length - b.length;
  const x = a.charCodeAt(i);
  const y = b.charCodeAt(i);
  // Neither unit is a surrogate half nor starts a pair: they are the code points that differ.
  if (x < 0xd800 && y < 0xd800) return x - y;
  if (i > 0 && isHigh(a.charCodeAt(i - 1))) {
    // The code point at i-1 is the shared high surrogate, paired or lone depending on what follows.
    const xl = isLow(x);
    const yl = isLow(y);
    if (xl && yl) return x - y; // two pairs with the same high half
    if (xl) return 1; // a: a pair (>= U+10000); b: the lone high surrogate
    if (yl) return -1;
  }
  return a.codePointAt(i)! - b.codePointAt(i)!;
}
