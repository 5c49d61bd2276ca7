// The difference of two independent estimates from their own intervals (MOVER).
/**
 * CI of θ_head − θ_base from each estimate's own interval, by the MOVER ("method of variance estimates
 * recovery", Zou & Donner 2008, Statistics in Medicine 27:1693–1702; Newcombe's method 10 is the same
 * construction with Wilson limits): with estimates b, h and intervals [lb, ub], [lh, uh] at the wanted
 * confidence,
 *   L = (h − b) − sqrt((h − lh)² + (ub − b)²),   U = (h − b) + sqrt((uh − h)² + (b − lb)²).
 * Each side keeps the skew of the two intervals it is built from (a prior near 0 or 1 has a lopsided
 * interval in probability space), and for symmetric normal intervals it is the usual
 * d ± z·sqrt(se_b² + se_h²). The estimates must be independent.
 * @throws RangeError when an estimate lies outside its interval.
 */
export function moverDifference(
  base: number,
  baseCi: readonly [number, number],
  head: number,
  headCi: readonly [number, number],
): [number, number] {
  for (const [name, x, [lo, hi]] of [
    ["base", base, baseCi],
    ["head", head, headCi],
  ] as const) {
    if (!(lo <= x && x <= hi))
      throw new RangeError(`moverDifference: the ${name} estimate ${x} is outside its interval [${lo}, ${hi}]`);
  }
  const d = head - base;
  return [d - Math.hypot(head - headCi[0], baseCi[1] - base), d + Math.hypot(headCi[1] - head, base - baseCi[0])];
}
