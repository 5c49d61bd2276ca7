// The reasoning-quality run page's data (dashboard/src/evaluators/reasoning-quality/charts.ts), from a small hand-made
// result: the radar, the model × strategy table with ranks (a tie included), the score cards, the
// per-dataset breakdown and its bars, the report links and the notes. Expected values are written by hand.
import { describe, expect, it } from "vitest";
import type { ReasoningQualityModelResult, ReasoningQualityResult, RqRawMetrics } from "@assay/sdk";
import {
  four,
  METRICS,
  notes,
  perDatasetChart,
  perDatasetRows,
  radarChart,
  rankOf,
  reportLinks,
  scoreCards,
  strategyNames,
  strategyTable,
} from "../../../dashboard/src/evaluators/reasoning-quality/charts.ts";

const KEYS = ["correctness", "consistency", "robustness", "logical_coherence", "efficiency", "stability"] as const;

function model(
  name: string,
  raw: RqRawMetrics,
  aggregated: Record<string, number>,
  per_dataset: ReasoningQualityModelResult["per_dataset"] = {},
  over: Partial<ReasoningQualityModelResult> = {},
): ReasoningQualityModelResult {
  return {
    model: name,
    raw_metrics: raw,
    aggregated,
    per_dataset,
    metadata: {
      num_samples: 5,
      consistency_runs: 3,
      stability_runs: 3,
      robustness_perturbations: 3,
      datasets: ["x", "y"],
    },
    extensions: {
      cq_matcher: "canonical",
      ls_method: "lexical",
      ls_failed_pairs: 0,
      ss_method: "jaccard",
      token_count_method: "provider",
      preset_version: "paper-v8",
      rs_skipped: false,
      missing_metric: "renormalize",
      step_rule: "legacy_dot",
    },
    calls: { planned: 30, made: 30, failed: 0, missing: 0 },
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    generation_failed: 0,
    backends: { ls: null, ss: null },
    ...over,
  };
}

const A_RAW = {
  correctness: 0.8,
  consistency: 1,
  robustness: 0.6,
  logical_coherence: 0.9,
  efficiency: 0.5,
  stability: 0.7,
};
const B_RAW = {
  correctness: 0.4,
  consistency: 0.5,
  robustness: null,
  logical_coherence: 0.75,
  efficiency: 1,
  stability: 0.25,
};
const C_RAW = {
  correctness: 0.8,
  consistency: 1,
  robustness: 0.6,
  logical_coherence: 0.9,
  efficiency: 0.5,
  stability: 0.7,
};

// Three models, two strategies: under "even" alpha and gamma tie for rank 1; under "mine" beta leads.
const RESULT: ReasoningQualityResult = {
  metric_keys: [...KEYS],
  strategies: { even: Object.fromEntries(KEYS.map((k) => [k, 1 / 6])), mine: { correctness: 0.25, efficiency: 0.75 } },
  rankings: {
    even: [
      { model: "alpha", q: 0.75, rank: 1 },
      { model: "gamma", q: 0.75, rank: 1 },
      { model: "beta", q: 0.58, rank: 3 },
    ],
    mine: [
      { model: "beta", q: 0.85, rank: 1 },
      { model: "alpha", q: 0.575, rank: 2 },
      { model: "gamma", q: 0.575, rank: 2 },
    ],
  },
  models: [
    model(
      "alpha",
      A_RAW,
      { even: 0.75, mine: 0.575 },
      {
        y: { raw_metrics: { ...A_RAW, correctness: 0.5 }, aggregated: { even: 0.7, mine: 0.5 }, num_samples: 2 },
        x: { raw_metrics: A_RAW, aggregated: { even: 0.8, mine: 0.6 }, num_samples: 3 },
      },
    ),
    model(
      "beta",
      B_RAW,
      { even: 0.58, mine: 0.85 },
      {
        x: { raw_metrics: B_RAW, aggregated: { even: 0.6, mine: 0.9 }, num_samples: 3 },
        y: { raw_metrics: B_RAW, aggregated: { even: 0.55, mine: 0.8 }, num_samples: 2 },
      },
      {
        extensions: {
          cq_matcher: "canonical",
          ls_method: "lexical",
          ls_failed_pairs: 0,
          ss_method: "jaccard",
          token_count_method: "provider",
          preset_version: "paper-v8",
          rs_skipped: true,
          missing_metric: "renormalize",
          step_rule: "legacy_dot",
          ss_fallback: { from: "embeddings", reason: "endpoint failed" },
        },
        generation_failed: 2,
        calls: { planned: 30, made: 30, failed: 3, missing: 0 },
      },
    ),
    model("gamma", C_RAW, { even: 0.75, mine: 0.575 }),
  ],
};

describe("radarChart", () => {
  const config = radarChart(RESULT);

  it("has the six metrics as axes, named and abbreviated as the original's report does", () => {
    expect(config.type).toBe("radar");
    expect(config.data.labels).toEqual([
      ["Correctness", "CQ"],
      ["Consistency", "CS"],
      ["Robustness", "RS"],
      ["Logical coherence", "LS"],
      ["Efficiency", "ES"],
      ["Stability", "SS"],
    ]);
    expect(config.options?.scales?.r).toMatchObject({ min: 0, max: 1 });
  });

  it("draws one polygon per model from its raw metrics, a left-out metric as a gap", () => {
    expect(config.data.datasets.map((d) => d.label)).toEqual(["alpha", "beta", "gamma"]);
    expect(config.data.datasets[0].data).toEqual([0.8, 1, 0.6, 0.9, 0.5, 0.7]);
    expect(config.data.datasets[1].data).toEqual([0.4, 0.5, null, 0.75, 1, 0.25]);
    expect(new Set(config.data.datasets.map((d) => d.borderColor)).size).toBe(3);
  });

  it("leaves out the axes of metrics the result does not report", () => {
    const fewer = { ...RESULT, metric_keys: ["correctness", "efficiency"] as ReasoningQualityResult["metric_keys"] };
    const c = radarChart(fewer);
    expect(c.data.labels).toEqual([
      ["Correctness", "CQ"],
      ["Efficiency", "ES"],
    ]);
    expect(c.data.datasets[1].data).toEqual([0.4, 1]);
  });
});

describe("strategyTable", () => {
  it("has a row per strategy in the result's order and a cell per model with Q and rank; ties share rank 1", () => {
    const { models, rows } = strategyTable(RESULT);
    expect(models).toEqual(["alpha", "beta", "gamma"]);
    expect(rows.map((r) => r.strategy)).toEqual(["even", "mine"]);
    expect(rows.map((r) => r.cells.map((c) => [c.q, c.rank, c.best]))).toEqual([
      [
        [0.75, 1, true],
        [0.58, 3, false],
        [0.75, 1, true],
      ],
      [
        [0.575, 2, false],
        [0.85, 1, true],
        [0.575, 2, false],
      ],
    ]);
    expect(rows[1].weights).toEqual({ correctness: 0.25, efficiency: 0.75 });
  });

  it("reads a rank from the ranking, null for a model it leaves out", () => {
    expect(rankOf(RESULT, "mine", "beta")).toBe(1);
    expect(rankOf(RESULT, "mine", "nobody")).toBeNull();
    expect(rankOf(RESULT, "no-such-strategy", "beta")).toBeNull();
    expect(strategyNames(RESULT)).toEqual(["even", "mine"]);
  });
});

describe("scoreCards", () => {
  it("puts the models best first under the chosen strategy, ties in the result's order", () => {
    expect(scoreCards(RESULT, "mine").map((c) => [c.model, c.q, c.rank])).toEqual([
      ["beta", 0.85, 1],
      ["alpha", 0.575, 2],
      ["gamma", 0.575, 2],
    ]);
    expect(scoreCards(RESULT, "even").map((c) => c.model)).toEqual(["alpha", "gamma", "beta"]);
    expect(scoreCards(RESULT, "even")[0]).toMatchObject({ n: 5, correctness: 0.8 });
  });
});

describe("perDatasetRows", () => {
  it("lists (dataset, model) rows, datasets by name, with N, the metrics and Q under the strategy", () => {
    const { datasets, rows } = perDatasetRows(RESULT, "mine");
    expect(datasets).toEqual(["x", "y"]);
    expect(rows.map((r) => [r.dataset, r.model, r.n, r.q])).toEqual([
      ["x", "alpha", 3, 0.6],
      ["x", "beta", 3, 0.9],
      ["y", "alpha", 2, 0.5],
      ["y", "beta", 2, 0.8],
    ]);
    expect(rows[2].metrics).toEqual([0.5, 1, 0.6, 0.9, 0.5, 0.7]);
    expect(rows[1].metrics[2]).toBeNull();
  });

  it("is empty for a run with one dataset (the API gives no breakdown then)", () => {
    const one = { ...RESULT, models: [RESULT.models[2]] };
    expect(perDatasetRows(one, "even")).toEqual({ datasets: [], rows: [] });
  });
});

describe("perDatasetChart", () => {
  it("groups bars by dataset, a bar per model at its Q under the strategy (a gap where it has none)", () => {
    const config = perDatasetChart(RESULT, "even");
    expect(config.data.labels).toEqual(["x", "y"]);
    expect(config.data.datasets.map((d) => [d.label, d.data])).toEqual([
      ["alpha", [0.8, 0.7]],
      ["beta", [0.6, 0.55]],
      ["gamma", [null, null]],
    ]);
  });
});

describe("reportLinks", () => {
  it("points at the run's CSV, XLSX and radar SVG, with file names", () => {
    expect(reportLinks("run_abc").map((l) => [l.key, l.href, l.filename])).toEqual([
      ["csv", "/v1/runs/run_abc/report.csv", "run_abc.csv"],
      ["xlsx", "/v1/runs/run_abc/report.xlsx", "run_abc.xlsx"],
      ["svg", "/v1/runs/run_abc/radar.svg", "run_abc-radar.svg"],
    ]);
  });
});

describe("four and notes", () => {
  it("writes metrics with four decimals and — for a left-out one", () => {
    expect([four(1), four(0.5), four(0), four(null)]).toEqual(["1.0000", "0.5000", "0.0000", "—"]);
    expect(METRICS.map((m) => m.abbr).join("")).toBe("CQCSRSLSESSS");
  });

  it("says which model fell back, skipped RS, or lost generations and calls", () => {
    expect(notes(RESULT)).toEqual([
      "beta: SS fell back from embeddings (endpoint failed).",
      "beta: no item had perturbations, so RS is left out.",
      "beta: 2 primary generations failed (scored as wrong).",
      "beta: 3 of 30 calls failed.",
    ]);
  });
});
