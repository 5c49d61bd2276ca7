import { describe, expect, it } from "vitest";
import { defaultRng, pairedBootstrapCi } from "../../../src/engines/stats/index.ts";

const meanOf = (values: readonly number[]) => (ix: Uint32Array) => {
  let s = 0;
  for (const i of ix) s += values[i];
  return s / ix.length;
};

/** Every one of the n^n equally likely resamples of n items: the exact bootstrap distribution, sorted. */
function exactBootstrap(n: number, statistic: (ix: Uint32Array) => number): number[] {
  const ix = new Uint32Array(n);
  const out: number[] = [];
  for (let code = 0; code < n ** n; code++) {
    for (let j = 0, c = code; j < n; j++, c = Math.floor(c / n)) ix[j] = c % n;
    out.push(statistic(ix));
  }
  return out.sort((a, b) => a - b);
}

/** Quantile function of an equally weighted discrete distribution: the smallest v with F(v) >= u. */
const quantile = (sorted: number[], u: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(u * sorted.length) - 1))];

/** Hyndman & Fan type 7 (numpy "linear"): h = (N − 1)·u, interpolate between the order statistics at ⌊h⌋ and ⌊h⌋ + 1. */
function type7(values: number[], u: number): number {
  const s = [...values].sort((a, b) => a - b);
  const h = (s.length - 1) * u;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, s.length - 1);
  return s[lo] + (h - lo) * (s[hi] - s[lo]);
}

describe("pairedBootstrapCi", () => {
  it("approaches the percentiles of the exact bootstrap distribution (all 4^4 resamples enumerated)", () => {
    const values = [0, 1, 3, 7];
    const stat = meanOf(values);
    const exact = exactBootstrap(4, stat);
    // With B = 20000 resamples the empirical CDF at any point has standard deviation <= sqrt(u(1−u)/B)
    // <= 0.0031 for u in [0.25, 0.75] (0.0011 at 0.025). An interval end is an empirical u-quantile,
    // so it must lie between the exact quantiles at u ∓ 0.015, i.e. at least 4.8 standard deviations
    // of slack — a bound that holds for any honest seed, not one tuned to seed 0.
    const B = 20000;
    const delta = 0.015;
    for (const c of [0.5, 0.8, 0.9, 0.95]) {
      const tail = (1 - c) / 2;
      const [lo, hi] = pairedBootstrapCi(4, stat, { confidence: c, resamples: B, seed: 7 })!;
      expect(lo, `c = ${c} lower`).toBeGreaterThanOrEqual(quantile(exact, tail - delta));
      expect(lo, `c = ${c} lower`).toBeLessThanOrEqual(quantile(exact, tail + delta));
      expect(hi, `c = ${c} upper`).toBeGreaterThanOrEqual(quantile(exact, 1 - tail - delta));
      expect(hi, `c = ${c} upper`).toBeLessThanOrEqual(quantile(exact, 1 - tail + delta));
    }
  });

  it("resamples the n^n index tuples uniformly, with replacement (n = 3, chi-square over all 27)", () => {
    const counts = new Map<string, number>();
    const B = 27 * 400;
    pairedBootstrapCi(3, (ix) => (counts.set(ix.join(), (counts.get(ix.join()) ?? 0) + 1), 0), {
      confidence: 0.95,
      resamples: B,
      seed: 3,
    });
    expect(counts.size).toBe(27); // repeats such as 0,0,0 occur: sampling is with replacement
    let chi2 = 0;
    for (const k of counts.values()) chi2 += (k - 400) ** 2 / 400;
    // 26 degrees of freedom: mean 26, sd sqrt(52) ≈ 7.2; 26 + 5·7.2 ≈ 62 is a 5-sd bound.
    expect(chi2).toBeLessThan(62);
  });

  it("takes numpy-linear percentiles at (1−c)/2 and 1−(1−c)/2 of the statistics it computed", () => {
    const values = [2.5, -1, 4, 0.25, 9, 3, 3, -7];
    const seen: number[] = [];
    const stat = meanOf(values);
    const ci = pairedBootstrapCi(
      values.length,
      (ix) => {
        const v = stat(ix);
        seen.push(v);
        return v;
      },
      { confidence: 0.9, resamples: 999, seed: 11 },
    )!;
    expect(seen).toHaveLength(999);
    expect(ci[0]).toBeCloseTo(type7(seen, 0.05), 12);
    expect(ci[1]).toBeCloseTo(type7(seen, 0.95), 12);
  });

  it("draws the indices from defaultRng(seed) in order, resample after resample", () => {
    const rng = defaultRng(5);
    const expected = [rng.integers(6, 6), rng.integers(6, 6)];
    const got: number[][] = [];
    pairedBootstrapCi(6, (ix) => (got.push([...ix]), 0), { confidence: 0.95, resamples: 2, seed: 5 });
    expect(got).toEqual(expected);
  });

  it("is deterministic for a seed, defaults to 2000 resamples and seed 0, and depends on the seed", () => {
    const values = Array.from({ length: 40 }, (_, i) => ((i * 37) % 11) / 3);
    const stat = meanOf(values);
    let calls = 0;
    const counted = (ix: Uint32Array) => (calls++, stat(ix));
    const a = pairedBootstrapCi(40, counted, { confidence: 0.95 });
    expect(calls).toBe(2000);
    expect(pairedBootstrapCi(40, stat, { confidence: 0.95, resamples: 2000, seed: 0 })).toEqual(a);
    expect(pairedBootstrapCi(40, stat, { confidence: 0.95, seed: 1 })).not.toEqual(a);
  });

  it("keeps items paired: a constant per-item difference gives a degenerate interval", () => {
    // head = base + 1 on every item, though the items themselves vary widely; each resample's mean
    // difference is (Σ head − Σ base)/n = n/n = 1 exactly (integer sums).
    const base = [0, 10, 3, 50, 7, 21];
    const head = base.map((v) => v + 1);
    const diff = (ix: Uint32Array) => {
      let h = 0;
      let b = 0;
      for (const i of ix) {
        h += head[i];
        b += base[i];
      }
      return (h - b) / ix.length;
    };
    expect(pairedBootstrapCi(base.length, diff, { confidence: 0.95, seed: 2 })).toEqual([1, 1]);
    expect(pairedBootstrapCi(5, () => 0.25, { confidence: 0.99 })).toEqual([0.25, 0.25]);
  });

  it("returns null for fewer than two items or when every resample is undefined", () => {
    let called = false;
    expect(pairedBootstrapCi(1, () => ((called = true), 1), { confidence: 0.95 })).toBeNull();
    expect(pairedBootstrapCi(0, () => ((called = true), 1), { confidence: 0.95 })).toBeNull();
    expect(called).toBe(false);
    expect(pairedBootstrapCi(3, () => Number.NaN, { confidence: 0.95, resamples: 10 })).toBeNull();
  });

  it("leaves undefined (NaN) resamples out of the distribution", () => {
    // Statistic: the value of the first drawn index, undefined when that index is 0.
    const ci = pairedBootstrapCi(3, (ix) => (ix[0] === 0 ? Number.NaN : ix[0]), {
      confidence: 0.5,
      resamples: 300,
      seed: 4,
    })!;
    expect(ci[0]).toBeGreaterThanOrEqual(1);
    expect(ci[1]).toBeLessThanOrEqual(2);
  });

  it("rejects a bad n, confidence or number of resamples", () => {
    const stat = () => 0;
    expect(() => pairedBootstrapCi(2.5, stat, { confidence: 0.95 })).toThrow(RangeError);
    expect(() => pairedBootstrapCi(5, stat, { confidence: 0 })).toThrow(RangeError);
    expect(() => pairedBootstrapCi(5, stat, { confidence: 1 })).toThrow(RangeError);
    expect(() => pairedBootstrapCi(5, stat, { confidence: 0.95, resamples: 0 })).toThrow(RangeError);
    expect(() => pairedBootstrapCi(5, stat, { confidence: 0.95, resamples: 1.5 })).toThrow(RangeError);
    expect(() => pairedBootstrapCi(5, stat, { confidence: 0.95, seed: -1 })).toThrow(RangeError);
  });
});
