import { describe, expect, it } from "vitest";
import { npMean, pairwiseSum } from "../../../src/engines/stats/index.ts";

describe("pairwiseSum", () => {
  // numpy adds n < 8 values left to right: (((0.1 + 0.2) + 0.3) differs from 0.1 + (0.2 + 0.3) in the last ulp.
  it("adds fewer than 8 values left to right", () => {
    expect(pairwiseSum([0.1, 0.2, 0.3])).toBe(0.1 + 0.2 + 0.3);
    expect(pairwiseSum([0.1, 0.2, 0.3])).not.toBe(0.1 + (0.2 + 0.3));
  });

  // With 8 accumulators, 9 values sum as ((x0+x1)+(x2+x3))+((x4+x5)+(x6+x7)) + x8.
  it("uses eight accumulators from 8 values on", () => {
    const x = [1e16, 1, -1e16, 1, 1, 1, 1, 1, 0.5];
    const expected = x[0] + x[1] + (x[2] + x[3]) + (x[4] + x[5] + (x[6] + x[7])) + x[8];
    expect(pairwiseSum(x)).toBe(expected);
    const seq = x.reduce((a, b) => a + b, 0);
    expect(expected).not.toBe(seq);
  });

  // n = 8 exactly: no tail, just the combined accumulators.
  it("pairs exactly 8 values instead of adding them in order", () => {
    const x = [1e16, 1, -1e16, 1, 1, 1, 1, 1];
    expect(pairwiseSum(x)).toBe(x[0] + x[1] + (x[2] + x[3]) + (x[4] + x[5] + (x[6] + x[7])));
    expect(pairwiseSum(x)).not.toBe(x.reduce((a, b) => a + b, -0));
  });

  it("splits above 128 values at a multiple of 8 below n/2", () => {
    const x = Array.from({ length: 300 }, (_, i) => Math.sin(i) * 1e3 + 1 / (i + 3));
    // n2 = 150 → 144; left 144 > 128 → 72/72; right 156 → 78 → 72 | 84.
    const expected =
      pairwiseSum(x, 0, 72) + pairwiseSum(x, 72, 72) + (pairwiseSum(x, 144, 72) + pairwiseSum(x, 216, 84));
    expect(pairwiseSum(x)).toBe(expected);
  });

  it("honours start/length windows and gives NaN for an empty mean", () => {
    expect(pairwiseSum([9, 1, 2, 9], 1, 2)).toBe(3);
    expect(npMean([2, 4])).toBe(3);
    expect(npMean([])).toBeNaN();
  });
});
