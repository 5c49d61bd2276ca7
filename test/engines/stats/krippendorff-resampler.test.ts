// Issue 23: the paired bootstrap of judge's batch alpha resamples a 10,000 × 5 matrix 2,000 times; the
// resampler must give what nominalAlpha gives on each resample, bit for bit, only faster.
import { describe, expect, it } from "vitest";
import { defaultRng, nominalAlpha, nominalAlphaResampler } from "../../../src/engines/stats/index.ts";

/** A units × raters matrix of `labels` with some missing values and some one-value rows, from a seed. */
function matrix(seed: number, units: number, raters: number, labels: string[], missing: number): (string | null)[][] {
  const rng = defaultRng(seed);
  return Array.from({ length: units }, () =>
    Array.from({ length: raters }, () => (rng.below(100) < missing ? null : labels[rng.below(labels.length)])),
  );
}

describe("nominalAlphaResampler", () => {
  it.each([
    ["three labels, few missing", 1, 60, 5, ["yes", "no", "maybe"], 10],
    ["two labels, many missing", 2, 40, 3, ["a", "b"], 45],
    ["a rare label first seen late", 3, 80, 4, ["x", "y", "z", "w", "v", "u"], 20],
  ])("gives nominalAlpha's value on every resample (%s)", (_, seed, units, raters, labels, missing) => {
    const m = matrix(seed as number, units as number, raters as number, labels as string[], missing as number);
    const alphaOf = nominalAlphaResampler(m);
    const rng = defaultRng(100 + (seed as number));
    const idx = new Uint32Array(m.length);
    let defined = 0;
    for (let b = 0; b < 200; b++) {
      for (let i = 0; i < idx.length; i++) idx[i] = rng.below(idx.length);
      const expected = nominalAlpha(Array.from(idx, (i) => m[i])).alpha;
      // toBe is Object.is: the same double, not a close one.
      expect(alphaOf(idx)).toBe(expected);
      if (expected !== null) defined++;
    }
    expect(defined).toBeGreaterThan(100);
    // The whole matrix in order is the batch alpha itself.
    expect(alphaOf(m.map((_, i) => i))).toBe(nominalAlpha(m).alpha);
  });

  it("is null where nominalAlpha is: one category only, or nothing pairable", () => {
    const alphaOf = nominalAlphaResampler([
      ["a", "a"],
      ["a", null],
      [null, null],
      ["b", null],
    ]);
    expect(alphaOf([0, 0, 1])).toBeNull();
    expect(alphaOf([2, 3, 1])).toBeNull();
    expect(alphaOf([])).toBeNull();
  });
});
