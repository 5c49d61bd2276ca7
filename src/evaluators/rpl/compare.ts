/**
 * Comparing two rpl runs (issue 18): the generic compare's case of the original's planned `view compare`
 * (GET /v1/rpl/compare, which stays as it is). Parity and the winner are the engine's `compareRuns`, so
 * both endpoints refuse the same pairs and name the same winner.
 *
 * Metrics, head − base:
 * - `prob_true_rpl`: its interval combines the two runs' bootstrap intervals (`moverDifference`). A prior
 *   that moves is neither better nor worse: the metric is two-sided, its verdict is always `no_change`,
 *   and `details.prob_true_rpl.moved` says whether its interval excludes 0 (and the change is at least
 *   `min_effect`).
 * - `ci_width` (lower is better), `stability_score` and `pqs` (higher is better): one figure per run and no
 *   interval, so only `min_effect` decides; a width change under the winner rule's 0.003 counts as none,
 *   as the original's cohort rule calls it a tie.
 * Nothing is paired: each run's estimate comes from its own samples and its own bootstrap.
 */
import { compareRuns, ParityError, WIDTH_EPSILON, type ComparedRun as EngineRun } from "../../engines/rpl/index.ts";
import { moverDifference, zFor } from "../../engines/stats/index.ts";
import type { FieldError } from "../../errors.ts";
import {
  metric,
  metricVerdict,
  type BasisInput,
  type ComparedRun,
  type Comparer,
  type MetricComparison,
} from "../../runs/plugin/compare.ts";
import { RplComparisonDetails, type RplPublicConfig, type RplResult } from "./schemas.ts";

/** What a comparison reads of a run's result, kept when it is aggregated: its figures. */
export type RplBasis = {
  aggregates: Pick<RplResult["aggregates"], "prob_true_rpl" | "ci95" | "ci_width" | "stability_score">;
  quality: Pick<RplResult["quality"], "pqs">;
};

type Run = ComparedRun<RplPublicConfig, RplBasis>;

function rplBasis({ result: r }: BasisInput<RplResult>): RplBasis {
  const a = r.aggregates;
  return {
    aggregates: {
      prob_true_rpl: a.prob_true_rpl,
      ci95: a.ci95,
      ci_width: a.ci_width,
      stability_score: a.stability_score,
    },
    quality: { pqs: r.quality.pqs },
  };
}

/** The confidence of each run's own interval: the frozen estimator takes the 2.5 and 97.5 percentiles. */
const RUN_CONFIDENCE = 0.95;

/**
 * A run's 95 % interval taken to another confidence: each side's distance from the estimate scaled by
 * z(confidence)/z(0.95), the normal approximation's rule. The bootstrap distribution itself is not kept
 * in the result, so its other percentiles are not known; at 0.95 the interval is the run's own.
 */
function atConfidence(estimate: number, ci: readonly [number, number], confidence: number): [number, number] {
  if (confidence === RUN_CONFIDENCE) return [ci[0], ci[1]];
  const scale = zFor(confidence) / zFor(RUN_CONFIDENCE);
  return [estimate - (estimate - ci[0]) * scale, estimate + (ci[1] - estimate) * scale];
}

/** The figures the engine's comparison reads, as GET /v1/rpl/compare builds them. */
function engineRun(run: Run): EngineRun {
  const r = run.basis;
  return {
    run_id: run.id,
    config: run.config as EngineRun["config"],
    prob_true_rpl: r.aggregates.prob_true_rpl,
    ci95: r.aggregates.ci95,
    ci_width: r.aggregates.ci_width,
    stability_score: r.aggregates.stability_score,
    pqs: r.quality.pqs,
  };
}

const shown = (v: unknown) => (v === undefined ? "none" : JSON.stringify(v));

export const rplComparer: Comparer<RplPublicConfig, RplResult, RplBasis, RplComparisonDetails> = {
  details: RplComparisonDetails,
  basis: rplBasis,

  incomparable(base, head) {
    try {
      compareRuns([engineRun(base), engineRun(head)]);
      return [];
    } catch (err) {
      if (!(err instanceof ParityError)) throw err;
      // Two differing dimensions (model and prompt_version) are each comparable alone: say so on each.
      const fixed = err.fields.filter((f) => f !== "model" && f !== "prompt_version");
      return err.fields.map(
        (f): FieldError => ({
          path: `config.${f}`,
          message:
            `base has ${shown(base.config[f as keyof RplPublicConfig])}, head ${shown(head.config[f as keyof RplPublicConfig])}` +
            (fixed.length ? "" : "; a comparison may vary only one of model or prompt_version"),
        }),
      );
    }
  },

  async compare(base, head, { confidence, minEffect }) {
    const engine = compareRuns([engineRun(base), engineRun(head)]);
    const [b, h] = [base.basis.aggregates, head.basis.aggregates];
    const ci = moverDifference(
      b.prob_true_rpl,
      atConfidence(b.prob_true_rpl, b.ci95, confidence),
      h.prob_true_rpl,
      atConfidence(h.prob_true_rpl, h.ci95, confidence),
    );
    // Two-sided: a prior moving is not a regression by itself, so the metric has no better direction
    // (never judged); whether it moved beyond its interval and min_effect is reported in details.
    const p = metric("prob_true_rpl", b.prob_true_rpl, h.prob_true_rpl, ci, {
      higherIsBetter: null,
      method: "combined-bootstraps",
      minEffect,
    });
    const moved = metricVerdict(p.delta, ci, minEffect, true, "combined-bootstraps") !== "no_change";
    const metrics: MetricComparison[] = [
      p,
      metric("ci_width", b.ci_width, h.ci_width, null, {
        higherIsBetter: false,
        method: "none",
        minEffect: Math.max(minEffect, WIDTH_EPSILON),
      }),
      metric("stability_score", b.stability_score, h.stability_score, null, {
        higherIsBetter: true,
        method: "none",
        minEffect,
      }),
      metric("pqs", base.basis.quality.pqs, head.basis.quality.pqs, null, {
        higherIsBetter: true,
        method: "none",
        minEffect,
      }),
    ];
    return {
      paired: false,
      metrics,
      flipped: [],
      details: {
        dimension: engine.dimension,
        winner: engine.winner,
        prob_true_rpl: {
          two_sided: true,
          moved,
          direction: moved ? (p.delta! > 0 ? "up" : "down") : null,
        },
      },
    };
  },
};
