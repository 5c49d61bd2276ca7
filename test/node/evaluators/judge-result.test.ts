// Issue "A suite you can trust on any clone": numbers a person reads. The original's per-item alpha
// leaves floating-point noise where the exact value is 0 or 1; the result shows the exact value.
import { describe, expect, it } from "vitest";
import { aggregateVerdicts, type Verdict } from "../../../src/engines/judge/index.ts";
import { readableAlpha } from "../../../src/evaluators/judge/index.ts";

const verdict = (kind: string, i: number): Verdict => ({
  kind,
  confidence: 0.9,
  reasoning: "",
  error: null,
  raw_response: "",
  critic_id: `c${i}`,
  elapsed_s: 0,
});

describe("readableAlpha", () => {
  it.each([
    [1.1102230246251565e-16, 0],
    [-2.220446049250313e-16, 0],
    [0.9999999999999998, 1],
    [1.0000000000000002, 1],
    [0.375, 0.375],
    [1e-9, 1e-9],
    [-0.25, -0.25],
  ])("%d reads as %d", (raw, shown) => {
    expect(Object.is(readableAlpha(raw), shown)).toBe(true);
  });

  it("keeps null (alpha undefined) and turns -0 into 0", () => {
    expect(readableAlpha(null)).toBeNull();
    expect(Object.is(readableAlpha(-0), 0)).toBe(true);
  });

  it("is needed: the engine keeps the original's noise for a K R R panel", () => {
    const raw = aggregateVerdicts("x", ["KEEP", "REJECT", "REJECT"].map(verdict), {
      voting: "majority",
    }).krippendorff_alpha;
    expect(raw).not.toBe(0);
    expect(readableAlpha(raw)).toBe(0);
  });
});
