// Issue 17: the data of the vrty playground (dashboard/src/evaluators/vrty/): histogram bins of the composites,
// count/mean/min/max, the lowest-scoring pairs, a JSONL file cut into batches of the API's size, and the
// bars of one result. Expected values by hand.
import { describe, expect, it } from "vitest";
import type { VrtyBatchItem, VrtyResult } from "@assay/sdk";
import { binOf, histogram, lowest, summarise } from "../../../dashboard/src/evaluators/vrty/histogram.ts";
import { chunk, collect, MAX_PAIRS, parseJsonl } from "../../../dashboard/src/evaluators/vrty/batch.ts";
import { dimensionBars, dimensionsChart, histogramChart } from "../../../dashboard/src/evaluators/vrty/charts.ts";

describe("histogram", () => {
  it("puts each composite in its tenth of [0, 1], 1 in the last", () => {
    const bins = histogram([0, 0.05, 0.1, 0.3, 0.35, 0.7, 0.99, 1]);
    expect(bins.map((b) => b.label)).toEqual([
      "0.0–0.1",
      "0.1–0.2",
      "0.2–0.3",
      "0.3–0.4",
      "0.4–0.5",
      "0.5–0.6",
      "0.6–0.7",
      "0.7–0.8",
      "0.8–0.9",
      "0.9–1.0",
    ]);
    expect(bins.map((b) => b.count)).toEqual([2, 1, 0, 2, 0, 0, 0, 1, 0, 2]);
  });

  it("keeps bin edges exact in floating point (0.3 starts the fourth bin, 0.6 the seventh)", () => {
    expect([0.3, 0.6, 0.7, 0.29999999999999993].map((v) => binOf(v))).toEqual([3, 6, 7, 2]);
  });

  it("clamps values outside the range into the end bins, and supports other bin counts", () => {
    expect(histogram([-0.2, 1.5], 4).map((b) => b.count)).toEqual([1, 0, 0, 1]);
    expect(histogram([0.5], 4).map((b) => b.label)).toEqual(["0.00–0.25", "0.25–0.50", "0.50–0.75", "0.75–1.00"]);
    expect(histogram([], 5).map((b) => b.count)).toEqual([0, 0, 0, 0, 0]);
  });
});

describe("summarise and lowest", () => {
  it("gives count, mean, min and max", () => {
    expect(summarise([0.2, 0.5, 0.8, 0.5])).toEqual({ count: 4, mean: 0.5, min: 0.2, max: 0.8 });
    expect(summarise([])).toBeNull();
  });

  it("lists the lowest scores first, ties in input order", () => {
    const rows = [
      { id: "a", s: 0.5 },
      { id: "b", s: 0.1 },
      { id: "c", s: 0.5 },
      { id: "d", s: 0.05 },
      { id: "e", s: 0.1 },
    ];
    expect(lowest(rows, (r) => r.s, 4).map((r) => r.id)).toEqual(["d", "b", "e", "a"]);
  });
});

describe("parseJsonl and chunk", () => {
  it("reads one JSON value per non-blank line, naming the lines that are not JSON", () => {
    const { pairs, errors } = parseJsonl('{"prompt":"p","response":"r","id":"x"}\r\n\n{"prompt":\n  \n[1]\n');
    expect(pairs).toEqual([
      { line: 1, pair: { prompt: "p", response: "r", id: "x" } },
      { line: 5, pair: [1] },
    ]);
    expect(errors.map((e) => e.line)).toEqual([3]);
    expect(errors[0].message).toMatch(/^not JSON/);
  });

  it("cuts at the API's 1,000 pairs per request", () => {
    const lines = Array.from({ length: 2500 }, (_, i) => ({ line: i + 1, pair: { prompt: "p", response: `r${i}` } }));
    const chunks = chunk(lines);
    expect(MAX_PAIRS).toBe(1000);
    expect(chunks.map((c) => c.length)).toEqual([1000, 1000, 500]);
    expect(chunks[1][0].line).toBe(1001);
    expect(chunk(lines.slice(0, 1000)).map((c) => c.length)).toEqual([1000]);
  });

  it("cuts before a request body would pass the byte limit; a pair too large alone goes alone", () => {
    // Each pair below is 40 bytes of JSON plus a comma; 64 bytes are kept for the envelope.
    const pair = { prompt: "p".repeat(8), response: "r".repeat(5) };
    expect(JSON.stringify(pair).length).toBe(40);
    const lines = Array.from({ length: 5 }, (_, i) => ({ line: i + 1, pair }));
    expect(chunk(lines, 1000, 64 + 41 * 2).map((c) => c.length)).toEqual([2, 2, 1]);
    expect(
      chunk([{ line: 1, pair: { prompt: "x".repeat(500), response: "y" } }, ...lines], 1000, 200).map((c) => c.length),
    ).toEqual([1, 3, 2]);
  });
});

const result = (composite: number, extra: Partial<VrtyResult> = {}): VrtyResult => ({
  composite,
  relevance: 0.8,
  coherence: 1,
  completeness: 0.6,
  conciseness: 0.5,
  explanations: { relevance: "r", coherence: "c", completeness: "m", conciseness: "n" },
  idf_sha256: "0".repeat(64),
  vrty_version: "1.0.1",
  weights: { relevance: 0.35, coherence: 0.2, completeness: 0.3, conciseness: 0.15 },
  ...extra,
});

describe("collect", () => {
  it("matches each answer to its file line by index, keeping refusals with the API's field errors", () => {
    const lines = [
      { line: 3, pair: { prompt: "a", response: "b", id: "one" } },
      { line: 7, pair: { prompt: "c", id: "two" } },
    ];
    const items: VrtyBatchItem[] = [
      { index: 0, id: "one", result: result(0.4) },
      {
        index: 1,
        id: "two",
        error: {
          status: 400,
          title: "Validation failed",
          detail: "Pair 1 has invalid fields.",
          errors: [{ path: "response", message: "Required" }],
        },
      },
    ];
    expect(collect(lines, items)).toEqual({
      scored: [{ line: 3, id: "one", prompt: "a", response: "b", result: result(0.4) }],
      refused: [{ line: 7, id: "two", message: "response: Required" }],
    });
  });
});

describe("charts", () => {
  it("draws the four dimensions with their weights, then the composite", () => {
    const r = result(0.73);
    expect(dimensionBars(r)).toEqual({
      labels: ["relevance ×0.35", "coherence ×0.2", "completeness ×0.3", "conciseness ×0.15", "composite"],
      values: [0.8, 1, 0.6, 0.5, 0.73],
    });
    expect(dimensionsChart(r).data.datasets[0].data).toEqual([0.8, 1, 0.6, 0.5, 0.73]);
  });

  it("draws the histogram's counts over its bin labels", () => {
    const config = histogramChart(histogram([0.05, 0.15, 0.15], 2));
    expect(config.data.labels).toEqual(["0.0–0.5", "0.5–1.0"]);
    expect(config.data.datasets[0].data).toEqual([3, 0]);
  });
});
