/**
 * Comparing two reasoning-quality runs (issue 18): per model (matched by name) and metric, what changed on
 * the same items.
 *
 * Comparable runs scored the same items (the same `datasets` list: uploaded datasets by id and count,
 * synthetic ones by seed and sizes) the same way (K, P, CQ matcher, LS and SS methods), and share at least
 * one model name. Different items are a 422, not an unpaired comparison: every rq figure is relative to
 * its item set (ES is min–max normalised within it), so CQ on one dataset against CQ on another measures
 * the datasets as much as the models. The models themselves (endpoint, temperature, simulator knobs) and
 * the weights may differ: they are what one compares.
 *
 * Per model in both runs, each item's scores were kept when the run was aggregated (compare-basis.ts:
 * the engine's `scoreItems` of each item's record, as the aggregate scored it), and the set figure of any
 * resample of items is the engine's `summarise` (`setFigures`, its twin over columns), so every interval
 * is about the figures the results show:
 * - `correctness`: per-item outcomes are binary, so Newcombe's paired interval and McNemar's exact test on
 *   the items that became right or wrong (as the judge and chain-determinism comparers do); a bootstrap of
 *   a handful of discordant items gives a degenerate interval;
 * - `consistency`, `robustness`, `logical_coherence`, `efficiency`, `stability` and Q per strategy: a
 *   paired bootstrap over items that recomputes both runs' figure on each resample (RS over the resample's
 *   correct items, ES with the resample's own token min–max, Q from its 4-decimal metrics).
 * A figure whose recomputation does not reproduce the result's (SS by embeddings, which are not stored;
 * a result aggregated by older code) keeps its two values but has no interval (`method: none`).
 *
 * Pairing reads the items of the tenant's uploaded datasets (their ids in `flipped`) only while they
 * exist: when a dataset has been deleted since, the runs are compared on the results' figures alone,
 * unpaired and without intervals, and `details.unpaired_reason` says why (such an answer is not kept).
 */
import {
  aggregate,
  mergeStrategies,
  resolveWeightTable,
  type MetricKey,
  type Weights,
} from "../../engines/reasoning-quality/index.ts";
import {
  mcnemarExact,
  newcombePairedDifference,
  pairedBootstrapCi,
  percentileInterval,
} from "../../engines/stats/index.ts";
import type { FieldError } from "../../errors.ts";
import {
  metric,
  type ComparedRun,
  type CompareOptions,
  type Comparer,
  type FlippedItem,
  type MetricComparison,
  type PairedOutcomes,
} from "../../runs/plugin/compare.ts";
import { columnsOf, rqBasis, setFigures, type Columns, type RqBasis, type RqModelBasis } from "./compare-basis.ts";
import { RqComparisonDetails, type RqPublicConfig, type RqResult } from "./schemas.ts";

type Run = ComparedRun<RqPublicConfig, RqBasis>;

/** The metrics compared by a paired bootstrap (correctness has its own paired interval). */
const BOOTSTRAPPED: readonly MetricKey[] = [
  "consistency",
  "robustness",
  "logical_coherence",
  "efficiency",
  "stability",
];
const ALL_METRICS: readonly MetricKey[] = ["correctness", ...BOOTSTRAPPED];

const shown = (v: unknown) => (v === undefined ? "none" : JSON.stringify(v));

/** A dataset reference as a person reads it: `synthetic (seed 42: 20/10/10)`, `ds_1 (first 50)`. */
function describeDataset(ref: Record<string, unknown>): string {
  const s = ref.synthetic as
    | { seed: number; num_reasoning: number; num_adversarial: number; num_robustness: number }
    | undefined;
  if (s) return `synthetic (seed ${s.seed}: ${s.num_reasoning}/${s.num_adversarial}/${s.num_robustness})`;
  return ref.num_samples === undefined ? String(ref.id) : `${String(ref.id)} (first ${String(ref.num_samples)})`;
}

const modelNames = (run: Run) => run.basis.models.map((m) => m.model);
const modelOf = (run: Run, name: string): RqModelBasis => run.basis.models.find((m) => m.model === name)!;

/** The uploaded datasets the run's items came from (synthetic ones are regenerated, never deleted). */
const uploaded = (run: { config: RqPublicConfig }): string[] =>
  run.config.datasets.filter((ref) => !ref.synthetic).map((ref) => String(ref.id));

/** Whether an uploaded dataset of the runs has been deleted since (then only the figures are compared). */
async function datasetGone(
  base: { config: RqPublicConfig },
  head: { config: RqPublicConfig },
  exists: CompareOptions["datasetExists"],
): Promise<boolean> {
  for (const id of new Set([...uploaded(base), ...uploaded(head)])) if (!exists || !(await exists(id))) return true;
  return false;
}

/** Each run's weights for a strategy, exactly as its aggregate used them. */
function weightsOf(run: Run): Record<string, Weights> {
  return { ...mergeStrategies(resolveWeightTable(run.config.preset), run.config.custom_strategies) };
}

/** The strategies both runs scored with the same effective weights (others are not the same Q). */
function sharedStrategies(base: Run, head: Run): { shared: string[]; skipped: { strategy: string; reason: string }[] } {
  const shared: string[] = [];
  const skipped: { strategy: string; reason: string }[] = [];
  for (const s of new Set([...Object.keys(base.basis.strategies), ...Object.keys(head.basis.strategies)])) {
    const [wb, wh] = [base.basis.strategies[s], head.basis.strategies[s]];
    if (!wb || !wh) skipped.push({ strategy: s, reason: `only in ${wb ? "base" : "head"}` });
    else if (JSON.stringify(wb) !== JSON.stringify(wh))
      skipped.push({ strategy: s, reason: "the runs weigh it differently" });
    else shared.push(s);
  }
  return { shared, skipped };
}

/**
 * Percentile intervals of several statistics over the same bootstrap resamples. `row` computes every
 * statistic of one resample at once (two `setFigures` calls, not one per statistic); the first
 * statistic's interval is the bootstrap's, and the others' are the same percentiles of their own column
 * of values, as a bootstrap of the same seed (the same resamples in the same order) would give them.
 */
function bootstrapRows(
  n: number,
  width: number,
  row: (idx: Uint32Array) => number[],
  confidence: number,
): ([number, number] | null)[] {
  if (width === 0) return [];
  const columns: number[][] = Array.from({ length: width }, () => []);
  const first = pairedBootstrapCi(
    n,
    (idx) => {
      const r = row(idx);
      for (let j = 0; j < width; j++) columns[j].push(r[j]);
      return r[0];
    },
    { confidence },
  );
  // Fewer than two items: no resample was drawn, and no statistic has an interval.
  return [
    first,
    ...columns.slice(1).map((values) => (n < 2 ? null : percentileInterval(Float64Array.from(values), confidence))),
  ];
}

const outcomeOf = (c: Columns, i: number) => (c.failed[i] ? "failed" : c.cq[i] === 1 ? "correct" : "wrong");
const nullToNaN = (x: number | null) => (x === null ? NaN : x);

/** One model's comparison, item by item. */
function compareModel(
  name: string,
  base: Run,
  head: Run,
  strategies: readonly string[],
  o: { confidence: number; minEffect: number },
): { metrics: MetricComparison[]; flipped: FlippedItem[]; unverified: string[]; correctness: PairedOutcomes } {
  const [rb, rh] = [modelOf(base, name), modelOf(head, name)];
  const [sb, sh] = [columnsOf(rb), columnsOf(rh)];
  const items = base.basis.items;
  const n = items.length;
  const [wb, wh] = [weightsOf(base), weightsOf(head)];
  const missing = [rb.extensions.missing_metric, rh.extensions.missing_metric];
  const figures = (
    s: Columns,
    idx: ArrayLike<number> | undefined,
    weights: Record<string, Weights>,
    missingMetric: "renormalize" | "zero",
  ) => {
    const set = setFigures(s, idx);
    return {
      raw: set.raw,
      rounded: set.rounded,
      q: strategies.map((st) => aggregate(set.rounded, weights[st], { missingMetric })),
    };
  };

  // Only figures the kept scores reproduce get an interval (the whole set gives back the result's value).
  const [fb, fh] = [figures(sb, undefined, wb, missing[0]), figures(sh, undefined, wh, missing[1])];
  const unverified = new Set<string>();
  for (const k of ALL_METRICS) {
    if (fb.rounded[k] !== rb.raw_metrics[k] || fh.rounded[k] !== rh.raw_metrics[k]) unverified.add(k);
  }
  if (!rb.ss_stored || !rh.ss_stored) unverified.add("stability");
  strategies.forEach((st, j) => {
    if (Math.abs(fb.q[j] - rb.aggregated[st]) > 1e-12 || Math.abs(fh.q[j] - rh.aggregated[st]) > 1e-12)
      unverified.add(`q.${st}`);
  });

  const rows = bootstrapRows(
    n,
    BOOTSTRAPPED.length + strategies.length,
    (idx) => {
      const [b, h] = [figures(sb, idx, wb, missing[0]), figures(sh, idx, wh, missing[1])];
      return [
        ...BOOTSTRAPPED.map((k) => nullToNaN(h.raw[k]) - nullToNaN(b.raw[k])),
        ...strategies.map((_, j) => h.q[j] - b.q[j]),
      ];
    },
    o.confidence,
  );

  const metrics: MetricComparison[] = [];
  // Correctness: a paired 2×2 table of the items' outcomes (a failed primary counts as wrong, as in CQ).
  const t = { both: 0, baseOnly: 0, headOnly: 0, neither: 0 };
  const flipped: FlippedItem[] = [];
  for (let i = 0; i < n; i++) {
    const [cb, ch] = [sb.cq[i] === 1, sh.cq[i] === 1];
    if (cb && ch) t.both++;
    else if (cb) t.baseOnly++;
    else if (ch) t.headOnly++;
    else t.neither++;
    const [ob, oh] = [outcomeOf(sb, i), outcomeOf(sh, i)];
    if (ob !== oh) flipped.push({ id: `${name}/${items[i]}`, base: ob, head: oh });
  }
  const cqOk = !unverified.has("correctness") && n > 0;
  metrics.push(
    metric(
      `${name}.correctness`,
      rb.raw_metrics.correctness,
      rh.raw_metrics.correctness,
      cqOk ? newcombePairedDifference(t, o.confidence) : null,
      {
        higherIsBetter: true,
        method: cqOk ? "newcombe-paired" : "none",
        minEffect: o.minEffect,
        pValue: cqOk ? mcnemarExact(t.baseOnly, t.headOnly) : null,
        confidence: o.confidence,
      },
    ),
  );
  BOOTSTRAPPED.forEach((k, j) => {
    const ci = unverified.has(k) ? null : rows[j];
    metrics.push(
      metric(`${name}.${k}`, rb.raw_metrics[k], rh.raw_metrics[k], ci, {
        higherIsBetter: true,
        method: ci ? "paired-bootstrap" : "none",
        minEffect: o.minEffect,
      }),
    );
  });
  strategies.forEach((st, j) => {
    const ci = unverified.has(`q.${st}`) ? null : rows[BOOTSTRAPPED.length + j];
    metrics.push(
      metric(`${name}.q.${st}`, rb.aggregated[st], rh.aggregated[st], ci, {
        higherIsBetter: true,
        method: ci ? "paired-bootstrap" : "none",
        minEffect: o.minEffect,
      }),
    );
  });
  return {
    metrics,
    flipped,
    unverified: [...unverified],
    correctness: {
      items: n,
      both_correct: t.both,
      base_only_correct: t.baseOnly,
      head_only_correct: t.headOnly,
      neither_correct: t.neither,
    },
  };
}

/** The results' figures alone, when the items may not be paired: no pairing, no interval. */
function resultsOnly(
  name: string,
  base: Run,
  head: Run,
  strategies: readonly string[],
  minEffect: number,
): MetricComparison[] {
  const [rb, rh] = [modelOf(base, name), modelOf(head, name)];
  return [
    ...ALL_METRICS.map((k) =>
      metric(`${name}.${k}`, rb.raw_metrics[k], rh.raw_metrics[k], null, {
        higherIsBetter: true,
        method: "none",
        minEffect,
      }),
    ),
    ...strategies.map((st) =>
      metric(`${name}.q.${st}`, rb.aggregated[st], rh.aggregated[st], null, {
        higherIsBetter: true,
        method: "none",
        minEffect,
      }),
    ),
  ];
}

/** Per strategy, the models present in both runs whose rank changed. */
function rankChanges(base: Run, head: Run, strategies: readonly string[], models: readonly string[]) {
  const rankIn = (r: Run, st: string, model: string) =>
    r.basis.rankings[st]?.find((x) => x.model === model)?.rank ?? null;
  return Object.fromEntries(
    strategies.map((st) => [
      st,
      models
        .map((model) => ({ model, base_rank: rankIn(base, st, model), head_rank: rankIn(head, st, model) }))
        .filter((x) => x.base_rank !== x.head_rank),
    ]),
  );
}

export const rqComparer: Comparer<RqPublicConfig, RqResult, RqBasis, RqComparisonDetails> = {
  details: RqComparisonDetails,
  basis: rqBasis,

  incomparable(base, head) {
    const errors: FieldError[] = [];
    const differ = (path: string, a: unknown, b: unknown, show = shown) => {
      if (JSON.stringify(a) !== JSON.stringify(b))
        errors.push({ path, message: `base has ${show(a)}, head ${show(b)}` });
    };
    const datasets = (r: Run) => r.config.datasets.map(describeDataset).join(", ");
    if (JSON.stringify(base.config.datasets) !== JSON.stringify(head.config.datasets)) {
      errors.push({
        path: "config.datasets",
        message: `base evaluates ${datasets(base)}, head ${datasets(head)}: the same items are needed to pair them`,
      });
    }
    for (const k of ["consistency_runs", "stability_runs", "robustness_perturbations"] as const)
      differ(`config.metrics.${k}`, base.config.metrics[k], head.config.metrics[k]);
    differ("config.matcher", base.config.matcher, head.config.matcher);
    const [lb, lh] = [base.config.ls as Record<string, unknown>, head.config.ls as Record<string, unknown>];
    differ("config.ls.method", lb.method, lh.method);
    if (lb.method === "model" && lh.method === "model") differ("config.ls.model", lb.model, lh.model);
    const [sb, sh] = [base.config.ss as Record<string, unknown>, head.config.ss as Record<string, unknown>];
    differ("config.ss.method", sb.method, sh.method);
    if (sb.method === "embeddings" && sh.method === "embeddings")
      for (const k of ["model", "dimensions", "baseline"]) differ(`config.ss.${k}`, sb[k], sh[k]);

    const headNames = new Set(modelNames(head));
    const common = modelNames(base).filter((m) => headNames.has(m));
    if (!common.length)
      errors.push({
        path: "config.models",
        message: `no model name is in both runs (base: ${modelNames(base).join(", ")}; head: ${modelNames(head).join(", ")})`,
      });
    // A fallback can leave a model scored by another LS or SS method than its config asked for.
    for (const name of common) {
      const [eb, eh] = [base, head].map((r) => modelOf(r, name).extensions);
      differ(`result.models.${name}.extensions.ls_method`, eb.ls_method, eh.ls_method);
      differ(`result.models.${name}.extensions.ss_method`, eb.ss_method, eh.ss_method);
    }
    return errors;
  },

  async compare(base, head, o) {
    const headNames = new Set(modelNames(head));
    const baseNames = new Set(modelNames(base));
    const common = modelNames(base).filter((m) => headNames.has(m));
    const { shared, skipped } = sharedStrategies(base, head);
    const compared = {
      models: {
        compared: common,
        base_only: modelNames(base).filter((m) => !headNames.has(m)),
        head_only: modelNames(head).filter((m) => !baseNames.has(m)),
      },
      rank_changes: rankChanges(base, head, shared, common),
      ...(skipped.length ? { strategies_not_compared: skipped } : {}),
    };
    if (await datasetGone(base, head, o.datasetExists)) {
      // Its items (their ids, which item flipped) are not shown once the tenant deleted them.
      const unpaired_reason =
        "a dataset of the runs has been deleted since, so their items are not paired: the runs are compared on their results' figures only, without intervals";
      return {
        paired: false,
        metrics: common.flatMap((name) => resultsOnly(name, base, head, shared, o.minEffect)),
        flipped: [],
        details: { ...compared, unpaired_reason },
      };
    }
    const metrics: MetricComparison[] = [];
    const flipped: FlippedItem[] = [];
    const correctness: Record<string, PairedOutcomes> = {};
    const noInterval: Record<string, string[]> = {};
    for (const name of common) {
      const c = compareModel(name, base, head, shared, o);
      metrics.push(...c.metrics);
      flipped.push(...c.flipped);
      correctness[name] = c.correctness;
      if (c.unverified.length) noInterval[name] = c.unverified;
    }
    const details: RqComparisonDetails = {
      ...compared,
      items: base.basis.items.length,
      correctness,
      ...(Object.keys(noInterval).length ? { no_interval: noInterval } : {}),
    };
    return { paired: true, metrics, flipped, details };
  },

  async cacheable(base, head, o) {
    return !(await datasetGone(base, head, o.datasetExists));
  },
};
