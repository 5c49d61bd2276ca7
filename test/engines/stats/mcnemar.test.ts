import { describe, expect, it } from "vitest";
import { mcnemarExact } from "../../../src/engines/stats/index.ts";

/**
 * Independent exact p in integer arithmetic: 2·Σ_{i ≤ min(b,c)} C(b+c, i) / 2^(b+c), capped at 1,
 * with the binomial coefficients as BigInt (no rounding at all until the final scaled division).
 */
function exactP(b: number, c: number): number {
  const m = b + c;
  if (m === 0) return 1;
  const k = Math.min(b, c);
  let coef = 1n;
  let tail = 1n;
  for (let i = 1; i <= k; i++) {
    coef = (coef * BigInt(m - i + 1)) / BigInt(i);
    tail += coef;
  }
  // 2·tail/2^m to ~70 significant bits: shift the numerator so the integer quotient has ~70 bits, then
  // undo the shift with exact powers of two (in steps, so a tiny p is not lost to an early underflow).
  const num = 2n * tail;
  const shift = Math.max(0, m - num.toString(2).length + 70);
  let p = Number((num << BigInt(shift)) / (1n << BigInt(m)));
  for (let rest = shift; rest > 0; rest -= Math.min(rest, 1000)) p *= 2 ** -Math.min(rest, 1000);
  return Math.min(1, p);
}

const relClose = (actual: number, expected: number, rel: number) => {
  expect(Math.abs(actual - expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(rel * expected);
};

describe("mcnemarExact", () => {
  it("reproduces hand-computed tails", () => {
    // 11 vs 0 discordant: 2·(½)^11 = 0.0009765625 (the chain-determinism paper's p = 0.000977), exact in binary.
    expect(mcnemarExact(11, 0)).toBe(0.0009765625);
    expect(mcnemarExact(0, 11)).toBe(0.0009765625);
    // 12 vs 2: m = 14, P(X ≤ 2) = (1 + 14 + 91)/2^14 = 106/16384, doubled 212/16384 = 0.012939453125.
    relClose(mcnemarExact(12, 2), 0.012939453125, 1e-15);
    // 1 vs 4: m = 5, (1 + 5)/32 doubled = 12/32 = 0.375.
    relClose(mcnemarExact(1, 4), 0.375, 1e-15);
    // 0 vs 5: 2/32 = 0.0625.
    relClose(mcnemarExact(0, 5), 0.0625, 1e-15);
  });

  it("matches the published exact conditional McNemar p for Cavo et al. (6 vs 16 discordant)", () => {
    // Fagerland, Lydersen & Laake (2017) ch. 8 / R package contingencytables test-ch8.R: P = 0.052479.
    // By hand: Σ_{i≤6} C(22, i) = 110056, doubled over 2^22 = 0.05247879….
    expect(Math.abs(mcnemarExact(16, 6) - 0.052479)).toBeLessThan(5e-7);
    relClose(mcnemarExact(16, 6), 220112 / 4194304, 1e-14);
  });

  it("is 1 when nothing is discordant or the discordant pairs split evenly", () => {
    expect(mcnemarExact(0, 0)).toBe(1);
    expect(mcnemarExact(3, 3)).toBe(1);
    expect(mcnemarExact(1, 0)).toBe(1); // 2·½ = 1
    // m odd and b + 1 = c: P(X ≤ 500) is exactly ½ by symmetry, so p = 1 up to the arithmetic's rounding.
    expect(mcnemarExact(500, 501)).toBeCloseTo(1, 13);
  });

  it("agrees with exact integer arithmetic on every table with up to 60 discordant pairs", () => {
    for (let m = 1; m <= 60; m++) {
      for (let b = 0; b <= m; b++) relClose(mcnemarExact(b, m - b), exactP(b, m - b), 1e-13);
    }
  });

  it("stays accurate and finite for large counts, where C(m, k) alone would overflow a double", () => {
    // Each case against BigInt arithmetic. The code multiplies ~2k rounded factors, so its relative error
    // is at most ~2k·1.1e-16 (6.6e-12 at k = 30000) and typically far smaller.
    for (const [b, c] of [
      [470, 530],
      [480, 521],
      [4990, 5110],
      [5000, 5100],
      [100, 20000],
      [30000, 30400],
    ]) {
      const p = mcnemarExact(b, c);
      expect(Number.isFinite(p)).toBe(true);
      relClose(p, exactP(b, c), 1e-11);
    }
  });

  it("underflows to 0, not NaN, when the p-value is below the smallest double", () => {
    expect(mcnemarExact(0, 2000)).toBe(0);
    expect(mcnemarExact(3, 5000)).toBe(0);
  });

  it("rejects negative or fractional counts", () => {
    expect(() => mcnemarExact(-1, 2)).toThrow(RangeError);
    expect(() => mcnemarExact(1, 2.5)).toThrow(RangeError);
    expect(() => mcnemarExact(Number.NaN, 2)).toThrow(RangeError);
  });
});
