/**
 * Exact (binomial) McNemar test on the discordant pairs of a paired comparison: under "no change" each
 * discordant item is equally likely to have gone either way, so with m = b + c discordant pairs
 * X ~ Binomial(m, ½) and the two-sided p is min(1, 2·P(X ≤ min(b, c))) — the doubled-tail rule of
 * McNemar's exact test (e.g. Fagerland, Lydersen & Laake 2013, BMC Med Res Methodol 13:91).
 */

// Rescaling step for the running binomial coefficient: C(m, k) overflows a double from m ≈ 1030, so the
// product is kept below 2^600 and the powers of two are carried separately (exact bookkeeping).
const SCALE_BITS = 600;
const SCALE = 2 ** SCALE_BITS;
const UNSCALE = 2 ** -SCALE_BITS;

/** v · 2^e without overflow or premature underflow (v >= 1, e <= 0 here): steps of 2^-1000 are exact. */
function timesPowerOfTwo(v: number, e: number): number {
  let x = v;
  let rest = e;
  while (rest < -1000) {
    x *= 2 ** -1000;
    rest += 1000;
  }
  return x * 2 ** rest;
}

/**
 * Two-sided exact McNemar p-value for `baseOnly` = b and `headOnly` = c discordant pairs; b + c = 0 → 1.
 * Accurate to about 1e-13 relative for any m (every step is a multiplication or division of doubles, with
 * no logarithms); a p below the smallest double underflows to 0.
 * @throws RangeError when a count is not a non-negative integer.
 */
export function mcnemarExact(baseOnly: number, headOnly: number): number {
  for (const [name, v] of [
    ["baseOnly", baseOnly],
    ["headOnly", headOnly],
  ] as const) {
    if (!Number.isInteger(v) || v < 0)
      throw new RangeError(`mcnemarExact: ${name} must be a non-negative integer, got ${v}`);
  }
  const m = baseOnly + headOnly;
  if (m === 0) return 1;
  const k = Math.min(baseOnly, headOnly);
  // S = Σ_{i=0..k} C(m, i) / C(m, k), from the largest term down; C(m,i−1)/C(m,i) = i/(m−i+1) <= 1 for k <= m/2.
  let term = 1;
  let s = 1;
  for (let i = k; i >= 1; i--) {
    term *= i / (m - i + 1);
    s += term;
    if (term < s * 1e-17) break; // the remaining terms are smaller still and cannot change s
  }
  // P(X = k) = C(m, k) · 2^−m, with C(m, k) built as Π (m−k+j)/j and rescaled by 2^600 as it grows.
  let comb = 1;
  let exponent = -m;
  for (let j = 1; j <= k; j++) {
    comb = (comb * (m - k + j)) / j;
    if (comb > SCALE) {
      comb *= UNSCALE;
      exponent += SCALE_BITS;
    }
  }
  return Math.min(1, 2 * timesPowerOfTwo(comb * s, exponent));
}
