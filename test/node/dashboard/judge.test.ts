// The judge run page's data (dashboard/src/evaluators/judge/charts.ts), from a small hand-made result: the verdict
// grid and its legend, label colours, per-critic agreement bars, the pairwise heat table, the batch
// cards and the paging of the contested queue. Expected values are worked out by hand below.
import { describe, expect, it } from "vitest";
import type { JudgeResult } from "@assay/sdk";
import {
  batchCards,
  criticAgreementChart,
  fixed,
  gridLegend,
  heatColor,
  labelColors,
  pairwiseMatrix,
  percent,
  verdictClass,
  verdictGrid,
} from "../../../dashboard/src/evaluators/judge/charts.ts";

const counts = (over: Partial<JudgeResult["items"][number]["counts"]> = {}) => ({
  verdicts: 3,
  valid: 3,
  errors: 0,
  parse_failures: 0,
  off_vocabulary: 0,
  missing: 0,
  ...over,
});

// Three critics (a, b, c) over three items, labels KEEP and REJECT:
//   i1: a KEEP, b KEEP, c REJECT                      (all votes)
//   i2: a KEEP, b ERROR, c PARSE_FAIL                 (one vote, two failures)
//   i3: a MAYBE (off-vocabulary), b REJECT, c absent  (a canceled run's missing verdict)
const RESULT: JudgeResult = {
  voting: "majority",
  labels: ["KEEP", "REJECT"],
  counts: { items: 3, verdicts: 9, valid: 5, errors: 1, parse_failures: 1, off_vocabulary: 1, missing: 1 },
  batch: {
    alpha: { alpha: 0.25, pairable: 5, units_used: 2, categories: ["KEEP", "REJECT"], coincidence: [], totals: [] },
    per_critic: [
      { critic: "a", items: 2, agree: 2, rate: 1 },
      { critic: "b", items: 2, agree: 1, rate: 0.5 },
      { critic: "c", items: 1, agree: 0, rate: 0 },
    ],
    pairwise: [
      { a: "a", b: "b", items: 1, agree: 1, rate: 1, alpha: 1 },
      { a: "a", b: "c", items: 1, agree: 0, rate: 0, alpha: -0.5 },
      { a: "b", b: "c", items: 1, agree: 0, rate: 0, alpha: null },
    ],
    patterns: { unanimous: 2, majority: 1, no_majority: 0, no_valid: 0 },
    label_distribution: [],
  },
  contested: { threshold: 0.4, count: 2 },
  accuracy: { items: 2, correct: 1, rate: 0.5 },
  usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  items: [
    {
      id: "i1",
      expected: "KEEP",
      consensus: "KEEP",
      disagreement: true,
      agreement_pct: 2 / 3,
      avg_confidence: 0.7,
      krippendorff_alpha: 0,
      verdicts: [
        { critic: "a", kind: "KEEP", confidence: 0.9, error: null },
        { critic: "b", kind: "KEEP", confidence: 0.8, error: null },
        { critic: "c", kind: "REJECT", confidence: 0.4, error: null },
      ],
      counts: counts(),
      contested: ["alpha_below_threshold"],
    },
    {
      id: "i2",
      expected: "REJECT",
      consensus: "KEEP",
      disagreement: false,
      agreement_pct: 1,
      avg_confidence: 0.9,
      krippendorff_alpha: null,
      verdicts: [
        { critic: "a", kind: "KEEP", confidence: 0.9, error: null },
        { critic: "b", kind: "ERROR", confidence: 0, error: "api_error: APIConnectionError: boom" },
        { critic: "c", kind: "PARSE_FAIL", confidence: 0, error: "parse_fail" },
      ],
      counts: counts({ valid: 1, errors: 1, parse_failures: 1 }),
      contested: ["fewer_than_two_valid_verdicts"],
    },
    {
      id: "i3",
      expected: null,
      consensus: "REJECT",
      disagreement: false,
      agreement_pct: 1,
      avg_confidence: 0.6,
      krippendorff_alpha: null,
      verdicts: [
        { critic: "a", kind: "MAYBE", confidence: 0.5, error: "off_vocabulary: 'MAYBE' is not one of KEEP, REJECT" },
        { critic: "b", kind: "REJECT", confidence: 0.6, error: null },
      ],
      counts: counts({ valid: 1, off_vocabulary: 1, missing: 1 }),
      contested: [],
    },
  ],
};

describe("verdictClass", () => {
  it.each([
    [{ error: null }, "valid"],
    [{ error: "parse_fail" }, "parse_fail"],
    [{ error: "off_vocabulary: 'X' is not one of A, B" }, "off_vocabulary"],
    [{ error: "api_error: RateLimitError" }, "error"],
    [undefined, "missing"],
  ] as const)("classifies %j as %s", (v, cls) => {
    expect(verdictClass(v)).toBe(cls);
  });
});

describe("labelColors", () => {
  it("gives the vocabulary the palette in order, then turned hues beyond ten labels", () => {
    const labels = Array.from({ length: 11 }, (_, i) => `L${i}`);
    const colors = labelColors(labels);
    expect(colors.get("L0")).toEqual({ bg: "#a6cee3", fg: "#1d2330" });
    expect(colors.get("L1")?.bg).toBe("#b2df8a");
    // 10 × 137.5° = 1375° = 295° after three turns
    expect(colors.get("L10")?.bg).toBe("hsl(295, 70%, 82%)");
    expect(new Set(labels.map((l) => colors.get(l)!.bg)).size).toBe(11);
  });
});

describe("verdictGrid", () => {
  const grid = verdictGrid(RESULT);

  it("has a column per critic in the run's order and a row per item", () => {
    expect(grid.critics).toEqual(["a", "b", "c"]);
    expect(grid.rows.map((r) => r.id)).toEqual(["i1", "i2", "i3"]);
    expect(grid.hasExpected).toBe(true);
  });

  it("shows each verdict's label, ERROR, PARSE_FAIL, the off-vocabulary label, or — where a verdict is missing", () => {
    expect(grid.rows.map((r) => r.cells.map((c) => c.text))).toEqual([
      ["KEEP", "KEEP", "REJECT"],
      ["KEEP", "ERROR", "PARSE_FAIL"],
      ["MAYBE", "REJECT", "—"],
    ]);
    expect(grid.rows.map((r) => r.cells.map((c) => c.cls))).toEqual([
      ["valid", "valid", "valid"],
      ["valid", "error", "parse_fail"],
      ["off_vocabulary", "valid", "missing"],
    ]);
  });

  it("colours a vote by its label and sets ERROR and PARSE_FAIL apart from every label and from each other", () => {
    const [i1, i2, i3] = grid.rows;
    expect(i1.cells[0].swatch.bg).toBe("#a6cee3"); // KEEP, the first label
    expect(i1.cells[2].swatch.bg).toBe("#b2df8a"); // REJECT, the second
    expect(i2.cells[1].swatch).toEqual({ bg: "#7f1d1d", fg: "#ffffff" });
    expect(i2.cells[2].swatch).toEqual({ bg: "#374151", fg: "#ffffff" });
    expect(i3.cells[2].swatch.bg).toBe("#eef0f3");
    expect(i1.consensusSwatch.bg).toBe("#a6cee3");
    expect(i3.consensusSwatch.bg).toBe("#b2df8a");
  });

  it("keeps confidence and error for the cell's tooltip, and marks contested items", () => {
    expect(grid.rows[1].cells[1]).toMatchObject({ confidence: 0, error: "api_error: APIConnectionError: boom" });
    expect(grid.rows[2].cells[2]).toMatchObject({ confidence: null, error: null });
    expect(grid.rows.map((r) => r.contested)).toEqual([true, true, false]);
    expect(grid.rows.map((r) => [r.agreement, r.alpha])).toEqual([
      [2 / 3, 0],
      [1, null],
      [1, null],
    ]);
  });

  it("has a legend of the labels, ERROR and PARSE_FAIL, and the off-vocabulary and missing cells, each counted", () => {
    expect(gridLegend(grid, RESULT.labels).map((e) => [e.text, e.count])).toEqual([
      ["KEEP", 3],
      ["REJECT", 2],
      ["ERROR", 1],
      ["PARSE_FAIL", 1],
      ["off-vocabulary", 1],
      ["missing", 1],
    ]);
  });

  it("always lists ERROR and PARSE_FAIL, and leaves out off-vocabulary and missing when there are none", () => {
    const clean = { ...RESULT, items: [RESULT.items[0]] };
    expect(gridLegend(verdictGrid(clean), clean.labels).map((e) => [e.text, e.count])).toEqual([
      ["KEEP", 2],
      ["REJECT", 1],
      ["ERROR", 0],
      ["PARSE_FAIL", 0],
    ]);
  });
});

describe("criticAgreementChart", () => {
  it("draws a horizontal bar per critic at its agreement rate, on a 0–1 axis", () => {
    const config = criticAgreementChart(RESULT);
    expect(config.type).toBe("bar");
    expect(config.data.labels).toEqual(["a", "b", "c"]);
    expect(config.data.datasets[0].data).toEqual([1, 0.5, 0]);
    expect(config.options?.indexAxis).toBe("y");
    expect(config.options?.scales?.x).toMatchObject({ min: 0, max: 1 });
  });
});

describe("heatColor", () => {
  it.each([
    [1, "#2f5fd0", "#ffffff"],
    [0, "#ffffff", "#1d2330"],
    // 255 + (0x2f − 255)·0.5 = 151, 255 + (0x5f − 255)·0.5 = 175, 255 + (0xd0 − 255)·0.5 = 231.5 → 232
    [0.5, "#97afe8", "#1d2330"],
    [-1, "#b3261e", "#ffffff"],
    // 255 + (0xb3 − 255)·0.25 = 236, 255 + (0x26 − 255)·0.25 = 200.75 → 201, 255 + (0x1e − 255)·0.25 = 198.75 → 199
    [-0.25, "#ecc9c7", "#1d2330"],
    [3, "#2f5fd0", "#ffffff"],
  ])("colours alpha %s as %s", (alpha, bg, fg) => {
    expect(heatColor(alpha)).toEqual({ bg, fg });
  });

  it("greys an undefined alpha", () => {
    expect(heatColor(null).bg).toBe("#eef0f3");
  });
});

describe("pairwiseMatrix", () => {
  it("is symmetric, empty on the diagonal, and carries each pair's alpha and agreement", () => {
    const { critics, cells } = pairwiseMatrix(RESULT);
    expect(critics).toEqual(["a", "b", "c"]);
    expect(cells.map((row) => row.map((c) => (c ? c.alpha : "diag")))).toEqual([
      ["diag", 1, -0.5],
      [1, "diag", null],
      [-0.5, null, "diag"],
    ]);
    expect(cells[2][0]).toEqual({ a: "c", b: "a", alpha: -0.5, rate: 0, agree: 0, items: 1 });
  });
});

describe("batchCards", () => {
  it("shows alpha with its support, the counts (errors and parse failures apart), contested, accuracy and patterns", () => {
    const cards = Object.fromEntries(batchCards(RESULT).map((c) => [c.key, [c.value, c.hint]]));
    expect(cards).toEqual({
      alpha: ["0.250", "5 pairable values over 2 items"],
      items: ["3", undefined],
      verdicts: ["9", "5 valid"],
      errors: ["1", undefined],
      parse_failures: ["1", undefined],
      off_vocabulary: ["1", undefined],
      missing: ["1", undefined],
      contested: ["2", "below 0.4"],
      accuracy: ["50.0%", "1 of 2"],
      patterns: ["2 / 1 / 0", undefined],
    });
  });

  it("leaves out accuracy without expected labels, and off-vocabulary and missing when there are none", () => {
    const plain = { ...RESULT, accuracy: null, counts: { ...RESULT.counts, off_vocabulary: 0, missing: 0 } };
    expect(batchCards(plain).map((c) => c.key)).toEqual([
      "alpha",
      "items",
      "verdicts",
      "errors",
      "parse_failures",
      "contested",
      "patterns",
    ]);
  });
});

describe("number formats", () => {
  it("writes n/a for an undefined value", () => {
    expect([fixed(null), fixed(0.0833333), fixed(1), percent(2 / 3), percent(null)]).toEqual([
      "n/a",
      "0.083",
      "1.000",
      "66.7%",
      "n/a",
    ]);
  });
});
