// The data the rpl run page draws: template means and their samples in the strip plot, the center and
// its CI, the probability axis, the headline cards, and the Auto-RPL stages against their gates.
import { describe, expect, it } from "vitest";
import type { RplAuto, RplResult, RplSample } from "@assay/sdk";
import {
  failingGates,
  invalidReasons,
  jitter,
  logit,
  logit3,
  logitRange,
  probabilityConfig,
  probabilityTicks,
  rplCards,
  sigmoid,
  stagesConfig,
  templateLabel,
  templatePoints,
  templateStripConfig,
} from "../../../dashboard/src/evaluators/rpl/charts.ts";

function result(over: { means?: number[]; counts?: Record<string, number> } = {}): RplResult {
  const counts = over.counts ?? { k1: 2, k2: 1, k3: 2 };
  return {
    run_id: "heretix-rpl-x",
    claim: "c",
    model: "sim:rpl",
    prompt_version: "v_full",
    prompt_version_name: "v",
    sampling: { K: 3, R: 2, T: null },
    aggregation: {
      method: "equal_by_template_cluster_bootstrap_trimmed",
      B: 5000,
      center: "trimmed",
      trim: 0.2,
      bootstrap_seed: "1",
      n_templates: Object.keys(counts).length,
      counts_by_template: counts,
      imbalance_ratio: 2,
      template_iqr_logit: 0.5,
      prompt_char_len_max: 100,
    },
    aggregates: {
      prob_true_rpl: 0.25,
      ci95: [0.2, 0.3],
      ci_width: 0.1,
      stability_score: 0.6667,
      stability_band: "medium",
      is_stable: true,
      rpl_compliance_rate: 0.8,
      cache_hit_rate: 0.5,
    },
    diagnostics: {
      ell_hat: -1,
      ci_logit: [-1.2, -0.8],
      ci_logit_raw: [-1.2, -0.8],
      template_means: over.means ?? [-0.5, -1.5, -1],
      stability_iqr_logit: 0.5,
      planned_units: 6,
      attempted: 6,
      valid_count: 5,
      cache_hits: 3,
      invalid_reasons: { no_json: 1, has_url: 1, out_of_range: 2 },
    },
    quality: { pqs: 70, pqs_version: "v1", gate_compliance_ok: 1, gate_stability_ok: 0, gate_precision_ok: 1 },
    plan: {
      T_bank: 16,
      rotation_offset: 0,
      T_stage: 16,
      tpl_indices: [],
      seq: [],
      planned_counts: [],
      planned_imbalance_ratio: 1,
    },
  };
}

function sample(key: string, paraphrase: number, r: number, logitValue: number | null, valid = true): RplSample {
  return {
    evaluator: "rpl",
    seq: 0,
    unit_id: `s.${key}.r${r}`,
    status: valid ? "succeeded" : "failed",
    attempts: 1,
    calls: null,
    error: null,
    created_at: "2026-01-01T00:00:00.000Z",
    output: {
      slot: 0,
      r,
      cache_key: null,
      prompt_sha256: key,
      paraphrase_idx: paraphrase,
      replicate_idx: r,
      prob_true: logitValue === null ? null : sigmoid(logitValue),
      logit: logitValue,
      json_valid: valid,
      invalid_reason: valid ? null : "no_json",
      error: null,
      provider_model_id: null,
      response_id: null,
      tokens_out: null,
      latency_ms: null,
      cache_hit: false,
    },
  };
}

describe("logit space", () => {
  it("maps logits to probabilities and back", () => {
    expect(sigmoid(0)).toBe(0.5);
    // sigmoid(ln 3) = 1 / (1 + 1/3) = 0.75
    expect(sigmoid(Math.log(3))).toBeCloseTo(0.75, 15);
    expect(logit(0.75)).toBeCloseTo(Math.log(3), 15);
    expect(logit3(-1.18592555)).toBe("-1.186");
  });

  it("puts round probabilities on the right axis: 0.02 apart between p = 0.2 and 0.3", () => {
    // Steps 0.001…0.01 give 101, 51, 21, 11 ticks (> 8); 0.02 gives 0.20, 0.22, …, 0.30 (6).
    const ticks = probabilityTicks(logit(0.2), logit(0.3));
    expect(ticks.map((t) => Number(sigmoid(t).toFixed(6)))).toEqual([0.2, 0.22, 0.24, 0.26, 0.28, 0.3]);
    // Over almost all of (0, 1) the coarsest step, 0.2, leaves out 0 and 1: 0.2, 0.4, 0.6, 0.8.
    expect(probabilityTicks(-10, 10).map((t) => Number(sigmoid(t).toFixed(6)))).toEqual([0.2, 0.4, 0.6, 0.8]);
  });
});

describe("template points", () => {
  const samples = [
    sample("k1", 5, 1, -0.4),
    sample("k1", 5, 0, -0.6),
    sample("k2", 2, 0, -1.5),
    sample("k2", 2, 1, null, false),
  ];

  it("pairs the i-th template mean with the i-th key, labels it by paraphrase, and orders by paraphrase", () => {
    const points = templatePoints(result(), samples);
    // k2 is paraphrase 2, k1 paraphrase 5, k3 has no sample (last, labelled by its position).
    expect(points).toEqual([
      { key: "k2", paraphrase: 2, count: 1, mean: -1.5, logits: [-1.5] },
      { key: "k1", paraphrase: 5, count: 2, mean: -0.5, logits: [-0.6, -0.4] },
      { key: "k3", paraphrase: null, count: 2, mean: -1, logits: [] },
    ]);
    expect(points.map(templateLabel)).toEqual(["P2", "P5", "#3"]);
  });

  it("keeps the result's order without samples", () => {
    expect(templatePoints(result()).map((p) => [p.key, p.mean])).toEqual([
      ["k1", -0.5],
      ["k2", -1.5],
      ["k3", -1],
    ]);
  });

  it("spreads a template's samples evenly over ±0.15", () => {
    expect([jitter(0, 1), jitter(0, 3), jitter(1, 3), jitter(2, 3)]).toEqual([0, -0.15, 0, 0.15]);
  });

  it("draws the CI band, the center, the samples and the means on one logit scale", () => {
    const r = result();
    const points = templatePoints(r, samples);
    // Values span -1.5 (k2) to -0.4 (a k1 sample): 1.1, padded by 0.11 each side.
    const range = logitRange(points, r);
    expect(range.min).toBeCloseTo(-1.61, 12);
    expect(range.max).toBeCloseTo(-0.29, 12);
    const config = templateStripConfig(r, points);
    const [lower, upper, center, dots, means] = config.data.datasets;
    expect(lower.data).toEqual([
      { x: -0.5, y: -1.2 },
      { x: 2.5, y: -1.2 },
    ]);
    expect(upper.data).toEqual([
      { x: -0.5, y: -0.8 },
      { x: 2.5, y: -0.8 },
    ]);
    expect(upper).toMatchObject({ fill: "-1" });
    expect(center.data).toEqual([
      { x: -0.5, y: -1 },
      { x: 2.5, y: -1 },
    ]);
    expect(dots.data).toEqual([
      { x: 0, y: -1.5, label: "P2" },
      { x: 1 - 0.15, y: -0.6, label: "P5" },
      { x: 1 + 0.15, y: -0.4, label: "P5" },
    ]);
    expect(means.data).toEqual([
      { x: 0, y: -1.5, label: "P2" },
      { x: 1, y: -0.5, label: "P5" },
      { x: 2, y: -1, label: "#3" },
    ]);
    expect(config.options?.scales?.y).toMatchObject({ min: range.min, max: range.max });
    expect(config.options?.scales?.y1).toMatchObject({ min: range.min, max: range.max, position: "right" });
  });

  it("shows p on its CI over the whole probability axis", () => {
    const config = probabilityConfig(result());
    expect(config.data.datasets[0].data).toEqual([
      { x: 0.2, y: 0 },
      { x: 0.3, y: 0 },
    ]);
    expect(config.data.datasets[1].data).toEqual([{ x: 0.25, y: 0 }]);
    expect(config.options?.scales?.x).toMatchObject({ min: 0, max: 1 });
  });
});

describe("cards and reasons", () => {
  it("shows p, CI, stability, compliance and cache hits, each toned by its gate", () => {
    expect(rplCards(result()).map((c) => [c.label, c.value, c.tone ?? ""])).toEqual([
      ["prob_true (RPL)", "25.0%", ""],
      ["95% CI", "20.0% – 30.0%", ""],
      ["CI width", "10.0%", "ok"],
      ["stability", "0.667 (medium)", "bad"],
      ["compliance", "80.0%", "ok"],
      ["cache hit rate", "50.0%", ""],
      ["PQS", "70", ""],
      ["templates · imbalance", "3 · 2.00", ""],
    ]);
  });

  it("lists invalid reasons by count, ties by name", () => {
    expect(invalidReasons(result())).toEqual([
      { reason: "out_of_range", count: 2 },
      { reason: "has_url", count: 1 },
      { reason: "no_json", count: 1 },
    ]);
  });
});

describe("Auto-RPL stages", () => {
  const stage = (id: string, ci_width: number, stability_score: number, imbalance_ratio = 1) => ({
    stage_id: id,
    T: 8,
    K: 8,
    R: 2,
    prob_true_rpl: 0.7,
    ci95: [0.65, 0.75] as [number, number],
    ci_width,
    stability_score,
    imbalance_ratio,
    cache_hit_rate: 0,
    decision: "d",
    reason: "r",
    warnings: [],
  });
  const auto: RplAuto = {
    controller: {
      policy: "p",
      start: { T: 8, K: 8, R: 2 },
      ceilings: { T: 16, K: 16, R: 3 },
      gates: { ci_width_max: 0.2, stability_min: 0.7, imbalance_max: 1.5 },
    },
    stages: [stage("S1-aa", 0.25, 0.5), stage("S2-bb", 0.2, 0.7, 1.6)],
    decision_log: [],
  };

  it("names the gates a stage fails (the bounds themselves pass)", () => {
    expect(failingGates(auto.stages[0], auto.controller.gates)).toEqual(["ci_width", "stability"]);
    expect(failingGates(auto.stages[1], auto.controller.gates)).toEqual(["imbalance"]);
  });

  it("draws CI width and stability per stage with the two gates flat across", () => {
    const config = stagesConfig(auto);
    expect(config.data.labels).toEqual(["S1 (T8 K8 R2)", "S2 (T8 K8 R2)"]);
    expect(config.data.datasets.map((d) => d.data)).toEqual([
      [0.25, 0.2],
      [0.2, 0.2],
      [0.5, 0.7],
      [0.7, 0.7],
    ]);
  });
});
