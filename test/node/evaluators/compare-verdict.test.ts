// The verdict rules of GET /v1/compare (src/runs/plugin/compare.ts), case by case.
import { describe, expect, it } from "vitest";
import { metric, metricVerdict, overallVerdict } from "../../../src/runs/plugin/compare.ts";

describe("metricVerdict", () => {
  it("judges by the interval's side and the metric's direction", () => {
    expect(metricVerdict(0.2, [0.1, 0.3], 0, true, "newcombe")).toBe("improved");
    expect(metricVerdict(0.2, [0.1, 0.3], 0, false, "newcombe")).toBe("regressed"); // lower is better: a rise is worse
    expect(metricVerdict(-0.2, [-0.3, -0.1], 0, false, "newcombe")).toBe("improved");
    expect(metricVerdict(-0.2, [-0.3, -0.1], 0, true, "newcombe")).toBe("regressed");
  });

  it("is no_change when the interval touches or spans 0", () => {
    expect(metricVerdict(0.2, [0, 0.3], 0, true, "newcombe")).toBe("no_change");
    expect(metricVerdict(0.2, [-0.1, 0.3], 0, true, "newcombe")).toBe("no_change");
  });

  it("is no_change under the noise floor, and judged from it up", () => {
    expect(metricVerdict(0.049, [0.01, 0.09], 0.05, true, "newcombe")).toBe("no_change");
    expect(metricVerdict(0.05, [0.01, 0.09], 0.05, true, "newcombe")).toBe("improved");
  });

  it("never judges a metric without a better direction, or a zero change", () => {
    expect(metricVerdict(0.3, [0.2, 0.4], 0, null, "combined-bootstraps")).toBe("no_change");
    expect(metricVerdict(0, [0, 0], 0, true, "paired-bootstrap")).toBe("no_change");
    expect(metricVerdict(null, null, 0, true, "none")).toBe("no_change");
  });

  it("judges a metric without an interval only against a floor the caller set", () => {
    expect(metricVerdict(-5, null, 0, true, "none")).toBe("no_change");
    expect(metricVerdict(-5, null, 2, true, "none")).toBe("regressed");
    expect(metricVerdict(-1, null, 2, true, "none")).toBe("no_change");
    // An interval the method should have made but could not (too few items): no verdict.
    expect(metricVerdict(-5, null, 2, true, "paired-bootstrap")).toBe("no_change");
  });

  it("needs the test, where one is run, to be significant at 1 − confidence", () => {
    // (a, b, c, d) = (90, 0, 5, 5): the paired interval excludes 0 but McNemar's p = 2 · 2⁻⁵ = 0.0625.
    expect(metricVerdict(-0.05, [-0.111, -0.0007], 0, true, "newcombe-paired", { pValue: 0.0625, alpha: 0.05 })).toBe(
      "no_change",
    );
    expect(metricVerdict(-0.05, [-0.111, -0.0007], 0, true, "newcombe-paired", { pValue: 0.01, alpha: 0.05 })).toBe(
      "regressed",
    );
  });
});

describe("metric", () => {
  it("computes delta as head − base and passes the test to the verdict", () => {
    const m = metric("accuracy", 0.9, 0.6, [-0.45, -0.15], {
      higherIsBetter: true,
      method: "newcombe-paired",
      minEffect: 0,
      pValue: 0.2,
      confidence: 0.95,
    });
    expect(m.delta).toBeCloseTo(-0.3, 15);
    expect(m.verdict).toBe("no_change");
    expect(
      metric("accuracy", 0.9, 0.6, [-0.45, -0.15], {
        higherIsBetter: true,
        method: "newcombe-paired",
        minEffect: 0,
        pValue: 0.001,
        confidence: 0.95,
      }).verdict,
    ).toBe("regressed");
  });
});

describe("overallVerdict", () => {
  it("is regressed if any metric regressed, else improved if any improved, else no_change", () => {
    expect(overallVerdict([{ verdict: "improved" }, { verdict: "regressed" }])).toBe("regressed");
    expect(overallVerdict([{ verdict: "improved" }, { verdict: "no_change" }])).toBe("improved");
    expect(overallVerdict([{ verdict: "no_change" }])).toBe("no_change");
    expect(overallVerdict([])).toBe("no_change");
  });
});
