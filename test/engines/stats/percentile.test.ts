import { describe, expect, it } from "vitest";
import { percentile, percentileSorted } from "../../../src/engines/stats/index.ts";

describe("percentile (numpy linear)", () => {
  // n = 5: v(25) = 4·0.25 = 1 → s[1]; v(75) = 3 → s[3].
  it("hits order statistics at integer positions", () => {
    expect(percentile([5, 1, 4, 2, 3], 25)).toBe(2);
    expect(percentile([5, 1, 4, 2, 3], 75)).toBe(4);
  });

  // g = 0.3 < 0.5 → a0 + d·g; g = 0.7 ≥ 0.5 → a1 − d·(1 − g); numpy's two-sided lerp.
  it("switches the lerp formula at g = 0.5", () => {
    const s = [0.1, 0.7];
    expect(percentileSorted(s, 30)).toBe(0.1 + (0.7 - 0.1) * 0.3);
    expect(percentileSorted(s, 70)).toBe(0.7 - (0.7 - 0.1) * (1 - 0.7));
  });

  it("returns the single value for n = 1 and rejects empty input or q out of range", () => {
    expect(percentile([3.5], 97.5)).toBe(3.5);
    expect(() => percentile([], 50)).toThrow(RangeError);
    expect(() => percentile([1], 101)).toThrow(RangeError);
  });
});
