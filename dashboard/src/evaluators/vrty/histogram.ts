// The distribution of a batch's composites: equal-width bins over [0, 1], the summary numbers, and the
// lowest-scoring pairs. Pure, so test/node/dashboard/vrty.test.ts checks it by hand.

export type Bin = { lo: number; hi: number; count: number; label: string };

/**
 * `bins` equal-width bins over [lo, hi]: each is [start, end), the last also holds `hi`. A value's bin is
 * floor((v − lo) · bins / (hi − lo)): multiplying before dividing keeps 0.3 in [0.3, 0.4) (0.3 / 0.1 is
 * 2.9999999999999996 in floating point). Values outside [lo, hi] are clamped into the end bins.
 */
export function histogram(values: readonly number[], bins = 10, lo = 0, hi = 1): Bin[] {
  const digits = decimalsFor((hi - lo) / bins);
  const out: Bin[] = Array.from({ length: bins }, (_, i) => {
    const start = lo + ((hi - lo) * i) / bins;
    const end = lo + ((hi - lo) * (i + 1)) / bins;
    return { lo: start, hi: end, count: 0, label: `${start.toFixed(digits)}–${end.toFixed(digits)}` };
  });
  for (const v of values) out[binOf(v, bins, lo, hi)].count++;
  return out;
}

export function binOf(v: number, bins = 10, lo = 0, hi = 1): number {
  return Math.min(bins - 1, Math.max(0, Math.floor(((v - lo) * bins) / (hi - lo))));
}

function decimalsFor(width: number): number {
  for (let d = 0; d < 6; d++) if (Math.abs(Math.round(width * 10 ** d) - width * 10 ** d) < 1e-9) return d;
  return 6;
}

export type Summary = { count: number; mean: number; min: number; max: number };

/** Count, mean, min and max; null for no values. */
export function summarise(values: readonly number[]): Summary | null {
  if (values.length === 0) return null;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return { count: values.length, mean: sum / values.length, min, max };
}

/** The `n` entries with the lowest `score`, lowest first; ties keep their input order. */
export function lowest<T>(entries: readonly T[], score: (e: T) => number, n = 10): T[] {
  return entries
    .map((e, i) => ({ e, i, s: score(e) }))
    .sort((a, b) => a.s - b.s || a.i - b.i)
    .slice(0, n)
    .map((x) => x.e);
}
