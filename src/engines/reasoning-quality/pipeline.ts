/**
 * The per-item evaluation pipeline (spec §1) and the run-level result (§10), with model access injected.
 *
 * Per item: the primary generation (its trace feeds LS, its answer CQ), K−1 further runs of the same
 * question (the primary is run 1 of K; the K answers feed CS, the K traces SS), then one call per usable
 * perturbation among the first P (RS). Failure policy, "fixed denominators" [C]: a failed primary keeps the
 * item in N as wrong with response "", 0 tokens and steps [""], and its other calls are skipped; a failed
 * extra run or perturbation is omitted from the stored lists, and the metrics pad them back to K and P with
 * zero contribution. Metrics are then computed over the whole set and per dataset from the stored records
 * only (no new calls).
 *
 * The work is split so an API layer can run every model call as its own unit (queue message, workflow step):
 * `planItem` lists the calls (the primary first; the rest only if it succeeds), `buildRecord` turns their
 * outcomes into the stored record, and `evaluateRecords` computes the result from stored records.
 * `evaluateItems` strings these together in the reference's call order for local runs and tests.
 */
import {
  DEFAULT_PRESET,
  aggregateAll,
  resolveWeightTable,
  type AggregateOptions,
  type PresetVersion,
  type WeightTable,
  type WeightTableName,
} from "./aggregate.ts";
import {
  datasetOf,
  groupByDataset,
  scoreItems,
  summarise,
  type BackendFallback,
  type ItemRecord,
  type ItemScores,
  type MetricOptions,
  type MetricsConfig,
  type RawMetrics,
  type SetMetrics,
} from "./metrics.ts";
import { compareCodePoints, isBlank, pyStrip } from "../python/index.ts";
import { runTrace, splitSteps, storedTrace, whitespaceTokenCount, type StepRule } from "./steps.ts";

/** One dataset item (§9.5 fields; `question_id` is [C]'s optional record label). */
export type EvalItem = {
  question: string;
  answer: string;
  perturbations?: readonly string[] | null;
  dataset?: string | null;
  id?: string;
  question_id?: string | number | null;
};

/** What one model call returns: the text and the provider's output-token count (null = not reported). */
export type Generation = { text: string; output_tokens: number | null };
/** The injected model: one user message in, one response out; it may throw. */
export type Generate = (prompt: string) => Promise<Generation>;

/** The recorded result of one call. */
export type CallOutcome = { ok: true; text: string; output_tokens?: number | null } | { ok: false; error: string };

export type CallKind = "primary" | "extra" | "perturbation";
export type PlannedCall = {
  kind: CallKind;
  prompt: string;
  /** 1-based run number for primary (1) and extra runs (2..K). */
  run?: number;
  /** 0-based perturbation slot. */
  slot?: number;
};

export type ItemPlan = {
  index: number;
  /** Phase 1. */
  primary: PlannedCall;
  /** Phase 2, only when the primary succeeded: runs 2..K, any order. */
  extras: PlannedCall[];
  /** Phase 2, only when the primary succeeded: one entry per slot of the first P; null = empty slot, no call. */
  perturbations: (PlannedCall | null)[];
  /** §4 [D]: the item has at least one non-blank perturbation. */
  has_perturbations: boolean;
};

/** A token counter used when the provider reports no usage (§6: e.g. cl100k_base; default whitespace words). */
export type TokenCounter = { name: string; count: (text: string) => number };
/** The reference's last-resort counter, `len(text.split())`. */
export const WHITESPACE_TOKENS: TokenCounter = { name: "whitespace", count: whitespaceTokenCount };

export type RunConfig = {
  /** The `metrics:` block: consistency_runs K, stability_runs, robustness_perturbations P (each default 3). */
  metrics?: MetricsConfig;
  /** §5 step splitter; default "legacy_dot" ([D]). The reference's API adapters are "api". */
  stepRule?: StepRule;
  /** Fallback token counter; default whitespace words. */
  tokenCounter?: TokenCounter;
};

export type EvaluateOptions = RunConfig &
  MetricOptions &
  AggregateOptions & {
    /** Weight table for `aggregated`: a preset version (default "paper-v8"), a reference table name, or a table. */
    weights?: PresetVersion | WeightTableName | WeightTable;
    /** Items evaluated at once by `evaluateItems` (default 1, the reference's call order). */
    concurrency?: number;
  };

export type DatasetResult = { raw_metrics: RawMetrics; aggregated: Record<string, number>; num_samples: number };

export type EvaluationResult = {
  raw_metrics: RawMetrics;
  aggregated: Record<string, number>;
  /** Only when more than one dataset name is present; names in sorted order. */
  per_dataset: Record<string, DatasetResult>;
  metadata: {
    num_samples: number;
    consistency_runs: number;
    stability_runs: number;
    robustness_perturbations: number;
    datasets: string[];
  };
  /** §10 [D] additions, kept apart so the reference keys stay unchanged. */
  extensions: {
    cq_matcher: string;
    ls_method: string;
    ls_model?: string;
    ls_failed_pairs: number;
    ls_fallback?: BackendFallback;
    ss_method: string;
    ss_model?: string;
    ss_fallback?: BackendFallback;
    token_count_method: string;
    preset_version: string;
    rs_skipped: boolean;
    missing_metric: "renormalize" | "zero";
    step_rule: StepRule;
  };
  /** Unrounded set-level metrics. */
  raw: RawMetrics;
  per_item: SetMetrics["per_item"];
  records: ItemRecord[];
};

/** K, stability runs and P after defaults; rejects values the reference would misread (negative, fractional). */
export function runCounts(metrics: MetricsConfig = {}): {
  consistency_runs: number;
  stability_runs: number;
  robustness_perturbations: number;
  generations: number;
} {
  const read = (key: keyof MetricsConfig) => {
    const v = metrics[key] ?? 3;
    if (!Number.isInteger(v) || v < 0)
      throw new RangeError(`metrics.${key} must be a non-negative integer, got ${String(v)}`);
    return v;
  };
  const consistency_runs = read("consistency_runs");
  const stability_runs = read("stability_runs");
  const robustness_perturbations = read("robustness_perturbations");
  // §1.2 [D]: one set of runs serves CS and SS, so generate enough for both; CS reads the first K, SS the
  // first stability_runs. (With equal counts, as in the paper, this is [C]'s K.)
  return {
    consistency_runs,
    stability_runs,
    robustness_perturbations,
    generations: Math.max(1, consistency_runs, stability_runs),
  };
}

/** §4 [D]: an item "has perturbations" when the field lists at least one non-blank string. */
export function hasPerturbations(item: Pick<EvalItem, "perturbations">): boolean {
  return Array.isArray(item.perturbations) && item.perturbations.some((p) => typeof p === "string" && !isBlank(p));
}

/**
 * The calls one item needs (§1): the primary, then K−1 extra runs and the usable perturbations among the
 * first P. A slot stays empty (null, no call) when its string is blank or equals the question after
 * trimming. (Blank means whitespace-only too; [C] would send a whitespace-only prompt to the model.)
 */
export function planItem(item: EvalItem, index: number, config: RunConfig = {}): ItemPlan {
  const { generations, robustness_perturbations: p } = runCounts(config.metrics);
  const question = item.question;
  const extras: PlannedCall[] = [];
  for (let run = 2; run <= generations; run++) extras.push({ kind: "extra", prompt: question, run });
  const slots = (item.perturbations ?? []).slice(0, p);
  const perturbations = slots.map((pert, slot): PlannedCall | null => {
    if (typeof pert !== "string" || isBlank(pert) || pyStrip(pert) === pyStrip(question)) return null;
    return { kind: "perturbation", prompt: pert, slot };
  });
  return {
    index,
    primary: { kind: "primary", prompt: question, run: 1 },
    extras,
    perturbations,
    has_perturbations: hasPerturbations(item),
  };
}

/** Every call of a plan in the reference's order (primary, extra runs, perturbation slots). */
export function plannedCalls(plan: ItemPlan): PlannedCall[] {
  return [plan.primary, ...plan.extras, ...plan.perturbations.filter((c): c is PlannedCall => c !== null)];
}

/**
 * §6 token count of a successful call: the provider's count when it is a non-negative number (truncated
 * like Python's int()); a negative or missing count is discarded and the text is counted instead.
 */
export function tokenCount(
  outcome: { text: string; output_tokens?: number | null },
  counter: TokenCounter = WHITESPACE_TOKENS,
): { count: number; method: string } {
  const reported = outcome.output_tokens;
  if (typeof reported === "number" && Number.isFinite(reported) && Math.trunc(reported) >= 0)
    return { count: Math.trunc(reported), method: "provider" };
  return {
    count: outcome.text === "" ? 0 : Math.max(0, Math.trunc(counter.count(outcome.text))),
    method: counter.name,
  };
}

export type ItemOutcomes = {
  primary: CallOutcome;
  /** Outcome per `plan.extras` entry (missing = failed). */
  extras?: readonly (CallOutcome | undefined)[];
  /** Outcome per `plan.perturbations` slot (ignored for empty slots; missing = failed). */
  perturbations?: readonly (CallOutcome | null | undefined)[];
};

/** The stored record of one item from its call outcomes (§1 failure policy). */
export function buildRecord(
  item: EvalItem,
  plan: ItemPlan,
  outcomes: ItemOutcomes,
  config: RunConfig = {},
): ItemRecord {
  const rule = config.stepRule ?? "legacy_dot";
  const base = {
    gold_answer: item.answer,
    dataset: datasetOf(item as { dataset?: string }),
    question_id:
      item.question_id === undefined || item.question_id === null ? String(plan.index) : String(item.question_id),
    has_perturbations: plan.has_perturbations,
  };
  const primary = outcomes.primary;
  if (!primary.ok) {
    return {
      prediction: "",
      token_count: 0,
      reasoning_trace: [""],
      k_answers: [""],
      k_traces: [""],
      // One empty slot per perturbation among the first P, with no calls.
      perturbed_preds: plan.perturbations.map(() => ""),
      ...base,
      generation_failed: true,
      token_count_method: "failed",
    };
  }
  const steps = splitSteps(primary.text, rule);
  const tokens = tokenCount(primary, config.tokenCounter);
  const kAnswers = [primary.text];
  const kTraces = [runTrace(steps)];
  plan.extras.forEach((_, j) => {
    const o = outcomes.extras?.[j];
    if (o?.ok) {
      kAnswers.push(o.text);
      kTraces.push(runTrace(splitSteps(o.text, rule)));
    }
  });
  const perturbed: string[] = [];
  plan.perturbations.forEach((call, slot) => {
    if (call === null) perturbed.push("");
    else {
      const o = outcomes.perturbations?.[slot];
      if (o?.ok) perturbed.push(o.text);
    }
  });
  return {
    prediction: primary.text,
    token_count: tokens.count,
    reasoning_trace: storedTrace(steps),
    k_answers: kAnswers,
    k_traces: kTraces,
    perturbed_preds: perturbed,
    ...base,
    generation_failed: false,
    token_count_method: tokens.method,
  };
}

/** Runs one call, turning a throw (or a malformed result) into a failed outcome. */
export async function runCall(generate: Generate, prompt: string): Promise<CallOutcome> {
  try {
    const g = await generate(prompt);
    if (!g || typeof g.text !== "string") return { ok: false, error: "generate() returned no text" };
    return { ok: true, text: g.text, output_tokens: g.output_tokens ?? null };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** One item end to end, calls in the reference order: primary, extra runs, perturbations. */
export async function runItem(
  item: EvalItem,
  index: number,
  generate: Generate,
  config: RunConfig = {},
): Promise<ItemRecord> {
  const plan = planItem(item, index, config);
  const primary = await runCall(generate, plan.primary.prompt);
  if (!primary.ok) return buildRecord(item, plan, { primary }, config);
  const extras: CallOutcome[] = [];
  for (const call of plan.extras) extras.push(await runCall(generate, call.prompt));
  const perturbations: (CallOutcome | null)[] = [];
  for (const call of plan.perturbations)
    perturbations.push(call === null ? null : await runCall(generate, call.prompt));
  return buildRecord(item, plan, { primary, extras, perturbations }, config);
}

function summaryTokenMethod(records: readonly ItemRecord[]): string {
  const methods = new Set(records.filter((r) => !r.generation_failed).map((r) => r.token_count_method ?? "unknown"));
  if (methods.size === 0) return "none";
  return methods.size === 1 ? [...methods][0] : "mixed";
}

function presetName(weights: EvaluateOptions["weights"]): string {
  return weights === undefined ? DEFAULT_PRESET : typeof weights === "string" ? weights : "custom";
}

/**
 * The run result from stored records (§1.5, §10): metrics over the whole set, then per dataset (sorted
 * names, only when there is more than one; ES min–max recomputed per subset), each aggregated under every
 * strategy of the weight table from the 4-decimal raw metrics.
 */
export async function evaluateRecords(
  records: readonly ItemRecord[],
  options: EvaluateOptions = {},
): Promise<EvaluationResult> {
  // Bad counts and weights are refused before any scoring, as the reference does.
  const counts = runCounts(options.metrics);
  const table = resolveWeightTable(options.weights ?? DEFAULT_PRESET);
  const scores = await scoreItems(records, options.metrics ?? {}, options);
  const figures = evaluationOf(records, scores, {
    table,
    aggregate: { missingMetric: options.missingMetric, codeCompatible: options.codeCompatible },
    counts,
    token_count_method: summaryTokenMethod(records),
    preset_version: presetName(options.weights),
    missing_metric: options.missingMetric ?? "renormalize",
    step_rule: options.stepRule ?? "legacy_dot",
  });
  return { ...figures, records: [...records] };
}

/** What `evaluationOf` needs besides the scores: the weights, the counts and the labels the result carries. */
export type EvaluationSettings = {
  table: WeightTable;
  aggregate: AggregateOptions;
  counts: { consistency_runs: number; stability_runs: number; robustness_perturbations: number };
  token_count_method: string;
  preset_version: string;
  missing_metric: "renormalize" | "zero";
  step_rule: StepRule;
};

/**
 * The result's figures from each item's scores (in `items`' order): overall and per dataset, with the
 * metadata and extensions. Everything of `evaluateRecords` but its records, for callers that keep
 * each item's scores and not its texts (the run platform's aggregate at scale).
 */
export function evaluationOf(
  items: readonly Pick<ItemRecord, "dataset">[],
  scores: ItemScores,
  settings: EvaluationSettings,
): Omit<EvaluationResult, "records"> {
  const { table, aggregate: aggregateOptions, counts } = settings;
  const overall = summarise(scores);
  const per_dataset: Record<string, DatasetResult> = {};
  for (const group of groupByDataset(items)) {
    const subset = summarise(scores, group.indices);
    per_dataset[group.name] = {
      raw_metrics: subset.raw_metrics,
      aggregated: aggregateAll(subset.raw_metrics, table, aggregateOptions),
      num_samples: subset.num_samples,
    };
  }
  const datasets = [...new Set(items.map(datasetOf))].sort(compareCodePoints);
  return {
    raw_metrics: overall.raw_metrics,
    aggregated: aggregateAll(overall.raw_metrics, table, aggregateOptions),
    per_dataset,
    metadata: {
      num_samples: items.length,
      consistency_runs: counts.consistency_runs,
      stability_runs: counts.stability_runs,
      robustness_perturbations: counts.robustness_perturbations,
      datasets,
    },
    extensions: {
      cq_matcher: scores.cq_matcher,
      ls_method: scores.ls_method,
      ...(scores.ls_model !== undefined ? { ls_model: scores.ls_model } : {}),
      ls_failed_pairs: scores.ls_failed_pairs,
      ...(scores.ls_fallback ? { ls_fallback: scores.ls_fallback } : {}),
      ss_method: scores.ss_method,
      ...(scores.ss_model !== undefined ? { ss_model: scores.ss_model } : {}),
      ...(scores.ss_fallback ? { ss_fallback: scores.ss_fallback } : {}),
      token_count_method: settings.token_count_method,
      preset_version: settings.preset_version,
      rs_skipped: overall.rs_skipped,
      missing_metric: settings.missing_metric,
      step_rule: settings.step_rule,
    },
    raw: overall.raw,
    per_item: overall.per_item,
  };
}

/** Generation for every item (`concurrency` at a time, default 1), then `evaluateRecords`. */
export async function evaluateItems(
  items: readonly EvalItem[],
  generate: Generate,
  options: EvaluateOptions = {},
): Promise<EvaluationResult> {
  runCounts(options.metrics);
  const records: ItemRecord[] = new Array(items.length);
  const width = Math.max(1, Math.trunc(options.concurrency ?? 1));
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      records[i] = await runItem(items[i], i, generate, options);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return evaluateRecords(records, options);
}
