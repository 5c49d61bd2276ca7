/**
 * Comparing two runs of one evaluator (issues 18, 23): the contract every evaluator's comparer keeps, and
 * the verdict rules they share. When a run is aggregated its comparer keeps a basis (per-item scores and
 * the result's figures it reads); the generic route (src/routes/compare.ts) loads the two bases, checks
 * the runs are comparable, hands them to the comparer and keeps the answer. The statistics are pure
 * functions in src/engines/stats/. docs/compare.md tells the whole story.
 */
import { z } from "@hono/zod-openapi";
import type { FieldError } from "../../errors.ts";
import type { StoredSample } from "./types.ts";

export const VerdictSchema = z.enum(["improved", "regressed", "no_change"]);
export type Verdict = z.infer<typeof VerdictSchema>;

/** One metric of the comparison; `delta` is head − base, and `ci95` its interval at the requested confidence. */
export const MetricComparisonSchema = z
  .object({
    /** Dotted name, e.g. `divergence_rate` or `careful.correctness`. */
    name: z.string(),
    base: z.number().nullable(),
    head: z.number().nullable(),
    delta: z.number().nullable().openapi({ description: "head − base" }),
    /** Without an interval, only `min_effect` decides the verdict. */
    ci95: z
      .tuple([z.number(), z.number()])
      .nullable()
      .openapi({ description: "The interval of delta at the requested confidence; null where the metric has none" }),
    /** The test's p-value where one is run (McNemar on paired flags, say); else null. */
    p_value: z.number().nullable(),
    higher_is_better: z
      .boolean()
      .nullable()
      .openapi({ description: "null: the change has no better direction (reported, never judged)" }),
    /** How the interval was made: `newcombe`, `newcombe-paired`, `paired-bootstrap`, `combined-bootstraps`, `none`. */
    method: z.string(),
    verdict: VerdictSchema,
  })
  .openapi("MetricComparison");
export type MetricComparison = z.infer<typeof MetricComparisonSchema>;

/** An item whose outcome changed between the runs (a query that started diverging, an item whose consensus moved). */
export const FlippedItemSchema = z.object({ id: z.string(), base: z.string(), head: z.string() });
export type FlippedItem = z.infer<typeof FlippedItemSchema>;

/**
 * A paired 2×2 table of items right or wrong in each run (judge's accuracy, reasoning-quality's
 * correctness per model): what Newcombe's paired interval and McNemar's test were computed from.
 */
export const PairedOutcomesSchema = z
  .object({
    items: z.number().int(),
    both_correct: z.number().int(),
    base_only_correct: z.number().int(),
    head_only_correct: z.number().int(),
    neither_correct: z.number().int(),
  })
  .openapi("PairedOutcomes");
export type PairedOutcomes = z.infer<typeof PairedOutcomesSchema>;

/** What an evaluator's comparer answers; the route adds the common fields. */
export type EvaluatorComparison<Details = unknown> = {
  /** Whether items were paired (same queries / items / dataset in both runs). */
  paired: boolean;
  metrics: MetricComparison[];
  flipped: FlippedItem[];
  /** Anything else the evaluator shows (rpl's winner, rq's rank changes, cd's modal-share changes), as its comparer's `details` schema declares. */
  details: Details;
};

/**
 * A run as a comparison sees it: its public config and its basis, what the comparer kept of it when the
 * run was aggregated (`Comparer.basis`). Never its samples: a comparison of two 60,000-unit runs must fit
 * in one Worker request (128 MB, 30 s CPU), and the samples alone would not.
 */
export type ComparedRun<Config = Record<string, unknown>, Basis = unknown> = {
  id: string;
  config: Config;
  basis: Basis;
};

export type CompareOptions = {
  confidence: number;
  minEffect: number;
  /** Whether one of the tenant's uploaded datasets still exists, for evaluators that pair on their items. */
  datasetExists?: (id: string) => Promise<boolean>;
};

/**
 * What a basis is built from. At the run's finish: the evaluator's own config (the coordinator's, not
 * the public one), its result and a cursor over its samples. For a run aggregated before bases were
 * kept: the public config and the result only (no samples), so a comparer that needs the samples
 * answers null there.
 */
export type BasisInput<Result = unknown> = {
  config: unknown;
  result: Result;
  samples?: Iterable<StoredSample>;
};

export interface Comparer<Config = Record<string, unknown>, Result = unknown, Basis = unknown, Details = unknown> {
  /**
   * The schema of what `compare` answers as `details`, named `<Evaluator>ComparisonDetails`: the document's
   * `Comparison` has one variant per evaluator with it (src/routes/comparison-schemas.ts), so a client reads
   * the details typed once it has narrowed on `evaluator`.
   */
  readonly details: z.ZodType<Details>;
  /**
   * What a comparison of this run needs, computed once when the run is aggregated and kept in R2
   * (src/runs/results/comparison-store.ts): compact per-item scores and the few figures of the result it reads.
   * Null: it cannot be built from this input (see BasisInput).
   */
  basis(input: BasisInput<Result>): Basis | null | Promise<Basis | null>;
  /**
   * What makes two runs incomparable (different claim, K, dataset, labels …): each a FieldError whose
   * path names the setting (`config.K`) and whose message says what each run has. Empty: comparable.
   */
  incomparable(base: ComparedRun<Config, Basis>, head: ComparedRun<Config, Basis>): FieldError[];
  compare(
    base: ComparedRun<Config, Basis>,
    head: ComparedRun<Config, Basis>,
    opts: CompareOptions,
  ): Promise<EvaluatorComparison<Details>>;
  /**
   * Optional: whether the answer may be kept and served again. Two final runs never change, but what a
   * comparison reads beside them may (a dataset the tenant deletes): false answers afresh each time.
   * Decided by the runs' configs alone, before any basis is read.
   */
  cacheable?(base: { config: Config }, head: { config: Config }, opts: CompareOptions): Promise<boolean>;
}

/**
 * A metric's verdict: a change counts only when its interval excludes 0, any test run on it is
 * significant at 1 − confidence, and it is at least `minEffect` in size; its direction then says improved
 * or regressed. A metric without an interval (`method: "none"`) is judged only against a noise floor the
 * caller set (`minEffect` > 0): a point estimate alone never makes a verdict, or two runs of one
 * non-deterministic model would "regress" at random. A metric whose method has an interval but could not
 * make one (too few items) is no_change. A metric without a better direction is never judged.
 */
export function metricVerdict(
  delta: number | null,
  ci: [number, number] | null,
  minEffect: number,
  higherIsBetter: boolean | null,
  method = "none",
  test?: { pValue: number | null; alpha: number },
): Verdict {
  if (higherIsBetter === null || delta === null || !Number.isFinite(delta)) return "no_change";
  if (Math.abs(delta) < minEffect || delta === 0) return "no_change";
  if (ci === null && (method !== "none" || minEffect === 0)) return "no_change";
  if (ci && ci[0] <= 0 && ci[1] >= 0) return "no_change";
  if (test && test.pValue !== null && !(test.pValue < test.alpha)) return "no_change";
  return delta > 0 === higherIsBetter ? "improved" : "regressed";
}

/** The overall verdict: regressed if any metric regressed, else improved if any improved, else no_change. */
export function overallVerdict(metrics: readonly { verdict: Verdict }[]): Verdict {
  if (metrics.some((m) => m.verdict === "regressed")) return "regressed";
  if (metrics.some((m) => m.verdict === "improved")) return "improved";
  return "no_change";
}

/** Builds one metric's comparison and its verdict. */
export function metric(
  name: string,
  base: number | null,
  head: number | null,
  ci95: [number, number] | null,
  o: { higherIsBetter: boolean | null; method: string; minEffect: number; pValue?: number | null; confidence?: number },
): MetricComparison {
  const delta = base === null || head === null ? null : head - base;
  return {
    name,
    base,
    head,
    delta,
    ci95,
    p_value: o.pValue ?? null,
    higher_is_better: o.higherIsBetter,
    method: o.method,
    verdict: metricVerdict(
      delta,
      ci95,
      o.minEffect,
      o.higherIsBetter,
      o.method,
      o.pValue == null || o.confidence === undefined ? undefined : { pValue: o.pValue, alpha: 1 - o.confidence },
    ),
  };
}
