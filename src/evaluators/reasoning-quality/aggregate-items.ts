// reasoning-quality's aggregate without holding the outputs: each item of each model is reduced, as soon
// as its calls have all been read, to its per-item scores under every method the run may end up using,
// and the set-level result is computed from those numbers. The engine's `evaluateRecords` does the same
// from full records; `evaluateKept` is its twin over kept items, step for step in the same order, so the
// numbers are the same bit for bit (test/api/scale-aggregate.test.ts holds them side by side).
import {
  buildRecord,
  datasetOf,
  evaluationOf,
  runCounts,
  scoreItems,
  stepPairs,
  type AggregateOptions,
  type BackendFallback,
  type CallOutcome,
  type EvaluationResult,
  type ItemRecord,
  type ItemScores,
  type LsBackend,
  type NliLabel,
  type SsBackend,
  type WeightTable,
} from "../../engines/reasoning-quality/index.ts";
import type { Usage } from "../../providers/index.ts";
import { addUsage, emptyUsage } from "../../runs/plugin/usage.ts";
import type { RqModelResult, RqOutput } from "./schemas.ts";
import { plansOf, type RqRunConfig } from "./units.ts";

/** One item of one model as the aggregate keeps it: scores, labels and counts, no text (but see `traces`). */
export type KeptItem = {
  cq: number;
  cs: number;
  cs_label: string[] | null;
  rs: number;
  in_C: boolean;
  rs_eligible: boolean;
  tokens: number;
  failed: boolean;
  /** LS under the lexical method, and SS under Jaccard: the methods a fallback may turn to. */
  ls_lexical: number;
  ss_jaccard: number;
  /** LS from the recorded checker labels (LS `model` only), with the pairs it lacked labels for. */
  ls_model: number | null;
  ls_failed: number;
  pairs: number;
  dataset: string;
  token_count_method: string | undefined;
  /** The K traces, kept only under SS `embeddings`, whose calls batch the traces of consecutive items. */
  traces: string[] | null;
};

/** A model's calls as the result reports them. */
export type CallCounts = RqModelResult["calls"];

/** The checker's recorded work on a model's primary traces (LS `model`), summed as items are kept. */
export type CheckerTotals = {
  calls: number;
  failed_calls: number;
  usage: Usage;
  first_error: { item: number; error: string } | null;
};

/** What the aggregate keeps of one model while it reads the samples. */
export type KeptModel = { items: (KeptItem | undefined)[]; calls: CallCounts; usage: Usage; checker: CheckerTotals };

const outcome = (o: RqOutput | null | undefined): CallOutcome | undefined =>
  !o
    ? undefined
    : o.ok
      ? { ok: true, text: o.text ?? "", output_tokens: o.output_tokens }
      : { ok: false, error: o.error ?? "failed" };

export function keptModel(config: RqRunConfig): KeptModel {
  return {
    items: new Array(config.items.length),
    calls: { planned: 0, made: 0, failed: 0, missing: 0 },
    usage: emptyUsage(),
    checker: { calls: 0, failed_calls: 0, usage: emptyUsage(), first_error: null },
  };
}

/**
 * Reduces item `i` of a model from its calls' outputs (by call key; a missing one is a call that never
 * ran, as in a canceled run) and stores it in `into`. The record is built and scored here and then dropped.
 */
export async function keepItem(
  config: RqRunConfig,
  into: KeptModel,
  i: number,
  outputs: ReadonlyMap<string, RqOutput | null>,
): Promise<void> {
  const plan = plansOf(config)[i];
  const { calls, usage } = into;
  const get = (key: string) => {
    calls.planned++;
    const o = outputs.get(key);
    if (!o) calls.missing++;
    else {
      calls.made++;
      if (!o.ok) calls.failed++;
      addUsage(usage, o.usage);
    }
    return outcome(o);
  };
  // A unit that never ran (a canceled run) counts as a failed call.
  const primary = get("p") ?? { ok: false as const, error: "not run" };
  const extras = plan.extras.map((c) => get(`r${c.run}`));
  const perturbations = plan.perturbations.map((c) => (c ? get(`x${c.slot}`) : null));
  const record = buildRecord(config.items[i], plan, { primary, extras, perturbations }, { metrics: config.metrics });

  const nli = outputs.get("p")?.nli ?? null;
  if (nli) {
    const c = into.checker;
    c.calls += nli.calls;
    c.failed_calls += nli.failed_calls;
    addUsage(c.usage, nli.usage);
    if (nli.errors[0] != null && (!c.first_error || i < c.first_error.item))
      c.first_error = { item: i, error: nli.errors[0] };
  }
  const labels: (NliLabel | null)[] | null = nli?.labels ?? null;

  const options = { matcher: config.matcher };
  const base = await scoreItems([record], config.metrics, {
    ...options,
    ls: { method: "lexical" },
    ss: { method: "jaccard" },
  });
  let lsModel: number | null = null;
  let lsFailed = 0;
  if (config.ls.method === "model") {
    const got = await scoreItems([record], config.metrics, {
      ...options,
      ls: { method: "model", labels: [labels], fallback: "neutral" },
      ss: { method: "none" },
    });
    lsModel = got.ls[0];
    lsFailed = got.ls_failed_pairs;
  }
  into.items[i] = {
    cq: base.cq[0],
    cs: base.cs[0],
    cs_label: base.cs_labels[0],
    rs: base.rs[0],
    in_C: base.in_C[0],
    rs_eligible: base.rs_eligible[0],
    tokens: base.tokens[0],
    failed: base.failed[0],
    ls_lexical: base.ls[0]!,
    ss_jaccard: base.ss[0]!,
    ls_model: lsModel,
    ls_failed: lsFailed,
    pairs: config.ls.method === "model" ? stepPairs(record.reasoning_trace).length : 0,
    dataset: datasetOf(record),
    token_count_method: record.token_count_method,
    traces: config.ss.method === "embeddings" ? record.k_traces : null,
  };
}

/** A record carrying only what SS reads, for the engine's embeddings scoring (its batching is the engine's). */
function tracesRecord(item: KeptItem): ItemRecord {
  return {
    prediction: "",
    gold_answer: "",
    token_count: 0,
    reasoning_trace: [""],
    k_answers: [],
    k_traces: item.traces ?? [],
    perturbed_preds: [],
  };
}

function summaryTokenMethod(items: readonly KeptItem[]): string {
  const methods = new Set(items.filter((r) => !r.failed).map((r) => r.token_count_method ?? "unknown"));
  if (methods.size === 0) return "none";
  return methods.size === 1 ? [...methods][0] : "mixed";
}

/**
 * `evaluateRecords(records, { metrics, matcher, ls, ss, weights: table })` over kept items: the LS
 * backend is `none`, `lexical`, or `model` with recorded labels (the only ones the aggregate uses).
 */
export async function evaluateKept(
  config: RqRunConfig,
  items: readonly KeptItem[],
  ls: LsBackend,
  ss: SsBackend,
  table: WeightTable,
): Promise<EvaluationResult> {
  const counts = runCounts(config.metrics);
  const aggregateOptions: AggregateOptions = { missingMetric: undefined, codeCompatible: undefined };
  // The engine's resolution of the options and the methods' names, from scoring no record (no call is made).
  const meta = await scoreItems([], config.metrics, {
    matcher: config.matcher,
    ls: ls.method === "model" ? { ...ls, labels: [], classify: undefined } : ls,
    ss,
  });

  let lsScores: (number | null)[];
  let lsMethod: LsBackend["method"] = ls.method;
  let lsFailed = 0;
  let lsFallback: BackendFallback | undefined;
  if (ls.method === "none") lsScores = items.map(() => null);
  else if (ls.method === "lexical") lsScores = items.map((x) => x.ls_lexical);
  else if (ls.method === "model") {
    lsScores = items.map((x) => x.ls_model);
    lsFailed = items.reduce((n, x) => n + x.ls_failed, 0);
    const fallback = ls.fallback ?? "neutral";
    if (lsFailed > 0 && fallback !== "neutral") {
      lsMethod = fallback;
      lsFallback = {
        from: "model",
        reason: `the contradiction checker failed on ${lsFailed} of ${items.reduce((n, x) => n + x.pairs, 0)} step pairs`,
      };
      lsScores = fallback === "lexical" ? items.map((x) => x.ls_lexical) : items.map(() => null);
    }
  } else throw new RangeError(`unknown LS backend "${String((ls as { method: unknown }).method)}"`);

  let ssScores: (number | null)[];
  let ssMethod: SsBackend["method"] = ss.method;
  let ssFallback: BackendFallback | undefined;
  if (ss.method === "jaccard") ssScores = items.map((x) => x.ss_jaccard);
  else if (ss.method === "none") ssScores = items.map(() => null);
  else {
    const got = await scoreItems(items.map(tracesRecord), config.metrics, {
      matcher: config.matcher,
      ls: { method: "none" },
      ss,
    });
    ssScores = got.ss;
    ssMethod = got.ss_method;
    ssFallback = got.ss_fallback;
  }

  const scores: ItemScores = {
    cq: items.map((x) => x.cq),
    cs: items.map((x) => x.cs),
    cs_labels: items.map((x) => x.cs_label),
    rs: items.map((x) => x.rs),
    in_C: items.map((x) => x.in_C),
    rs_eligible: items.map((x) => x.rs_eligible),
    ls: lsScores,
    ss: ssScores,
    tokens: items.map((x) => x.tokens),
    failed: items.map((x) => x.failed),
    cq_matcher: meta.cq_matcher,
    ls_method: lsMethod,
    ...(meta.ls_model !== undefined ? { ls_model: meta.ls_model } : {}),
    ls_failed_pairs: lsFailed,
    ...(lsFallback ? { ls_fallback: lsFallback } : {}),
    ss_method: ssMethod,
    ...(meta.ss_model !== undefined ? { ss_model: meta.ss_model } : {}),
    ...(ssFallback ? { ss_fallback: ssFallback } : {}),
    options: meta.options,
  };

  const figures = evaluationOf(items, scores, {
    table,
    aggregate: aggregateOptions,
    counts,
    token_count_method: summaryTokenMethod(items),
    // The table is handed in resolved, as the aggregate always did: the engine names it "custom".
    preset_version: "custom",
    missing_metric: "renormalize",
    step_rule: "legacy_dot",
  });
  // Not kept: the result never carried the records, and they are what the aggregate does not hold.
  return { ...figures, records: [] };
}
