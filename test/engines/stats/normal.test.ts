// biome-ignore-all lint/correctness/noPrecisionLoss: reference quantiles keep the digits they are published with; each
// parses to the nearest double, which is what the assertions compare against.
import { describe, expect, it } from "vitest";
import { normalQuantile, zFor } from "../../../src/engines/stats/index.ts";

// Reference quantiles to 20+ digits (the standard normal table at high precision, e.g. Abramowitz &
// Stegun 26.2 / Wolfram `InverseCDF[NormalDistribution[], p]`). The argument p is itself a double
// nearest the decimal (|Δp| ≤ 1.2e-16 near 1), which moves the exact quantile by up to Δp/φ(x); with
// AS241's ~1e-16 relative error, 1e-15 relative (≈ 4 ulps at 1.96) is the honest tolerance.
const CENTRAL: [number, number][] = [
  [0.975, 1.95996398454005423552459443052055152795555],
  [0.995, 2.575829303548900751628729986520657077331543],
  [0.9, 1.281551565544600466965103046],
  [0.999, 3.09023230616781354154039983],
  [0.75, 0.6744897501960817432022270145],
];

const close = (actual: number, expected: number, rel: number) => {
  expect(Math.abs(actual - expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(rel * Math.abs(expected));
};

/**
 * Independent Φ for |x| <= 4: Φ(x) = (1 + erf(x/√2))/2 with erf's Maclaurin series
 * erf(t) = 2/√π Σ (−1)^k t^(2k+1) / (k!(2k+1)). For t <= 2.83 the largest term is about e^{t²} < 3000,
 * so cancellation costs < 4 digits: |error| < 1e-12 — far below the round-trip tolerance used here.
 */
function phiBySeries(x: number): number {
  const t = x / Math.SQRT2;
  let term = t; // (−1)^k t^(2k+1)/k!
  let sum = t;
  for (let k = 1; k < 200; k++) {
    term *= (-t * t) / k;
    const add = term / (2 * k + 1);
    sum += add;
    if (Math.abs(add) < 1e-18) break;
  }
  return 0.5 * (1 + (2 / Math.sqrt(Math.PI)) * sum);
}

/**
 * Independent lower tail for x >= 6 from Laplace's continued fraction for Mills' ratio:
 * Φ(−x) = φ(x) / (x + 1/(x + 2/(x + 3/(x + …)))), evaluated bottom-up from depth 300. The fraction
 * converges geometrically for x this large; 300 levels leave a truncation error far below 1e-15.
 */
function lowerTailContinuedFraction(x: number): number {
  const pdf = Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
  let tail = x;
  for (let k = 300; k >= 1; k--) tail = x + k / tail;
  return pdf / tail;
}

describe("normalQuantile (AS241)", () => {
  it.each(CENTRAL)("Φ⁻¹(%s) matches the high-precision table value", (p, x) => {
    close(normalQuantile(p), x, 1e-15);
  });

  it("is 0 at p = ½ and antisymmetric: Φ⁻¹(1 − p) = −Φ⁻¹(p)", () => {
    expect(normalQuantile(0.5)).toBe(0);
    // p and 1 − p are both exact doubles for these p (dyadic or computed exactly by Sterbenz's lemma above ½).
    for (const p of [0.5 - 2 ** -20, 0.3, 0.1, 0.025, 0.001, 1e-6]) {
      const q = 1 - p;
      close(normalQuantile(q), -normalQuantile(1 - q), 1e-15);
    }
  });

  it("covers all three AS241 regions continuously and monotonically", () => {
    // Regions switch at |p − ½| = 0.425 and at r = sqrt(−ln p) = 5 (p ≈ 1.39e-11).
    const ps = [
      1e-15,
      1.388e-11,
      1.389e-11,
      1e-6,
      0.0749,
      0.075,
      0.0751,
      0.2,
      0.5,
      0.8,
      0.9249,
      0.925,
      0.9251,
      1 - 1e-9,
    ];
    const xs = ps.map(normalQuantile);
    for (let i = 1; i < xs.length; i++) expect(xs[i]).toBeGreaterThan(xs[i - 1]);
  });

  it("round-trips through an independent Φ (erf series) across the central and near tails", () => {
    for (let i = 1; i < 100; i++) {
      const p = i / 100;
      const x = normalQuantile(p);
      // dΦ/dx = φ(x) >= 0.026 here, so a Φ error of 1e-12 is an x error below 4e-11.
      expect(Math.abs(phiBySeries(x) - p), `p = ${p}`).toBeLessThan(1e-12);
    }
  });

  it("gets the extreme tails right (published Φ⁻¹(1e-10) and Laplace's continued fraction beyond)", () => {
    close(normalQuantile(1e-10), -6.361340902404056, 1e-14);
    for (const p of [1e-20, 1e-50, 1e-100, 1e-300]) {
      const x = normalQuantile(p);
      // Φ(−x) ∝ exp(−x²/2) turns a relative error ε of x into about x²·ε of p: one ulp of x is
      // ~1.5e-13 of p at x = 37, so 1e-12 still pins x to a few ulps.
      close(lowerTailContinuedFraction(-x), p, 1e-12);
    }
  });

  it("returns ∓Infinity at p = 0 and p = 1, and rejects p outside [0, 1]", () => {
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
    for (const p of [-0.1, 1.1, Number.NaN]) expect(() => normalQuantile(p)).toThrow(RangeError);
  });
});

describe("zFor", () => {
  it("is the two-sided critical value Φ⁻¹(1 − (1 − c)/2)", () => {
    close(zFor(0.95), 1.95996398454005423552459443052055152795555, 1e-15);
    close(zFor(0.99), 2.575829303548900751628729986520657077331543, 1e-15);
    close(zFor(0.8), 1.281551565544600466965103046, 1e-15);
    close(zFor(0.9), 1.644853626951472714863848907991632, 1e-15);
  });

  it("rejects confidence levels outside (0, 1)", () => {
    for (const c of [0, 1, -0.5, 1.5, Number.NaN]) expect(() => zFor(c)).toThrow(RangeError);
  });
});
