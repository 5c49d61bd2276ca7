/**
 * numpy's pairwise summation for contiguous float64 (spec rpl.md §9 "numpy arithmetic details"), and
 * `np.mean` built on it. Bit-exact sums matter because the RPL trimmed windows (9–10 values) and inner
 * groups of more than 8 samples would otherwise round differently from the reference.
 */

/**
 * `sum(a[start .. start+n-1])` in numpy's order:
 * - n < 8: start at −0.0 and add left to right (numpy 2 starts at −0.0 so an all-(−0.0) sum stays −0.0);
 * - 8 ≤ n ≤ 128: eight running accumulators r[j] seeded with a[0..7], each later full block of 8 adds
 *   a[i+j] into r[j]; combine ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), then add the n mod 8 tail in order;
 * - n > 128: split at n2 = floor(n/2) rounded down to a multiple of 8 and recurse on both halves.
 * Edge cases: n = 0 gives −0.0; NaN/±Infinity propagate as in IEEE addition.
 */
export function pairwiseSum(a: ArrayLike<number>, start = 0, n = a.length - start): number {
  if (n < 8) {
    let res = -0.0;
    for (let i = start; i < start + n; i++) res += a[i];
    return res;
  }
  if (n <= 128) {
    let r0 = a[start],
      r1 = a[start + 1],
      r2 = a[start + 2],
      r3 = a[start + 3];
    let r4 = a[start + 4],
      r5 = a[start + 5],
      r6 = a[start + 6],
      r7 = a[start + 7];
    const full = start + (n - (n % 8));
    let i = start + 8;
    for (; i < full; i += 8) {
      r0 += a[i];
      r1 += a[i + 1];
      r2 += a[i + 2];
      r3 += a[i + 3];
      r4 += a[i + 4];
      r5 += a[i + 5];
      r6 += a[i + 6];
      r7 += a[i + 7];
    }
    let res = r0 + r1 + (r2 + r3) + (r4 + r5 + (r6 + r7));
    for (; i < start + n; i++) res += a[i];
    return res;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return pairwiseSum(a, start, n2) + pairwiseSum(a, start + n2, n - n2);
}

/**
 * `np.mean(a[start .. start+n-1])` for float64: the pairwise sum divided by n.
 * Edge case: n = 0 gives NaN (numpy warns "Mean of empty slice" and returns nan).
 */
export function npMean(a: ArrayLike<number>, start = 0, n = a.length - start): number {
  return pairwiseSum(a, start, n) / n;
}
