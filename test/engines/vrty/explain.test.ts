import { describe, expect, it } from "vitest";
import { band, explain, explainUnscorable, formatScore } from "../../../src/engines/vrty/explain.ts";

describe("formatScore (spec §6, Python %.2f)", () => {
  // m/8 with m odd are the only exact 2-decimal ties in [0,1]; half-even picks the even digit.
  it.each([
    [0.125, "0.12"],
    [0.375, "0.38"],
    [0.625, "0.62"],
    [0.875, "0.88"],
  ])("rounds the tie %d half-to-even to %s", (v, s) => {
    expect(formatScore(v)).toBe(s);
  });

  it.each([
    [0, "0.00"],
    [1, "1.00"],
    [0.5, "0.50"],
    [0.8295310065985426, "0.83"],
    // Expected strings checked against Python's '%.2f'. 0.145 is stored as 0.14499999999999999…,
    // so it is not a tie and rounds down.
    [0.145, "0.14"],
    // 0.165 is stored as 0.16500000000000000777…, so it rounds up (Python 3.11: '%.2f' % 0.165 == '0.17').
    [0.165, "0.17"],
    [0.155, "0.15"],
    [0.12500000000000003, "0.13"],
    [0.004999, "0.00"],
  ])("formats %d as %s", (v, s) => {
    expect(formatScore(v)).toBe(s);
  });
});

describe("bands (spec §6)", () => {
  it("uses the unrounded value: ≥0.70 high, ≥0.40 moderate, else low", () => {
    expect([band(0.7), band(0.6999999), band(0.4), band(0.39999), band(0)]).toEqual([0, 1, 1, 2, 2]);
    // 0.6999 prints as 0.70 but is still moderate.
    expect(explain("relevance", 0.6999)).toBe("Relevance: 0.70 - response partly shares the prompt's key terms.");
  });

  it.each([
    ["relevance", 0.1, "Relevance: 0.10 - response shares few of the prompt's key terms."],
    ["coherence", 0.5, "Coherence: 0.50 - adjacent sentences partly share topic."],
    ["coherence", 0.2, "Coherence: 0.20 - adjacent sentences share little topic."],
    ["completeness", 0.45, "Completeness: 0.45 - some of the prompt's key terms appear in the response."],
    ["completeness", 0.3, "Completeness: 0.30 - few of the prompt's key terms appear in the response."],
    ["conciseness", 0.9, "Conciseness: 0.90 - response has high information density."],
  ] as const)("explains %s %d", (dim, v, s) => {
    expect(explain(dim, v)).toBe(s);
  });

  it("words unscorable sides", () => {
    expect(explainUnscorable("coherence", "response")).toBe("Coherence: 0.00 - response contained no scorable tokens.");
    expect(explainUnscorable("relevance", "prompt")).toBe("Relevance: 0.00 - prompt contained no scorable tokens.");
  });
});
