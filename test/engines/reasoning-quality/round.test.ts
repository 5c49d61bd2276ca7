// round(x, 4) parity (spec §1.5): every case of every `kind: "round4"` line of aggregation_vectors.jsonl (the
// rounded value compared losslessly and exactly), plus properties against an independent reference built from
// the exact decimal expansion that Number#toFixed(100) gives.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { pyRound, round4 } from "../../../src/engines/reasoning-quality/index.ts";
import { itEachCase } from "../../support/reference.ts";
import { describeRq, expectPy, vectorLines } from "./support.ts";

/** Python float repr → number ("inf", "-inf" and "nan" are Python's spellings). */
const fromPyRepr = (r: string): number => ({ inf: Infinity, "-inf": -Infinity, nan: NaN })[r] ?? Number(r);

describeRq("round4 lines of aggregation_vectors.jsonl", ["aggregation_vectors.jsonl"], (ref) => {
  const cases = vectorLines(ref, "aggregation_vectors.jsonl")
    .filter((l) => l.value.kind === "round4")
    .flatMap((l) =>
      (l.value.cases as any[]).map((c, i) => ({
        label: `${l.label} case ${i}`,
        x: c.x as number,
        x_repr: c.x_repr as string,
        rounded: l.exact.cases[i].rounded,
      })),
    );

  itEachCase(
    cases,
    (c) => `${c.label}: round(${c.x_repr}, 4)`,
    "round4 line with cases",
    (c) => {
      expect(Object.is(fromPyRepr(c.x_repr), c.x), "x_repr is x's repr").toBe(true);
      expectPy(round4(c.x), c.rounded, c.label, { numbers: "float" });
      // The independent exact-expansion reference below agrees on the file's cases too, where it is exact.
      if (c.x === 0 || (Math.abs(c.x) >= 2 ** -48 && Math.abs(c.x) < 1e21))
        expect(referenceRound4(c.x)).toBe(round4(c.x));
    },
  );
});

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
