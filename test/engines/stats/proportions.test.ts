import { describe, expect, it } from "vitest";
import { newcombeDifference, newcombePairedDifference } from "../../../src/engines/stats/index.ts";

// Published values are printed to 4 decimals, so a correct result is within 5e-5 of them.
const PRINTED = 5e-5 + 1e-12;
const near = (actual: [number, number], expected: [number, number], tol = PRINTED) => {
  expect(Math.abs(actual[0] - expected[0]), `lower ${actual[0]} vs ${expected[0]}`).toBeLessThanOrEqual(tol);
  expect(Math.abs(actual[1] - expected[1]), `upper ${actual[1]} vs ${expected[1]}`).toBeLessThanOrEqual(tol);
};

// z to 30 digits for the confidence levels used below (high-precision normal table).
// biome-ignore-start lint/correctness/noPrecisionLoss: the table's digits as published; each parses to the nearest double.
const Z: Record<number, number> = {
  0.9: 1.644853626951472714863848907991632,
  0.95: 1.95996398454005423552459443052055152795555,
  0.99: 2.575829303548900751628729986520657077331543,
};
// biome-ignore-end lint/correctness/noPrecisionLoss: the table's digits

/**
 * Independent Wilson limits straight from their definition — the p with |k/n − p| = z·sqrt(p(1−p)/n) —
 * found by bisection (no closed form shared with the code under test); 200 halvings reach the double
 * resolution of [0, 1].
 */
function wilsonByBisection(k: number, n: number, z: number): [number, number] {
  const phat = k / n;
  const outside = (p: number) => (phat - p) ** 2 - (z * z * p * (1 - p)) / n; // > 0 outside the interval
  const root = (lo: number, hi: number, loOutside: boolean) => {
    for (let i = 0; i < 200; i++) {
      const mid = (lo + hi) / 2;
      if (outside(mid) > 0 === loOutside) lo = mid;
      else hi = mid;
    }
    return (lo + hi) / 2;
  };
  const lower = k === 0 ? 0 : root(0, phat, true);
  const upper = k === n ? 1 : root(phat, 1, false);
  return [lower, upper];
}

/** Newcombe's square-and-add from independently computed Wilson limits (reference for head − base). */
function squareAndAdd(kb: number, nb: number, kh: number, nh: number, z: number): [number, number] {
  const pb = kb / nb;
  const ph = kh / nh;
  const [lb, ub] = wilsonByBisection(kb, nb, z);
  const [lh, uh] = wilsonByBisection(kh, nh, z);
  const d = ph - pb;
  return [d - Math.sqrt((ph - lh) ** 2 + (ub - pb) ** 2), d + Math.sqrt((uh - ph) ** 2 + (pb - lb) ** 2)];
}

describe("newcombeDifference (Newcombe 1998a, method 10)", () => {
  // Newcombe (1998a) Table II, method 10 ("score, no CC"), as reproduced by Lu & Yang, WUSS 2016 paper 127
  // "Constructing confidence intervals for the differences of binomial proportions in SAS" and pinned in
  // DescTools' test suite (tests/misc.R, BinomDiffCI method = "score"). The paper's difference is
  // first − second; ours is head − base, so the first sample is the head.
  it.each([
    { head: [56, 70], base: [48, 80], ci: [0.0524, 0.3339] },
    { head: [9, 10], base: [3, 10], ci: [0.1705, 0.809] },
    { head: [10, 10], base: [0, 20], ci: [0.6791, 1] },
    { head: [84, 101], base: [89, 105], ci: [-0.1177, 0.0851] },
  ] as const)("$head.0/$head.1 vs $base.0/$base.1 gives the published 95% interval $ci", ({ head, base, ci }) => {
    near(newcombeDifference(base[0], base[1], head[0], head[1], 0.95), [ci[0], ci[1]]);
  });

  // Table II's other examples (6/7 − 2/7, 5/56 − 0/29, 0/10 − 0/20, 0/10 − 0/10, 10/10 − 0/10), plus
  // other sizes and confidence levels, against Wilson limits found by bisection from their definition.
  it.each([
    [2, 7, 6, 7, 0.95],
    [0, 29, 5, 56, 0.95],
    [0, 20, 0, 10, 0.95],
    [0, 10, 0, 10, 0.95],
    [0, 10, 10, 10, 0.95],
    [17, 40, 9, 33, 0.9],
    [150, 1000, 181, 1000, 0.99],
    [1, 3, 2, 2, 0.9],
  ])("%i/%i → %i/%i at %s agrees with an independent square-and-add", (kb, nb, kh, nh, c) => {
    near(newcombeDifference(kb, nb, kh, nh, c), squareAndAdd(kb, nb, kh, nh, Z[c]), 1e-12);
  });

  it("is oriented head − base: swapping the runs mirrors the interval", () => {
    const [lo, hi] = newcombeDifference(48, 80, 56, 70, 0.95);
    const [lo2, hi2] = newcombeDifference(56, 70, 48, 80, 0.95);
    expect(lo2).toBeCloseTo(-hi, 15);
    expect(hi2).toBeCloseTo(-lo, 15);
    expect(lo).toBeGreaterThan(0); // 0.8 vs 0.6: head is higher
  });

  it("contains the point estimate, stays in [−1, 1] and widens with the confidence", () => {
    for (const [kb, nb, kh, nh] of [
      [0, 5, 5, 5],
      [3, 9, 4, 11],
      [20, 20, 0, 20],
      [1, 1, 0, 1],
    ]) {
      const d = kh / nh - kb / nb;
      const [lo90, hi90] = newcombeDifference(kb, nb, kh, nh, 0.9);
      const [lo99, hi99] = newcombeDifference(kb, nb, kh, nh, 0.99);
      expect(lo99).toBeGreaterThanOrEqual(-1);
      expect(hi99).toBeLessThanOrEqual(1);
      expect(lo99).toBeLessThanOrEqual(lo90);
      expect(lo90).toBeLessThanOrEqual(d);
      expect(d).toBeLessThanOrEqual(hi90);
      expect(hi90).toBeLessThanOrEqual(hi99);
    }
  });

  it("rejects empty samples, impossible counts and confidences outside (0, 1)", () => {
    expect(() => newcombeDifference(0, 0, 1, 2, 0.95)).toThrow(RangeError);
    expect(() => newcombeDifference(1, 2, 0, 0, 0.95)).toThrow(RangeError);
    expect(() => newcombeDifference(3, 2, 1, 2, 0.95)).toThrow(RangeError);
    expect(() => newcombeDifference(-1, 2, 1, 2, 0.95)).toThrow(RangeError);
    expect(() => newcombeDifference(0.5, 2, 1, 2, 0.95)).toThrow(RangeError);
    expect(() => newcombeDifference(1, 2, 1, 2, 1)).toThrow(RangeError);
  });
});

describe("newcombePairedDifference (Newcombe 1998b, method 10)", () => {
  // Newcombe (1998b) Table III, method 10, rows (a, b, c, d) → interval for θ = (b − c)/n, as transcribed
  // from the paper into a public check script (docs/decision/newcombe_check.py of a GitHub project, found
  // with the code search); the paper's a = both, b = first only, c = second only, d = neither, and its
  // first member is our head.
  it.each([
    [36, 12, 2, 0, 0.0569, 0.3404],
    [20, 12, 2, 16, 0.0562, 0.3292],
    [18, 12, 2, 18, 0.0562, 0.329],
    [36, 14, 0, 0, 0.1528, 0.4167],
    [35, 14, 0, 1, 0.1461, 0.4175],
    [18, 14, 0, 18, 0.1441, 0.3963],
    [2, 97, 1, 0, 0.8721, 0.9854],
  ])("a=%i b=%i c=%i d=%i → published 95 percent interval [%s, %s]", (a, b, c, d, lo, hi) => {
    near(newcombePairedDifference({ both: a, headOnly: b, baseOnly: c, neither: d }, 0.95), [lo, hi]);
  });

  // Fagerland, Lydersen & Laake, "Statistical Analysis of Contingency Tables" (2017), ch. 8, as pinned in
  // the authors' R package contingencytables (tests/testthat/test-ch8.R, Newcombe_square_and_add_CI_paired_2x2):
  // Cavo et al. (2012) complete response before/after consolidation, rows (59, 6 | 16, 80), and the
  // 2×2 identity. The identity case has ad − bc = 1 <= n/2, so the corrected φ̂ is 0; the uncorrected
  // φ̂ = 1 would collapse the interval to the single point 0 — this row pins the continuity correction.
  it("matches Fagerland et al.'s worked examples, including the continuity-corrected φ̂", () => {
    near(newcombePairedDifference({ both: 59, headOnly: 6, baseOnly: 16, neither: 80 }, 0.95), [-0.1186, -0.0046]);
    near(newcombePairedDifference({ both: 1, headOnly: 0, baseOnly: 0, neither: 1 }, 0.95), [-0.5734, 0.5734]);
  });

  it("equals the independent interval of the two margins when the corrected φ̂ is 0", () => {
    // a=4, b=2, c=2, d=1: ad − bc = 0 → φ̂ = 0, and the square-and-add of the margins' Wilson limits remains.
    // Margins: head (a+b)/n = 6/9, base (a+c)/n = 6/9.
    near(
      newcombePairedDifference({ both: 4, headOnly: 2, baseOnly: 2, neither: 1 }, 0.95),
      squareAndAdd(6, 9, 6, 9, Z[0.95]),
      1e-12,
    );
    // A margin of 0 (no item is 0 in head: c + d = 0) also sets φ̂ = 0.
    near(
      newcombePairedDifference({ both: 5, headOnly: 3, baseOnly: 0, neither: 0 }, 0.9),
      squareAndAdd(5, 8, 8, 8, Z[0.9]),
      1e-12,
    );
  });

  it("is narrower than the independent interval when the runs agree item by item", () => {
    // Strong positive association (ad − bc = 1584 ≫ n/2) shrinks both sides.
    const t = { both: 40, headOnly: 8, baseOnly: 2, neither: 40 };
    const [plo, phi] = newcombePairedDifference(t, 0.95);
    const [ilo, ihi] = squareAndAdd(42, 90, 48, 90, Z[0.95]);
    expect(plo).toBeGreaterThan(ilo);
    expect(phi).toBeLessThan(ihi);
  });

  it("is oriented head − base: swapping the runs mirrors the interval", () => {
    const [lo, hi] = newcombePairedDifference({ both: 20, headOnly: 12, baseOnly: 2, neither: 16 }, 0.95);
    const [lo2, hi2] = newcombePairedDifference({ both: 20, headOnly: 2, baseOnly: 12, neither: 16 }, 0.95);
    expect(lo2).toBeCloseTo(-hi, 15);
    expect(hi2).toBeCloseTo(-lo, 15);
  });

  it("rejects an empty table, bad counts and confidences outside (0, 1)", () => {
    expect(() => newcombePairedDifference({ both: 0, headOnly: 0, baseOnly: 0, neither: 0 }, 0.95)).toThrow(RangeError);
    expect(() => newcombePairedDifference({ both: -1, headOnly: 2, baseOnly: 0, neither: 0 }, 0.95)).toThrow(
      RangeError,
    );
    expect(() => newcombePairedDifference({ both: 1.5, headOnly: 2, baseOnly: 0, neither: 0 }, 0.95)).toThrow(
      RangeError,
    );
    expect(() => newcombePairedDifference({ both: 1, headOnly: 2, baseOnly: 0, neither: 0 }, 0)).toThrow(RangeError);
  });
});
