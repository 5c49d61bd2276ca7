// End-to-end pipeline parity (spec §1, §10): every `kind: "pipeline"` line of metric_vectors.jsonl, driven by its
// model_script through an injected generate(), expected values read losslessly. Checked per line: the call log
// and the stored records (exact), per_item and raw (1e-12), raw_metrics (exact), aggregated with the line's
// weight table (1e-12, strategy order exact), per_dataset and metadata. Options reproduce [C]: the API step rule,
// RS/ES as [C] (CODE_PARITY).
//
// Per-dataset breakdown: [C] re-found each item's record by question_id in a dict (the last record with an id
// wins) or by list.index(item) (identical item dicts all reuse the first record), and filtered on the raw
// `dataset` field (untagged items form no subset). We group the stored records by position and by their own
// label instead (metrics.ts groupByDataset), so identical items and shared question_ids keep their own records
// and untagged items form `unknown` (the README's deliberate differences). The tests model [C]'s lookup from
// each line's own items and records: a subset where [C] read exactly the records we group must equal the
// reference; a subset where it did not is a deliberate difference, checked against the metrics of the
// reference's own stored records (ours) and of the records [C] read (the reference's value). The differences
// also have self-contained tests with hand-derived values, as do the [D] RS/ES defaults.
import { describe, expect, it } from "vitest";
import {
  aggregateAll,
  buildRecord,
  computeMetrics,
  evaluateItems,
  evaluateRecords,
  groupByDataset,
  planItem,
  plannedCalls,
  round4,
  runCounts,
  splitSteps,
  tokenCount,
  type CallOutcome,
  type EvaluateOptions,
  type EvaluationResult,
  type Generate,
  type ItemRecord,
} from "../../../src/engines/reasoning-quality/index.ts";
import { pyStrip } from "../../../src/engines/python/index.ts";
import { itEachCase } from "../../support/reference.ts";
import {
  CODE_PARITY,
  TOL,
  closeList,
  closeTo,
  describeRq,
  expectPy,
  pyEquals,
  vectorLines,
  type VectorLine,
} from "./support.ts";

type Outcome = { response: string; output_tokens: number | null } | { raise: string };

/** A generate() that plays a model script: each prompt's outcomes in call order; logs `[prompt, outcome]` like `expected.calls`. */
function scripted(script: Record<string, Outcome[]>) {
  const queues = new Map(Object.entries(script).map(([k, v]) => [k, [...v]]));
  const calls: [string, Outcome][] = [];
  const generate: Generate = async (prompt) => {
    const next = queues.get(prompt)?.shift();
    if (next === undefined) throw new Error(`script has no outcome left for ${JSON.stringify(prompt)}`);
    calls.push([prompt, next]);
    if ("raise" in next) throw new Error(next.raise);
    return { text: next.response, output_tokens: next.output_tokens };
  };
  return { generate, calls };
}

/** The README: `expected.aggregated` uses config/config.yaml's weights; lines name the table in `aggregation_table`. */
const tableOf = (v: any) => v.aggregation_table ?? "config_yaml";

function parityOptions(v: any): EvaluateOptions {
  return { metrics: v.metrics_config, stepRule: "api", weights: tableOf(v), ...CODE_PARITY };
}

async function run(
  v: any,
  options: EvaluateOptions = parityOptions(v),
): Promise<{ result: EvaluationResult; calls: [string, Outcome][] }> {
  const { generate, calls } = scripted(v.model_script);
  const result = await evaluateItems(v.items, generate, options);
  return { result, calls };
}

/** What [C]'s evaluator called for one item, cut from `expected.calls` (max_workers 1: items run in order). */
type ItemCalls = { primary: Outcome; extras: Outcome[]; slots: (string | null)[]; perturbations: (Outcome | null)[] };

/**
 * [C]'s call plan, from evaluator.py `_process_item` (README "Call order per item"): the primary; when it did not
 * raise, K−1 more runs (K = consistency_runs, the evaluator's own default 3), then one call per perturbation among
 * the first P that is non-empty and differs from the question after strip(). Returns the calls per item, or
 * throws when `expected.calls` does not follow that plan.
 */
function callsPerItem(v: any): ItemCalls[] {
  const calls: [string, Outcome][] = v.expected.calls;
  const k = v.metrics_config.consistency_runs ?? 3;
  const p = v.metrics_config.robustness_perturbations ?? 3;
  let at = 0;
  const take = (prompt: string): Outcome => {
    const c = calls[at++];
    if (!c || c[0] !== prompt)
      throw new Error(
        `expected.calls[${at - 1}] is ${JSON.stringify(c?.[0])}, the plan says ${JSON.stringify(prompt)}`,
      );
    return c[1];
  };
  const out = (v.items as any[]).map((item): ItemCalls => {
    const primary = take(item.question);
    const failed = "raise" in primary;
    const slots = ((item.perturbations ?? []) as string[])
      .slice(0, p)
      .map((s) => (failed || !s || pyStrip(String(s)) === pyStrip(item.question) ? null : s));
    if (failed) return { primary, extras: [], slots, perturbations: slots.map(() => null) };
    const extras = Array.from({ length: Math.max(0, k - 1) }, () => take(item.question));
    return { primary, extras, slots, perturbations: slots.map((s) => (s === null ? null : take(s))) };
  });
  if (at !== calls.length) throw new Error(`${calls.length - at} calls of expected.calls are left over`);
  return out;
}

const outcome = (o: Outcome | null | undefined): CallOutcome | undefined =>
  o === null || o === undefined
    ? undefined
    : "raise" in o
      ? { ok: false, error: o.raise }
      : { ok: true, text: o.response, output_tokens: o.output_tokens };

/** Our dataset subset against an expected one: num_samples and raw_metrics exact, aggregated 1e-12. */
function expectDataset(actual: any, expected: any, label: string) {
  expect(actual, label).toBeDefined();
  expectPy(actual.num_samples, expected.num_samples, `${label} num_samples`, { numbers: "int" });
  expectPy(actual.raw_metrics, expected.raw_metrics, `${label} raw_metrics`, { numbers: "float" });
  expectPy(actual.aggregated, expected.aggregated, `${label} aggregated`, { tol: TOL, numbers: "float" });
}

/** The metrics of exactly these reference records, aggregated with the line's table (our computation, plain numbers). */
async function subsetOf(v: any, indices: number[]) {
  const records: ItemRecord[] = v.expected.records;
  const m = await computeMetrics(
    indices.map((i) => records[i]),
    v.metrics_config,
    CODE_PARITY,
  );
  return {
    raw_metrics: m.raw_metrics,
    aggregated: aggregateAll(m.raw_metrics, tableOf(v)),
    num_samples: indices.length,
  };
}

/**
 * [C]'s breakdown (evaluator.py evaluate_model + _compute_metrics_cached) from the line's own data: for each name
 * of `datasets_sorted` (only when there are several), the items whose raw `dataset` field equals it, each looked
 * up in a dict of the stored records keyed by question_id (filled in order, so the last record with an id wins)
 * under str(item.get("question_id", items.index(item))), i.e. the stored question_id of the first item equal to
 * it. Record indices per name; an empty subset is left out. null when a lookup would miss (then [C] generated
 * afresh, which this model does not cover).
 */
function codeBreakdown(v: any): Map<string, number[]> | null {
  const e = v.expected;
  const out = new Map<string, number[]>();
  if (e.datasets_sorted.length <= 1) return out;
  const byQuestionId = new Map<string, number>();
  (e.records as any[]).forEach((r, j) => byQuestionId.set(r.question_id, j));
  for (const name of e.datasets_sorted as string[]) {
    const picked: number[] = [];
    for (const item of v.items as any[]) {
      if (item.dataset !== name) continue;
      const first = (v.items as any[]).findIndex((x) => pyEquals(x, item));
      const j = byQuestionId.get(e.records[first].question_id);
      if (j === undefined) return null;
      picked.push(j);
    }
    if (picked.length > 0) out.set(name, picked);
  }
  return out;
}

/** Subset names where [C] read exactly the records we group (`same`) and where it did not (`differing`). */
function breakdownSplit(v: any, records: readonly ItemRecord[]) {
  const code = codeBreakdown(v);
  const ours = new Map(groupByDataset(records).map((g) => [g.name, g.indices]));
  const names = [...new Set([...ours.keys(), ...(code?.keys() ?? [])])].sort();
  const same = names.filter((n) => code !== null && ours.has(n) && code.has(n) && pyEquals(ours.get(n), code.get(n)));
  return { code, ours, same, differing: names.filter((n) => !same.includes(n)) };
}

/** The README's §4 [D] notion: the item lists at least one non-blank perturbation. */
const hasPerturbations = (item: any) =>
  Array.isArray(item.perturbations) &&
  item.perturbations.some((p: unknown) => typeof p === "string" && pyStrip(p) !== "");
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

describeRq("metric_vectors.jsonl, kind pipeline", ["metric_vectors.jsonl"], (ref) => {
  const pipelines = vectorLines(ref, "metric_vectors.jsonl").filter((l) => l.value.kind === "pipeline");
  const name = (l: VectorLine) => `${l.label} ${l.value.note ?? ""}`;

  itEachCase(pipelines, name, "pipeline line in metric_vectors.jsonl", async (l) => {
    const v = l.value;
    const e = l.exact.expected;
    const { result, calls } = await run(v);
    // The log echoes the script (input side), so output_tokens keep whatever kind the line gives them.
    expectPy(calls, e.calls, `${l.label} calls`);
    expectPy(result.records, e.records, `${l.label} records`, { extraKeys: true, numbers: "int" });
    expectPy(result.per_item, e.per_item, `${l.label} per_item`, { tol: TOL, numbers: "float" });
    expectPy(result.raw, e.raw, `${l.label} raw`, { tol: TOL, numbers: "float" });
    expectPy(result.raw_metrics, e.raw_metrics, `${l.label} raw_metrics`, { numbers: "float" });
    expect(Object.keys(result.aggregated)).toEqual(Object.keys(v.expected.aggregated));
    expectPy(result.aggregated, e.aggregated, `${l.label} aggregated`, { tol: TOL, numbers: "float" });
    const { datasets, ...metadata } = result.metadata;
    expectPy(metadata, e.metadata, `${l.label} metadata`, { numbers: "int" });
    expectPy(datasets, e.datasets_sorted, `${l.label} datasets`);
    // The breakdown: our subsets are our groups; where [C] read the same records, the reference's values.
    const split = breakdownSplit(v, result.records);
    expect(Object.keys(result.per_dataset)).toEqual([...split.ours.keys()]);
    if (split.code) expect(Object.keys(v.expected.per_dataset).sort()).toEqual([...split.code.keys()].sort());
    for (const n of split.same) expectDataset(result.per_dataset[n], e.per_dataset[n], `${l.label} per_dataset.${n}`);
    expect(result.extensions).toMatchObject({
      cq_matcher: "canonical",
      ls_method: "lexical",
      ss_method: "jaccard",
      step_rule: "api",
      rs_skipped: false,
    });
  });

  const differing = pipelines.filter((l) => breakdownSplit(l.value, l.value.expected.records).differing.length > 0);
  itEachCase(
    differing,
    (l) => `breakdown fixes on ${name(l)}`,
    "pipeline line whose [C] breakdown reads other records than its own (identical items, shared question_id, untagged items)",
    async (l) => {
      const v = l.value;
      const { result } = await run(v);
      const split = breakdownSplit(v, result.records);
      expect(split.differing.length).toBeGreaterThan(0);
      for (const n of split.differing) {
        const ours = split.ours.get(n);
        expect(ours, `[C] has a subset "${n}" that we lack`).toBeDefined();
        // Ours: the metrics of exactly the records of this dataset, from the reference's stored records.
        expect(result.per_dataset[n], `${l.label} ours ${n}`).toEqual(await subsetOf(v, ours!));
        expect(result.per_dataset[n].num_samples).toBe(ours!.length);
        // The reference: the metrics of the records [C] looked up (none when it dropped the subset).
        const code = split.code?.get(n);
        if (split.code && code === undefined) expect(v.expected.per_dataset[n], `[C] dropped "${n}"`).toBeUndefined();
        if (code) expectDataset(await subsetOf(v, code), l.exact.expected.per_dataset[n], `${l.label} [C] ${n}`);
      }
      // Every record lands in exactly one of our subsets.
      expect(Object.values(result.per_dataset).reduce((s, d) => s + d.num_samples, 0)).toBe(v.items.length);
    },
  );

  // The README flags the duplicate-item and shared-question_id lines QUIRK: the model above must see a difference there.
  const quirks = pipelines.filter((l) => /QUIRK/.test(l.value.note ?? ""));
  itEachCase(
    quirks,
    (l) => `QUIRK line has a breakdown difference: ${name(l)}`,
    "pipeline line flagged QUIRK",
    (l) => {
      expect(breakdownSplit(l.value, l.value.expected.records).differing.length).toBeGreaterThan(0);
    },
  );

  // §4 [D] on the reference lines: an item without perturbations leaves C. Expected values follow from the line:
  // C_D = {i in [C]'s C with perturbations}; RS = mean of [C]'s RS_i over C_D, 0 when C_D is empty, null when no
  // item has perturbations at all. Everything else is unchanged.
  const withoutPerturbations = pipelines.filter((l) => !l.value.items.every(hasPerturbations));
  itEachCase(
    withoutPerturbations,
    (l) => `§4 [D] RS on ${name(l)}`,
    "pipeline line with an item without perturbations",
    async (l) => {
      const v = l.value;
      const e = v.expected;
      const { result } = await run(v, { ...parityOptions(v), rsWithoutPerturbations: "skip" });
      const has = v.items.map(hasPerturbations);
      const inC = e.per_item.in_C.map((c: boolean, i: number) => c && has[i]);
      expect(result.records.map((r) => r.has_perturbations)).toEqual(has);
      expect(result.per_item.in_C).toEqual(inC);
      const rs = e.per_item.rs.filter((_: number, i: number) => inC[i]);
      closeTo(result.raw.robustness, has.some(Boolean) ? (rs.length ? mean(rs) : 0) : null);
      expect(result.extensions.rs_skipped).toBe(!has.some(Boolean));
      const { robustness: _r, ...rest } = l.exact.expected.raw;
      const { robustness: _o, ...ours } = result.raw;
      expectPy(ours, rest, `${l.label} other metrics`, { tol: TOL, numbers: "float" });
    },
  );

  // §6 [D] on the reference lines: failed generations leave ES's min–max. From the line's records: T_min/T_max
  // over the successful items; ES_i = 0 for a failed or wrong item, else 2c/(1+c) with c = 1 − T'.
  const failedPrimary = pipelines.filter((l) =>
    l.value.expected.records.some((r: any) => r.generation_failed === true),
  );
  itEachCase(
    failedPrimary,
    (l) => `§6 [D] ES on ${name(l)}`,
    "pipeline line with a failed primary generation",
    async (l) => {
      const v = l.value;
      const recs: any[] = v.expected.records;
      const { result } = await run(v, { ...parityOptions(v), esFailedInMinMax: false });
      const ok = recs.filter((r) => !r.generation_failed).map((r) => r.token_count as number);
      const [lo, hi] = [Math.min(...ok), Math.max(...ok)];
      const es = recs.map((r, i) => {
        if (r.generation_failed || v.expected.per_item.cq[i] !== 1) return 0;
        const c = 1 - (hi === lo ? 0 : (r.token_count - lo) / (hi - lo));
        return c === 0 ? 0 : (2 * c) / (1 + c);
      });
      closeList(result.per_item.es, es, "es");
      closeTo(result.raw.efficiency, mean(es));
    },
  );

  itEachCase(
    pipelines,
    (l) => `call plan of ${name(l)}`,
    "pipeline line",
    (l) => {
      const v = l.value;
      const k = v.metrics_config.consistency_runs ?? 3;
      callsPerItem(v).forEach((c, i) => {
        const item = v.items[i];
        const plan = planItem(item, i, { metrics: v.metrics_config });
        expect(plan.primary).toEqual({ kind: "primary", prompt: item.question, run: 1 });
        // §1.2 [D]: max(K, stability_runs) runs serve CS and SS; the first K − 1 extra runs are [C]'s.
        const { generations } = runCounts(v.metrics_config);
        expect(plan.extras.map((x) => x.run)).toEqual(Array.from({ length: generations - 1 }, (_, j) => j + 2));
        expect(plan.extras.length).toBeGreaterThanOrEqual(Math.max(0, k - 1));
        expect(plan.extras.every((x) => x.prompt === item.question)).toBe(true);
        if ("raise" in c.primary) return;
        expect(
          plan.perturbations.map((x) => x?.prompt ?? null),
          `item ${i} perturbation slots`,
        ).toEqual(c.slots);
        expect(plannedCalls(plan).length).toBe(1 + plan.extras.length + c.slots.filter((s) => s !== null).length);
      });
    },
  );

  itEachCase(
    pipelines,
    (l) => `buildRecord from the recorded outcomes of ${name(l)}`,
    "pipeline line",
    (l) => {
      const v = l.value;
      const config = { metrics: v.metrics_config, stepRule: "api" as const };
      callsPerItem(v).forEach((c, i) => {
        const plan = planItem(v.items[i], i, config);
        // Outcomes handed over as the units report them, in any order of completion; runs [C] did not make
        // (our §1.2 [D] extras) and failed calls are missing.
        const record = buildRecord(
          v.items[i],
          plan,
          {
            primary: outcome(c.primary)!,
            extras: plan.extras.map((_, j) => outcome(c.extras[j])),
            perturbations: c.perturbations.map(outcome),
          },
          config,
        );
        expectPy(record, l.exact.expected.records[i], `${l.label} record ${i}`, { extraKeys: true, numbers: "int" });
        if ("raise" in c.primary) expect(record.token_count_method).toBe("failed");
      });
    },
  );

  // §6 / §10: the token method of each record follows from its primary outcome: a raise is "failed", a
  // non-negative provider count "provider", a missing or negative one the whitespace fallback.
  itEachCase(
    pipelines,
    (l) => `token_count_method of ${name(l)}`,
    "pipeline line",
    async (l) => {
      const v = l.value;
      const methods = callsPerItem(v).map(({ primary }) =>
        "raise" in primary
          ? "failed"
          : typeof primary.output_tokens === "number" && Math.trunc(primary.output_tokens) >= 0
            ? "provider"
            : "whitespace",
      );
      const { result } = await run(v);
      expect(result.records.map((r) => r.token_count_method)).toEqual(methods);
      const used = [...new Set(methods.filter((m) => m !== "failed"))];
      expect(result.extensions.token_count_method).toBe(
        used.length === 0 ? "none" : used.length === 1 ? used[0] : "mixed",
      );
    },
  );

  itEachCase(
    pipelines,
    (l) => `evaluateRecords on the stored records of ${name(l)}`,
    "pipeline line",
    async (l) => {
      const v = l.value;
      const fromRecords = await evaluateRecords(v.expected.records, parityOptions(v));
      expectPy(fromRecords.raw_metrics, l.exact.expected.raw_metrics, `${l.label} raw_metrics`, { numbers: "float" });
      expectPy(fromRecords.aggregated, l.exact.expected.aggregated, `${l.label} aggregated`, {
        tol: TOL,
        numbers: "float",
      });
      const { result } = await run(v);
      expect(fromRecords.per_dataset).toEqual(result.per_dataset);
    },
  );

  // Concurrency needs a script whose prompts are not shared between items (each prompt's queue is per item).
  const disjoint = pipelines.filter((l) => {
    const owner = new Map<string, number>();
    for (const [i, item] of (l.value.items as any[]).entries())
      for (const p of [item.question, ...(item.perturbations ?? [])]) {
        if (owner.has(p) && owner.get(p) !== i) return false;
        owner.set(p, i);
      }
    return true;
  });
  itEachCase(
    disjoint,
    (l) => `concurrent items give the sequential result on ${name(l)}`,
    "pipeline line whose items share no prompt",
    async (l) => {
      const v = l.value;
      const { generate } = scripted(v.model_script);
      const result = await evaluateItems(v.items, generate, { ...parityOptions(v), concurrency: 3 });
      expectPy(result.records, l.exact.expected.records, `${l.label} records`, { extraKeys: true, numbers: "int" });
      expectPy(result.raw_metrics, l.exact.expected.raw_metrics, `${l.label} raw_metrics`, { numbers: "float" });
    },
  );

  // Defaults: step rule legacy_dot and preset paper-v8 (= config.yaml weights). They reproduce a config.yaml line
  // whose responses split the same under both rules.
  const sameSteps = pipelines.filter(
    (l) =>
      tableOf(l.value) === "config_yaml" &&
      Object.values(l.value.model_script as Record<string, Outcome[]>)
        .flat()
        .every((o) => "raise" in o || pyEquals(splitSteps(o.response, "api"), splitSteps(o.response, "legacy_dot"))),
  );
  itEachCase(
    sameSteps,
    (l) => `default options on ${name(l)}`,
    "config.yaml pipeline line whose responses split alike under the api and legacy_dot rules",
    async (l) => {
      const v = l.value;
      const { result } = await run(v, { metrics: v.metrics_config, ...CODE_PARITY });
      expect(result.extensions.step_rule).toBe("legacy_dot");
      expect(result.extensions.preset_version).toBe("paper-v8");
      expectPy(result.raw_metrics, l.exact.expected.raw_metrics, `${l.label} raw_metrics`, { numbers: "float" });
      expectPy(result.aggregated, l.exact.expected.aggregated, `${l.label} aggregated`, { tol: TOL, numbers: "float" });
    },
  );
});

// ---- self-contained tests: hand-made items and scripts, hand-derived expectations ---------------------------

const ok = (response: string, output_tokens: number | null = 1): Outcome => ({ response, output_tokens });
/** One run per item, no perturbation calls: CQ and the breakdown are all these tests look at. */
const ONE_RUN = { consistency_runs: 1, stability_runs: 1, robustness_perturbations: 0 };

describe("per-dataset breakdown: the README's deliberate differences from [C]", () => {
  it("identical item dicts each keep their own record", async () => {
    const item = { question: "What is 2 plus 2?", answer: "4", dataset: "a" };
    const { generate } = scripted({ "What is 2 plus 2?": [ok("4"), ok("5")], "What is 3 plus 3?": [ok("6")] });
    const result = await evaluateItems(
      [item, { ...item }, { question: "What is 3 plus 3?", answer: "6", dataset: "b" }],
      generate,
      { metrics: ONE_RUN },
    );
    // Dataset a holds both records: "4" (right) and "5" (wrong), so CQ = 1/2. [C]'s list.index() found the
    // first record for both items and reported CQ 1.0.
    expect(result.per_dataset.a.num_samples).toBe(2);
    expect(result.per_dataset.a.raw_metrics.correctness).toBe(0.5);
    expect(result.per_dataset.b.raw_metrics.correctness).toBe(1);
    expect(result.raw_metrics.correctness).toBe(round4(2 / 3));
  });

  it("items sharing a question_id each keep their own record", async () => {
    const { generate } = scripted({
      "Is snow white?": [ok("Yes.")],
      "Is coal white?": [ok("Yes.")],
      "Is milk white?": [ok("Yes.")],
    });
    const result = await evaluateItems(
      [
        { question: "Is snow white?", answer: "yes", dataset: "x", question_id: "q1" },
        { question: "Is coal white?", answer: "no", dataset: "y", question_id: "q1" },
        { question: "Is milk white?", answer: "yes", dataset: "y", question_id: "q2" },
      ],
      generate,
      { metrics: ONE_RUN },
    );
    expect(result.records.map((r) => r.question_id)).toEqual(["q1", "q1", "q2"]);
    // x holds only the snow item, answered right: CQ 1. [C]'s dict kept the last "q1" record (coal, wrong), so x read 0.
    expect(result.per_dataset.x).toMatchObject({ num_samples: 1, raw_metrics: { correctness: 1 } });
    // y: coal wrong, milk right.
    expect(result.per_dataset.y).toMatchObject({ num_samples: 2, raw_metrics: { correctness: 0.5 } });
  });

  it("untagged items form the 'unknown' subset", async () => {
    const { generate } = scripted({ "What is 4 plus 4?": [ok("8")], "Is 8 even?": [ok("No.")] });
    const result = await evaluateItems(
      [
        { question: "What is 4 plus 4?", answer: "8", dataset: "math" },
        { question: "Is 8 even?", answer: "yes" },
      ],
      generate,
      { metrics: ONE_RUN },
    );
    // [C] listed "unknown" among the names but its filter on the raw field matched nothing, so it was dropped.
    expect(result.metadata.datasets).toEqual(["math", "unknown"]);
    expect(Object.keys(result.per_dataset)).toEqual(["math", "unknown"]);
    expect(result.per_dataset.unknown).toMatchObject({ num_samples: 1, raw_metrics: { correctness: 0 } });
    expect(result.per_dataset.math).toMatchObject({ num_samples: 1, raw_metrics: { correctness: 1 } });
  });
});

describe("spec [D] defaults on the pipeline", () => {
  it("§4: items without perturbations are skipped for RS", async () => {
    const script = () =>
      scripted({
        "How many legs does a spider have?": [ok("8")],
        "How many legs does a cat have?": [ok("4")],
        "A cat has how many legs?": [ok("4")],
        "How many legs does a bird have?": [ok("2")],
        "How many sides does a square have?": [ok("4")],
      }).generate;
    const items = [
      { question: "How many legs does a spider have?", answer: "8" },
      { question: "How many legs does a cat have?", answer: "4", perturbations: ["A cat has how many legs?"] },
      { question: "How many legs does a bird have?", answer: "2", perturbations: [] },
      { question: "How many sides does a square have?", answer: "4", perturbations: [""] },
    ];
    const metrics = { consistency_runs: 1, stability_runs: 1, robustness_perturbations: 3 };
    const fixed = await evaluateItems(items, script(), { metrics });
    // All four primaries are right. Only the cat item has a perturbation: RS_cat = 1 right of P = 3 slots = 1/3,
    // and it alone forms C ([D]). [C] keeps the other three in C with RS_i = 0: (0 + 1/3 + 0 + 0)/4 = 1/12.
    expect(fixed.records.map((r) => r.has_perturbations)).toEqual([false, true, false, false]);
    expect(fixed.per_item.in_C).toEqual([false, true, false, false]);
    closeTo(fixed.raw.robustness, 1 / 3);
    const code = await evaluateItems(items, script(), { metrics, ...CODE_PARITY });
    closeTo(code.raw.robustness, 1 / 12);
  });

  it("§4: RS is null and Q renormalised when no item has perturbations", async () => {
    const { generate } = scripted({ "Is 2 even?": [ok("Yes.", 3)], "Is 3 even?": [ok("Yes.", 5)] });
    const items = [
      { question: "Is 2 even?", answer: "yes" },
      { question: "Is 3 even?", answer: "no" },
    ];
    const result = await evaluateItems(items, generate, { metrics: ONE_RUN, weights: "code_defaults" });
    expect(result.raw_metrics.robustness).toBeNull();
    expect(result.extensions.rs_skipped).toBe(true);
    // balanced weighs all six equally, so without RS it is the mean of the other five 4-decimal metrics.
    const m = result.raw_metrics;
    closeTo(
      result.aggregated.balanced,
      (m.correctness + m.consistency + m.logical_coherence! + m.efficiency + m.stability!) / 5,
    );
  });

  it("§6: a failed primary is left out of ES's min–max", async () => {
    const items = [
      { question: "What is 7 times 8?", answer: "56" },
      { question: "What is 9 times 9?", answer: "81" },
    ];
    const script = () =>
      scripted({ "What is 7 times 8?": [{ raise: "simulated API error" }], "What is 9 times 9?": [ok("81", 5)] })
        .generate;
    const fixed = await evaluateItems(items, script(), { metrics: ONE_RUN });
    // The only successful item sets both T_min and T_max, so T' = 0 and ES = 2·1·1/(1+1) = 1; the failed one scores 0.
    expect(fixed.per_item.es).toEqual([0, 1]);
    expect(fixed.raw.efficiency).toBe(0.5);
    // [C]: the failed item's 0 tokens are T_min, so the right answer (5 tokens) has T' = 1 and ES = 0.
    const code = await evaluateItems(items, script(), { metrics: ONE_RUN, ...CODE_PARITY });
    expect(code.per_item.es).toEqual([0, 0]);
    expect(code.raw.efficiency).toBe(0);
  });
});

describe("call plan and record building (for an API layer)", () => {
  it("plans K−1 extra runs and one call per usable perturbation among the first P", () => {
    const item = {
      question: "What is 6 plus 7?",
      answer: "13",
      perturbations: ["Add 6 and 7.", "", "  What is 6 plus 7?  ", "Sum of 6 and 7?"],
    };
    const plan = planItem(item, 0, {
      metrics: { consistency_runs: 3, stability_runs: 3, robustness_perturbations: 3 },
    });
    expect(plan.primary).toEqual({ kind: "primary", prompt: item.question, run: 1 });
    expect(plan.extras.map((c) => c.run)).toEqual([2, 3]);
    // Slot 1 is empty, slot 2 equals the question after trimming, the 4th perturbation is beyond P = 3.
    expect(plan.perturbations).toEqual([{ kind: "perturbation", prompt: "Add 6 and 7.", slot: 0 }, null, null]);
    expect(plannedCalls(plan).length).toBe(4);
  });

  it("a failed primary skips its other calls and leaves one empty slot per perturbation", () => {
    const item = {
      question: "What is 7 times 8?",
      answer: "56",
      perturbations: ["Compute 7 x 8.", "7 multiplied by 8?", "Product of 7 and 8?"],
    };
    const plan = planItem(item, 0, { metrics: {} });
    const record = buildRecord(item, plan, { primary: { ok: false, error: "down" } });
    // §1 failure policy: in N as wrong, response "", 0 tokens, steps [""], one empty slot per perturbation.
    expect(record).toMatchObject({
      prediction: "",
      gold_answer: "56",
      token_count: 0,
      reasoning_trace: [""],
      k_answers: [""],
      k_traces: [""],
      perturbed_preds: ["", "", ""],
      dataset: "unknown",
      question_id: "0",
      generation_failed: true,
      token_count_method: "failed",
    });
  });

  it('a failed extra run is omitted from the stored lists, not stored as ""', () => {
    const item = { question: "Is ice hot?", answer: "no" };
    const plan = planItem(item, 4, { metrics: { consistency_runs: 3 }, stepRule: "api" });
    const record = buildRecord(
      item,
      plan,
      {
        primary: { ok: true, text: "No. It is cold.", output_tokens: 4 },
        extras: [
          { ok: false, error: "x" },
          { ok: true, text: "No", output_tokens: 1 },
        ],
      },
      { stepRule: "api" },
    );
    expect(record).toMatchObject({
      k_answers: ["No. It is cold.", "No"],
      k_traces: ["No It is cold", "No"],
      reasoning_trace: ["No", "It is cold"],
      token_count: 4,
      question_id: "4",
    });
  });

  it("token counts: provider first; null, negative or non-finite → the fallback counter", () => {
    expect(tokenCount({ text: "a b c", output_tokens: 7 })).toEqual({ count: 7, method: "provider" });
    expect(tokenCount({ text: "a b c", output_tokens: 0 })).toEqual({ count: 0, method: "provider" });
    expect(tokenCount({ text: "a b c", output_tokens: null })).toEqual({ count: 3, method: "whitespace" });
    expect(tokenCount({ text: "a b c", output_tokens: -5 })).toEqual({ count: 3, method: "whitespace" });
    expect(tokenCount({ text: "a b c", output_tokens: Number.NaN })).toEqual({ count: 3, method: "whitespace" });
    expect(
      tokenCount({ text: "abcdef", output_tokens: null }, { name: "chars/2", count: (t) => t.length / 2 }),
    ).toEqual({ count: 3, method: "chars/2" });
  });

  it("generates max(consistency_runs, stability_runs) runs and rejects bad counts", () => {
    expect(runCounts({ consistency_runs: 3, stability_runs: 5 }).generations).toBe(5);
    expect(runCounts({}).generations).toBe(3);
    expect(() => runCounts({ robustness_perturbations: -1 })).toThrow(RangeError);
    expect(() => runCounts({ consistency_runs: 2.5 })).toThrow(RangeError);
  });
});
