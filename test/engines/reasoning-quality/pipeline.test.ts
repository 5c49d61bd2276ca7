// End-to-end pipeline parity (spec §1, §10): every `kind: "pipeline"` line of metric_vectors.jsonl, driven by
// its model_script through an injected generate(). Checked per line: the call log, the stored records, per_item
// and raw (1e-12), raw_metrics (exact), aggregated with the config.yaml weights (1e-12), per_dataset and
// metadata. Options reproduce [C]: the API step rule, RS/ES as [C] (CODE_PARITY).
//
// QUIRK lines (README "Quirk lines"): [C]'s per-dataset breakdown re-found each item's record by list.index()
// or by question_id, and filtered on the raw dataset field. We group the stored records by position and by
// their own dataset label instead (metrics.ts groupByDataset), so:
// - identical item dicts each keep their own record (pipe_duplicate_items_quirk);
// - items sharing a question_id each keep their own record (pipe_shared_question_id_quirk);
// - untagged items form the "unknown" subset instead of being dropped (pipe_unknown_dataset_group).
// Those lines match the reference everywhere except the corrupted subsets, which get their own tests; the
// expected subset values there are recomputed from the reference's own stored records for that subset.
import { describe, expect, it } from "vitest";
import {
  aggregateAll,
  buildRecord,
  computeMetrics,
  evaluateItems,
  evaluateRecords,
  planItem,
  plannedCalls,
  runCounts,
  tokenCount,
  type EvaluateOptions,
  type EvaluationResult,
  type Generate,
  type ItemRecord,
} from "../../../src/engines/reasoning-quality/index.ts";
import { CODE_PARITY, closeRecord, expectPerItem, vectors } from "./support.ts";

const pipelines = vectors("metric_vectors.jsonl").filter((v) => v.kind === "pipeline");
const byId = (id: string) => pipelines.find((v) => v.id === id);
const QUIRK_SUBSETS: Record<string, string[]> = {
  pipe_duplicate_items_quirk: ["a"],
  pipe_shared_question_id_quirk: ["x"],
  pipe_unknown_dataset_group: ["unknown"],
};

/** A generate() that plays model_script: each prompt's outcomes in call order; logs like `expected.calls`. */
function scripted(script: Record<string, any[]>) {
  const queues = new Map(Object.entries(script).map(([k, v]) => [k, [...v]]));
  const calls: [string, any][] = [];
  const generate: Generate = async (prompt) => {
    const next = queues.get(prompt)?.shift();
    if (next === undefined) throw new Error(`script has no outcome left for ${JSON.stringify(prompt)}`);
    calls.push([prompt, next]);
    if ("raise" in next) throw new Error(next.raise);
    return { text: next.response, output_tokens: next.output_tokens };
  };
  return { generate, calls };
}

function parityOptions(v: any): EvaluateOptions {
  return { metrics: v.metrics_config, stepRule: "api", weights: v.aggregation_table, ...CODE_PARITY };
}

async function run(v: any, options: EvaluateOptions = parityOptions(v)): Promise<{ result: EvaluationResult; calls: [string, any][] }> {
  const { generate, calls } = scripted(v.model_script);
  const result = await evaluateItems(v.items, generate, options);
  return { result, calls };
}

/** The reference's stored records as ItemRecords (they already use the evaluator's field names). */
const referenceRecords = (v: any): ItemRecord[] => v.expected.records;

function expectDataset(actual: any, expected: any, label: string) {
  expect(actual.num_samples, label).toBe(expected.num_samples);
  expect(actual.raw_metrics, label).toEqual(expected.raw_metrics);
  closeRecord(actual.aggregated, expected.aggregated, `${label} aggregated`);
}

describe("metric_vectors.jsonl, kind pipeline", () => {
  it("reads every line", () => expect(pipelines.length).toBe(12));

  it.each(pipelines.map((v) => [`${v.id} ${v.note}`, v]))("%s", async (_n, v: any) => {
    const e = v.expected;
    const { result, calls } = await run(v);
    expect(calls).toEqual(e.calls);
    expect(result.records.length).toBe(e.records.length);
    result.records.forEach((r, i) => {
      const picked = Object.fromEntries(Object.keys(e.records[i]).map((k) => [k, (r as any)[k]]));
      expect(picked, `record ${i}`).toEqual(e.records[i]);
    });
    expectPerItem(result.per_item, e.per_item, v.id);
    closeRecord(result.raw as any, e.raw, `${v.id} raw`);
    expect(result.raw_metrics).toEqual(e.raw_metrics);
    expect(Object.keys(result.aggregated)).toEqual(Object.keys(e.aggregated));
    closeRecord(result.aggregated, e.aggregated, `${v.id} aggregated`);
    const { datasets, ...metadata } = result.metadata;
    expect(metadata).toEqual(e.metadata);
    expect(datasets).toEqual(e.datasets_sorted);
    const fixed = QUIRK_SUBSETS[v.id] ?? [];
    for (const [name, expected] of Object.entries(e.per_dataset)) if (!fixed.includes(name)) expectDataset(result.per_dataset[name], expected, `${v.id} ${name}`);
    const names = Object.keys(result.per_dataset);
    expect(names).toEqual([...new Set([...Object.keys(e.per_dataset), ...fixed])].sort());
    expect(result.extensions).toMatchObject({ cq_matcher: "canonical", ls_method: "lexical", ss_method: "jaccard", step_rule: "api", rs_skipped: false });
  });
});

describe("per-dataset QUIRK fixes", () => {
  /** What a subset must hold: the metrics of exactly these reference records, aggregated with config.yaml. */
  async function subsetOf(v: any, indices: number[]) {
    const m = await computeMetrics(
      indices.map((i) => referenceRecords(v)[i]),
      v.metrics_config,
      CODE_PARITY,
    );
    return { raw_metrics: m.raw_metrics, aggregated: aggregateAll(m.raw_metrics, v.aggregation_table), num_samples: indices.length };
  }

  it("pipe_duplicate_items_quirk: identical item dicts each keep their own record", async () => {
    const v = byId("pipe_duplicate_items_quirk");
    const { result } = await run(v);
    // Items 0 and 1 are equal dicts; the model answered "4" (right) the first time and "5" (wrong) the second.
    expectDataset(result.per_dataset.a, await subsetOf(v, [0, 1]), "a");
    expect(result.per_dataset.a.raw_metrics.correctness).toBe(0.5);
    // [C] reused the first record twice and reported CQ 1.0 for "a".
    expect(v.expected.per_dataset.a.raw_metrics.correctness).toBe(1.0);
  });

  it("pipe_shared_question_id_quirk: items sharing a question_id each keep their own record", async () => {
    const v = byId("pipe_shared_question_id_quirk");
    const { result } = await run(v);
    // Dataset x holds only the snow item, answered "Yes." (right).
    expectDataset(result.per_dataset.x, await subsetOf(v, [0]), "x");
    expect(result.per_dataset.x.raw_metrics.correctness).toBe(1.0);
    // [C]'s cache kept the last record under "q1" (the coal item of dataset y), so x read y's wrong answer.
    expect(v.expected.per_dataset.x.raw_metrics.correctness).toBe(0.0);
    expect(result.records.map((r) => r.question_id)).toEqual(["q1", "q1", "q2"]);
  });

  it("pipe_unknown_dataset_group: untagged items form the 'unknown' subset", async () => {
    const v = byId("pipe_unknown_dataset_group");
    const { result } = await run(v);
    expectDataset(result.per_dataset.unknown, await subsetOf(v, [1]), "unknown");
    // [C] listed "unknown" among the dataset names but its subset matched nothing, so it was dropped.
    expect(v.expected.datasets_sorted).toContain("unknown");
    expect(v.expected.per_dataset.unknown).toBeUndefined();
    const counted = Object.values(result.per_dataset).reduce((n, d) => n + d.num_samples, 0);
    expect(counted).toBe(v.items.length);
  });
});

describe("spec [D] defaults on the pipeline lines", () => {
  it("§4: items without perturbations are skipped for RS (pipe_missing_perturbations)", async () => {
    const v = byId("pipe_missing_perturbations");
    const { result } = await run(v, { metrics: v.metrics_config, stepRule: "api", weights: v.aggregation_table });
    expect(result.records.map((r) => r.has_perturbations)).toEqual([false, true, false]);
    // Only the cat item (one perturbation, P = 3) is left in C; [C] averaged it with two zeros.
    expect(result.raw.robustness).toBe(v.expected.per_item.rs[1]);
    expect(v.expected.raw.robustness).toBe(v.expected.per_item.rs[1] / 3);
  });

  it("§4: RS is null and Q renormalised when no item has perturbations", async () => {
    const v = byId("pipe_missing_perturbations");
    const items = v.items.map(({ perturbations: _p, ...rest }: any) => rest);
    const { generate } = scripted(v.model_script);
    const result = await evaluateItems(items, generate, { metrics: v.metrics_config, stepRule: "api", weights: "config_yaml" });
    expect(result.raw_metrics.robustness).toBeNull();
    expect(result.extensions.rs_skipped).toBe(true);
    const zero = aggregateAll(result.raw_metrics, "config_yaml", { missingMetric: "zero" });
    expect(result.aggregated.balanced).toBeGreaterThan(zero.balanced);
  });

  it("§6: a failed primary is left out of ES's min–max (pipe_failed_primary)", async () => {
    const v = byId("pipe_failed_primary");
    const { result } = await run(v, { metrics: v.metrics_config, stepRule: "api", weights: v.aggregation_table });
    // The only successful item sets both T_min and T_max, so T' = 0 and ES_i = 2·1·1/(1+1) = 1.
    expect(result.per_item.es).toEqual([0, 1]);
    expect(result.raw.efficiency).toBe(0.5);
    expect(v.expected.raw.efficiency).toBe(0.0);
  });

  it("default step rule is legacy_dot, the default preset paper-v8 (= config.yaml weights)", async () => {
    const v = byId("pipe_three_datasets");
    const { result } = await run(v, { metrics: v.metrics_config, ...CODE_PARITY });
    expect(result.extensions.step_rule).toBe("legacy_dot");
    expect(result.extensions.preset_version).toBe("paper-v8");
    // No response of this line has a newline or is blank, so both rules give the same steps.
    closeRecord(result.aggregated, v.expected.aggregated, "aggregated");
  });
});

describe("call plan and record building (for an API layer)", () => {
  it("plans K−1 extra runs and one call per usable perturbation among the first P", () => {
    const v = byId("pipe_perturbation_failures");
    const plan = planItem(v.items[0], 0, { metrics: v.metrics_config });
    expect(plan.primary).toEqual({ kind: "primary", prompt: v.items[0].question, run: 1 });
    expect(plan.extras.map((c) => c.run)).toEqual([2, 3]);
    // Slot 1 is empty, slot 2 equals the question after trimming, the 4th perturbation is beyond P = 3.
    expect(plan.perturbations).toEqual([{ kind: "perturbation", prompt: "Add 6 and 7.", slot: 0 }, null, null]);
    expect(plannedCalls(plan).length).toBe(4);
  });

  it("builds the same record from outcomes run out of order", async () => {
    const v = byId("pipe_failed_extra_runs");
    const item = v.items[0];
    const plan = planItem(item, 0, { metrics: v.metrics_config, stepRule: "api" });
    const [primary, failedRun, run3] = v.model_script[item.question];
    const record = buildRecord(
      item,
      plan,
      {
        primary: { ok: true, text: primary.response, output_tokens: primary.output_tokens },
        extras: [{ ok: false, error: failedRun.raise }, { ok: true, text: run3.response, output_tokens: run3.output_tokens }],
        perturbations: plan.perturbations.map((c) => ({ ok: true, text: v.model_script[c!.prompt][0].response })),
      },
      { metrics: v.metrics_config, stepRule: "api" },
    );
    const expected = v.expected.records[0];
    expect(Object.fromEntries(Object.keys(expected).map((k) => [k, (record as any)[k]]))).toEqual(expected);
  });

  it("a failed primary skips its other calls and leaves one empty slot per perturbation", () => {
    const v = byId("pipe_failed_primary");
    const plan = planItem(v.items[0], 0, { metrics: v.metrics_config });
    const record = buildRecord(v.items[0], plan, { primary: { ok: false, error: "down" } });
    expect(record).toMatchObject(v.expected.records[0]);
    expect(record.token_count_method).toBe("failed");
  });

  it("evaluateRecords reproduces the result from the reference's stored records alone", async () => {
    const v = byId("pipe_three_datasets");
    const result = await evaluateRecords(referenceRecords(v), parityOptions(v));
    expect(result.raw_metrics).toEqual(v.expected.raw_metrics);
    for (const [name, d] of Object.entries(v.expected.per_dataset)) expectDataset(result.per_dataset[name], d, name);
  });

  it("token counts: provider first; null, negative or non-finite → the fallback counter", () => {
    expect(tokenCount({ text: "a b c", output_tokens: 7 })).toEqual({ count: 7, method: "provider" });
    expect(tokenCount({ text: "a b c", output_tokens: 0 })).toEqual({ count: 0, method: "provider" });
    expect(tokenCount({ text: "a b c", output_tokens: null })).toEqual({ count: 3, method: "whitespace" });
    expect(tokenCount({ text: "a b c", output_tokens: -5 })).toEqual({ count: 3, method: "whitespace" });
    expect(tokenCount({ text: "a b c", output_tokens: Number.NaN })).toEqual({ count: 3, method: "whitespace" });
    expect(tokenCount({ text: "abcdef", output_tokens: null }, { name: "chars/2", count: (t) => t.length / 2 })).toEqual({ count: 3, method: "chars/2" });
  });

  it("reports the token method of the run", async () => {
    const v = byId("pipe_empty_response_and_tokens");
    const { result } = await run(v);
    expect(result.records.map((r) => r.token_count_method)).toEqual(["provider", "whitespace", "whitespace"]);
    expect(result.extensions.token_count_method).toBe("mixed");
  });

  it("generates max(consistency_runs, stability_runs) runs and rejects bad counts", () => {
    expect(runCounts({ consistency_runs: 3, stability_runs: 5 }).generations).toBe(5);
    expect(runCounts({}).generations).toBe(3);
    expect(() => runCounts({ robustness_perturbations: -1 })).toThrow(RangeError);
    expect(() => runCounts({ consistency_runs: 2.5 })).toThrow(RangeError);
  });

  it("concurrent items give the same records as the sequential order", async () => {
    const v = byId("pipe_three_datasets");
    // Every prompt of this line is distinct per item, so the script is order-independent across items.
    const { generate } = scripted(v.model_script);
    const result = await evaluateItems(v.items, generate, { ...parityOptions(v), concurrency: 3 });
    expect(result.raw_metrics).toEqual(v.expected.raw_metrics);
  });
});
