/**
 * numpy `percentile(a, q)` with the default "linear" method (spec rpl.md §9): v = (n−1)·(q/100),
 * i = floor(v), g = v − i, a0 = s[i], a1 = s[min(i+1, n−1)], d = a1 − a0; the result is a1 − d·(1−g)
 * when g ≥ 0.5, else a0 + d·g (numpy's `_lerp` switches formula at 0.5, and following it keeps the
 * result bit-identical).
 */

/**
 * Linear percentile of an array that is already sorted ascending (no copy; the hot path of the bootstrap).
 * q is in percent, 0..100.
 * @throws RangeError when the array is empty or q is outside [0, 100].
 */
export function percentileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) throw new RangeError("percentileSorted: array must not be empty");
  if (!(q >= 0 && q <= 100)) throw new RangeError(`percentileSorted: q must be in [0, 100], got ${q}`);
  const v = (n - 1) * (q / 100);
  const i = Math.floor(v);
  const g = v - i;
  const a0 = sorted[i];
  const a1 = sorted[Math.min(i + 1, n - 1)];
  const d = a1 - a0;
  return g >= 0.5 ? a1 - d * (1 - g) : a0 + d * g;
}

/**
 * `np.percentile(values, q)` (linear): sorts a copy ascending, then {@link percentileSorted}.
 * NaNs are not expected (numpy would return NaN); the RPL inputs never contain them.
 * @throws RangeError when values is empty or q is outside [0, 100].
 */
export function percentile(values: ArrayLike<number>, q: number): number {
  const sorted = Float64Array.from(values).sort();
  return percentileSorted(sorted, q);
}
