/**
 * The center statistics of the frozen estimator (spec rpl.md §9.3), with numpy's summation order.
 */
import { pairwiseSum } from "../stats/index.ts";

export type Center = "trimmed" | "mean";

/**
 * Trimmed mean as the original computes it: sort ascending, k = trunc(n·trim) (Python `int()` of the double
 * product, so 15·0.2 = 3.0000000000000004 gives 3); if 2k >= n return the plain mean, else the numpy mean of
 * sorted[k .. n−k−1]. With trim 0.2: n ≤ 4 → plain mean, 5–9 → k=1, 10–14 → k=2, 15–19 → k=3.
 * **Sorts `x` in place** (callers pass scratch buffers; the bootstrap calls this 5,000 times per run).
 * @throws RangeError when trim is not in [0, 0.5) or x is empty.
 */
export function trimmedCenterInPlace(x: Float64Array, trim: number): number {
  const n = x.length;
  if (n === 0) throw new RangeError("trimmedCenter: x must not be empty");
  if (!(trim >= 0 && trim < 0.5)) throw new RangeError(`trimmedCenter: trim must be in [0, 0.5), got ${trim}`);
  // Insertion sort: n is the template count (≤ 16 in practice), where it beats TypedArray#sort.
  for (let i = 1; i < n; i++) {
    const v = x[i];
    let j = i - 1;
    while (j >= 0 && x[j] > v) {
      x[j + 1] = x[j];
      j--;
    }
    x[j + 1] = v;
  }
  const k = Math.trunc(n * trim);
  if (2 * k >= n) return pairwiseSum(x, 0, n) / n;
  return pairwiseSum(x, k, n - 2 * k) / (n - 2 * k);
}

/** Center of a copy of `x` ("trimmed" with `trim`, or the plain numpy mean). */
export function center(x: ArrayLike<number>, kind: Center, trim: number): number {
  const buf = Float64Array.from(x);
  if (kind === "mean") {
    if (buf.length === 0) throw new RangeError("center: x must not be empty");
    return pairwiseSum(buf, 0, buf.length) / buf.length;
  }
  return trimmedCenterInPlace(buf, trim);
}
