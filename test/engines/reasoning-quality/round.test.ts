// round(x, 4) parity (spec §1.5): the `round4` line of aggregation_vectors.jsonl, plus properties against an
// independent reference built from the exact decimal expansion that Number#toFixed(100) gives.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pyRound, round4 } from "../../../src/engines/reasoning-quality/index.ts";
import { vectors } from "./support.ts";

const line = vectors("aggregation_vectors.jsonl").find((v) => v.kind === "round4");
const cases: { x: number; x_repr: string; rounded: number }[] = line.cases;

/**
 * Reference round-half-even at 4 decimals from the exact decimal expansion: toFixed(100) is exact for
 * |x| < 1e21 whose binary expansion ends within 100 fractional digits (true for every double ≥ 2^-48 here).
 */
function referenceRound4(x: number): number {
  const [intPart, frac] = Math.abs(x).toFixed(100).split(".");
  const kept = BigInt(intPart + frac.slice(0, 4));
  const rest = frac.slice(4);
  const half = "5".padEnd(rest.length, "0");
  let q = kept;
  if (rest > half || (rest === half && kept % 2n === 1n)) q += 1n;
  const v = Number(`${q}e-4`);
  return x < 0 || Object.is(x, -0) ? -v : v;
}

describe("round4", () => {
  it("has the reference line with 20 cases", () => expect(line?.cases.length).toBe(20));

  it.each(cases.map((c) => [c.x_repr, c] as const))("round(%s, 4)", (_n, c) => {
    expect(Number(c.x_repr)).toBe(c.x);
    expect(round4(c.x)).toBe(c.rounded);
  });

  it("is not Math.round(x * 1e4) / 1e4 on exact binary ties", () => {
    expect(round4(0.03125)).toBe(0.0312);
    expect(Math.round(0.03125 * 1e4) / 1e4).toBe(0.0313);
  });

  it("keeps Python's signs and specials", () => {
    expect(Object.is(round4(-0.00001), -0)).toBe(true);
    expect(Object.is(round4(-0), -0)).toBe(true);
    expect(round4(Infinity)).toBe(Infinity);
    expect(Number.isNaN(round4(NaN))).toBe(true);
    expect(round4(2 ** 60 + 2048)).toBe(2 ** 60 + 2048);
    expect(() => pyRound(1, 5)).toThrow(RangeError);
  });

  it("matches the exact-expansion reference on doubles in [-2, 2]", () => {
    fc.assert(
      fc.property(fc.double({ min: -2, max: 2, noNaN: true }), (x) => {
        if (x !== 0 && Math.abs(x) < 2 ** -48) return; // outside the reference's exactness range
        expect(round4(x)).toBe(referenceRound4(x));
      }),
      { numRuns: 5000 },
    );
  });

  it("rounds every exact tie (odd multiples of 1/32) half to even", () => {
    // x·10^4 = k + 1/2 exactly  ⇔  x = m/32 with m odd.
    fc.assert(
      fc.property(fc.integer({ min: -100000, max: 100000 }), (j) => {
        const x = (2 * j + 1) / 32;
        expect(round4(x)).toBe(referenceRound4(x));
      }),
      { numRuns: 2000 },
    );
  });

  it("agrees with pyRound(x, n) for smaller n on the same reference idea", () => {
    expect(pyRound(2.5, 0)).toBe(2);
    expect(pyRound(3.5, 0)).toBe(4);
    expect(pyRound(0.125, 2)).toBe(0.12);
    expect(pyRound(0.375, 2)).toBe(0.38);
  });
});
