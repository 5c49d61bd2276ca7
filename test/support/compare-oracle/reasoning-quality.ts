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
 * Per model in both runs, each item's scores are rebuilt from the samples exactly as the aggregate does
 * (records → the engine's `scoreItems`), and the set figure of any resample of items is the engine's
 * `summarise`, so every interval is about the figures the results show:
 * - `correctness`: per-item outcomes are binary, so Newcombe's paired interval and McNemar's exact test on
 *   the items that became right or wrong (as the judge and chain-determinism comparers do); a bootstrap of
 *   a handful of discordant items gives a degenerate interval;
 * - `consistency`, `robustness`, `logical_coherence`, `efficiency`, `stability` and Q per strategy: a
 *   paired bootstrap over items that recomputes both runs' figure on each resample (RS over the resample's
 *   correct items, ES with the resample's own token min–max, Q from its 4-decimal metrics).
 * A figure whose recomputation does not reproduce the result's (SS by embeddings, which are not stored;
 * a result aggregated by older code) keeps its two values but has no interval (`method: none`).
 *
 * The samples carry no gold answers: the items are rebuilt as the run's create step built them, synthetic
 * ones from their seed (the generator is deterministic) and uploaded ones from the tenant's dataset (which
 * never changes once stored). When a dataset has been deleted since, the runs are compared on the
 * results' figures alone, unpaired and without intervals, and `details.unpaired_reason` says why.
 */
import {
  aggregate,
  buildRecord,
  generateSynthetic,
  mergeStrategies,
  planItem,
  resolveWeightTable,
  scoreItems,
  summarise,
  type CallOutcome,
  type EvalItem,
  type ItemScores,
  type LsBackend,
  type MetricKey,
  type SsBackend,
  type Weights,
} from "../../../src/engines/reasoning-quality/index.ts";
import { mcnemarExact, newcombePairedDifference, pairedBootstrapCi } from "../../../src/engines/stats/index.ts";
import type { FieldError } from "../../../src/errors.ts";
import type { StoredSample } from "../../../src/runs/plugin/types.ts";
import {
  metric,
  type ComparedRun,
  type CompareOptions,
  type Comparer,
  type FlippedItem,
  type MetricComparison,
} from "./compare.ts";
import type {
  RqModelResult,
  RqOutput,
  RqPublicConfig,
  RqResult,
} from "../../../src/evaluators/reasoning-quality/schemas.ts";

type Run = ComparedRun<RqPublicConfig, RqResult>;
type Item = EvalItem & { id: string };

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

const modelNames = (run: Run) => run.result.models.map((m) => m.model);

/**
 * The run's items as its create step made them (create.ts `loadItems`): synthetic ones regenerated from
 * their seed, uploaded ones read back from the tenant's dataset (immutable once stored). Null when a
 * dataset has been deleted since, or the items do not add up to the run's count.
 */
async function itemsOf(run: Run, datasetItems: CompareOptions["datasetItems"]): Promise<Item[] | null> {
  const items: EvalItem[] = [];
  for (const ref of run.config.datasets) {
    const s = ref.synthetic as
      | { seed: number; num_reasoning: number; num_adversarial: number; num_robustness: number }
      | undefined;
    if (s) {
      for (const it of generateSynthetic({
        seed: s.seed,
        numReasoning: s.num_reasoning,
        numAdversarial: s.num_adversarial,
        numRobustness: s.num_robustness,
      })) {
        items.push({ ...it, dataset: "synthetic" });
      }
      continue;
    }
    const stored = datasetItems ? await datasetItems(String(ref.id)) : null;
    if (!stored) return null;
    const n = typeof ref.num_samples === "number" ? ref.num_samples : stored.length;
    items.push(...(stored.slice(0, n) as EvalItem[]));
  }
  if (items.length !== run.config.n_items) return null;
  return items.map((it, n) => ({ ...it, id: `${n}:${it.id}` }));
}

/** The LS and SS backends that reproduce a model's figures, from the methods its result says were used. */
function backendsOf(
  model: RqModelResult,
  m: number,
  items: readonly Item[],
  byUnit: ReadonlyMap<string, RqOutput | null>,
): { ls: LsBackend; ss: SsBackend; ssStored: boolean } {
  const e = model.extensions;
  const ls: LsBackend =
    e.ls_method === "model"
      ? // The checker's labels were recorded with each primary generation; a missing one reads as neutral, as the aggregate's did.
        {
          method: "model",
          labels: items.map((_, i) => byUnit.get(`${m}:${i}:p`)?.nli?.labels ?? null),
          fallback: "neutral",
        }
      : { method: e.ls_method === "none" ? "none" : "lexical" };
  // Embedding vectors are not stored, so SS by embeddings cannot be recomputed per item.
  const ssStored = e.ss_method !== "embeddings";
  const ss: SsBackend = { method: e.ss_method === "jaccard" ? "jaccard" : "none" };
  return { ls, ss, ssStored };
}

/** Model m's per-item scores, from its samples as the aggregate rebuilds each item's record (aggregate.ts). */
async function itemScores(
  run: Run,
  m: number,
  items: readonly Item[],
  byUnit: ReadonlyMap<string, RqOutput | null>,
): Promise<{ scores: ItemScores; ssStored: boolean }> {
  const metrics = run.config.metrics;
  const outcome = (o: RqOutput | null | undefined): CallOutcome | undefined =>
    !o
      ? undefined
      : o.ok
        ? { ok: true, text: o.text ?? "", output_tokens: o.output_tokens }
        : { ok: false, error: o.error ?? "failed" };
  const records = items.map((item, i) => {
    const plan = planItem(item, i, { metrics });
    const get = (key: string) => outcome(byUnit.get(`${m}:${i}:${key}`));
    return buildRecord(
      item,
      plan,
      {
        primary: get("p") ?? { ok: false, error: "not run" },
        extras: plan.extras.map((c) => get(`r${c.run}`)),
        perturbations: plan.perturbations.map((c) => (c ? get(`x${c.slot}`) : null)),
      },
      { metrics },
    );
  });
  const { ls, ss, ssStored } = backendsOf(run.result.models[m], m, items, byUnit);
  return { scores: await scoreItems(records, metrics, { matcher: run.config.matcher, ls, ss }), ssStored };
}

/** Each run's weights for a strategy, exactly as its aggregate used them. */
function weightsOf(run: Run): Record<string, Weights> {
  return { ...mergeStrategies(resolveWeightTable(run.config.preset), run.config.custom_strategies) };
}

/** The strategies both runs scored with the same effective weights (others are not the same Q). */
function sharedStrategies(base: Run, head: Run): { shared: string[]; skipped: { strategy: string; reason: string }[] } {
  const shared: string[] = [];
  const skipped: { strategy: string; reason: string }[] = [];
  for (const s of new Set([...Object.keys(base.result.strategies), ...Object.keys(head.result.strategies)])) {
    const [wb, wh] = [base.result.strategies[s], head.result.strategies[s]];
    if (!wb || !wh) skipped.push({ strategy: s, reason: `only in ${wb ? "base" : "head"}` });
    else if (JSON.stringify(wb) !== JSON.stringify(wh))
      skipped.push({ strategy: s, reason: "the runs weigh it differently" });
    else shared.push(s);
  }
  return { shared, skipped };
}

/**
 * Percentile intervals of several statistics over the same bootstrap resamples. `row` computes every
 * statistic of one resample at once (two `summarise` calls, not one per statistic); the bootstrap is
 * deterministic for its seed, so the later passes see the same resamples in the same order and read the
 * stored rows back instead of recomputing them.
 */
function bootstrapRows(
  n: number,
  width: number,
  row: (idx: number[]) => number[],
  confidence: number,
): ([number, number] | null)[] {
  if (width === 0) return [];
  const rows: number[][] = [];
  const first = pairedBootstrapCi(
    n,
    (idx) => {
      const r = row(Array.from(idx));
      rows.push(r);
      return r[0];
    },
    { confidence },
  );
  const out = [first];
  for (let j = 1; j < width; j++) {
    let b = 0;
    out.push(pairedBootstrapCi(n, () => rows[b++][j], { confidence }));
  }
  return out;
}

const outcomeOf = (s: ItemScores, i: number) => (s.failed[i] ? "failed" : s.cq[i] === 1 ? "correct" : "wrong");
const nullToNaN = (x: number | null) => (x === null ? NaN : x);

/** One model's comparison, item by item. */
async function compareModel(
  name: string,
  base: Run,
  head: Run,
  sides: {
    items: readonly Item[];
    byUnit: [ReadonlyMap<string, RqOutput | null>, ReadonlyMap<string, RqOutput | null>];
  },
  strategies: readonly string[],
  o: { confidence: number; minEffect: number },
): Promise<{
  metrics: MetricComparison[];
  flipped: FlippedItem[];
  unverified: string[];
  correctness: Record<string, number>;
}> {
  const runs = [base, head] as const;
  const [mb, mh] = runs.map((r) => r.result.models.findIndex((x) => x.model === name));
  const [rb, rh] = [base.result.models[mb], head.result.models[mh]];
  const [sb, sh] = await Promise.all([
    itemScores(base, mb, sides.items, sides.byUnit[0]),
    itemScores(head, mh, sides.items, sides.byUnit[1]),
  ]);
  const n = sides.items.length;
  const [wb, wh] = [weightsOf(base), weightsOf(head)];
  const missing = [rb.extensions.missing_metric, rh.extensions.missing_metric];
  const figures = (
    s: ItemScores,
    idx: number[] | undefined,
    weights: Record<string, Weights>,
    missingMetric: "renormalize" | "zero",
  ) => {
    const set = summarise(s, idx);
    return {
      raw: set.raw,
      rounded: set.raw_metrics,
      q: strategies.map((st) => aggregate(set.raw_metrics, weights[st], { missingMetric })),
    };
  };

  // Only figures the samples reproduce get an interval (the whole set gives back the result's value).
  const [fb, fh] = [figures(sb.scores, undefined, wb, missing[0]), figures(sh.scores, undefined, wh, missing[1])];
  const unverified = new Set<string>();
  for (const k of ALL_METRICS) {
    if (fb.rounded[k] !== rb.raw_metrics[k] || fh.rounded[k] !== rh.raw_metrics[k]) unverified.add(k);
  }
  if (!sb.ssStored || !sh.ssStored) unverified.add("stability");
  strategies.forEach((st, j) => {
    if (Math.abs(fb.q[j] - rb.aggregated[st]) > 1e-12 || Math.abs(fh.q[j] - rh.aggregated[st]) > 1e-12)
      unverified.add(`q.${st}`);
  });

  const rows = bootstrapRows(
    n,
    BOOTSTRAPPED.length + strategies.length,
    (idx) => {
      const [b, h] = [figures(sb.scores, idx, wb, missing[0]), figures(sh.scores, idx, wh, missing[1])];
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
    const [cb, ch] = [sb.scores.cq[i] === 1, sh.scores.cq[i] === 1];
    if (cb && ch) t.both++;
    else if (cb) t.baseOnly++;
    else if (ch) t.headOnly++;
    else t.neither++;
    const [ob, oh] = [outcomeOf(sb.scores, i), outcomeOf(sh.scores, i)];
    if (ob !== oh) flipped.push({ id: `${name}/${sides.items[i].id}`, base: ob, head: oh });
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

/** The results' figures alone, when the items cannot be rebuilt: no pairing, no interval. */
function resultsOnly(
  name: string,
  base: Run,
  head: Run,
  strategies: readonly string[],
  minEffect: number,
): MetricComparison[] {
  const [rb, rh] = [base, head].map((r) => r.result.models.find((x) => x.model === name)!);
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
    r.result.rankings[st]?.find((x) => x.model === model)?.rank ?? null;
  return Object.fromEntries(
    strategies.map((st) => [
      st,
      models
        .map((model) => ({ model, base_rank: rankIn(base, st, model), head_rank: rankIn(head, st, model) }))
        .filter((x) => x.base_rank !== x.head_rank),
    ]),
  );
}

function byUnitOf(samples: readonly StoredSample[]): Map<string, RqOutput | null> {
  return new Map(samples.map((s) => [s.unitId, s.output as RqOutput | null]));
}

export const rqComparer: Comparer<RqPublicConfig, RqResult> = {
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
      const [eb, eh] = [base, head].map((r) => r.result.models.find((m) => m.model === name)!.extensions);
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
    const details: Record<string, unknown> = {
      models: {
        compared: common,
        base_only: modelNames(base).filter((m) => !headNames.has(m)),
        head_only: modelNames(head).filter((m) => !baseNames.has(m)),
      },
      rank_changes: rankChanges(base, head, shared, common),
      ...(skipped.length ? { strategies_not_compared: skipped } : {}),
    };
    const items = await itemsOf(base, o.datasetItems);
    if (!items) {
      details.unpaired_reason =
        "a dataset of the runs has been deleted since, so their items cannot be read back: the runs are compared on their results' figures only, without intervals";
      return {
        paired: false,
        metrics: common.flatMap((name) => resultsOnly(name, base, head, shared, o.minEffect)),
        flipped: [],
        details,
      };
    }
    const [sb, sh] = await Promise.all([base.samples(), head.samples()]);
    const byUnit = [byUnitOf(sb), byUnitOf(sh)] as [Map<string, RqOutput | null>, Map<string, RqOutput | null>];
    const metrics: MetricComparison[] = [];
    const flipped: FlippedItem[] = [];
    const correctness: Record<string, unknown> = {};
    const noInterval: Record<string, string[]> = {};
    for (const name of common) {
      const c = await compareModel(name, base, head, { items, byUnit }, shared, o);
      metrics.push(...c.metrics);
      flipped.push(...c.flipped);
      correctness[name] = c.correctness;
      if (c.unverified.length) noInterval[name] = c.unverified;
    }
    details.items = items.length;
    details.correctness = correctness;
    if (Object.keys(noInterval).length) details.no_interval = noInterval;
    return { paired: true, metrics, flipped, details };
  },
};
