/**
 * Wilson score interval for a binomial proportion k/n (spec chain-determinism.md §6):
 *
 *   p = k/n, z2 = z·z, denom = 1 + z2/n,
 *   center = (p + z2/(2n)) / denom,
 *   half   = z · sqrt(p(1−p)/n + z2/(4n²)) / denom,
 *   [max(0, center − half), min(1, center + half)].
 *
 * The operations run in exactly this order so the doubles match the reference bit for bit
 * (`4*n*n` equals Python's `4*n**2` because both are exact for any realistic integer n).
 * Units: proportions in [0, 1]. z defaults to 1.96 (the harness's fixed value, not 1.959964).
 * Edge cases: n = 0 → `[null, null]` (no evidence); k = 0 or k = n give a one-sided interval.
 * @throws RangeError when k or n is not a non-negative integer, k > n, or z is not a finite number >= 0 (z = 0 gives the point estimate twice).
 */
export function wilson(k: number, n: number, z = 1.96): [number, number] | [null, null] {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`wilson: n must be a non-negative integer, got ${n}`);
  if (!Number.isInteger(k) || k < 0 || k > n)
    throw new RangeError(`wilson: k must be an integer in [0, n], got ${k} (n = ${n})`);
  if (!(Number.isFinite(z) && z >= 0)) throw new RangeError(`wilson: z must be a finite number >= 0, got ${z}`);
  if (n === 0) return [null, null];
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return [Math.max(0, center - half), Math.min(1, center + half)];
}
