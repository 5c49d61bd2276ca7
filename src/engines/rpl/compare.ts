/**
 * Comparison of RPL runs, the original's planned `view compare` (spec §17): runs must agree on every
 * setting except the one dimension being compared (model or prompt version); the figures compared
 * are p, CI width, stability and PQS, and the winner follows the original's cohort rule.
 */

/** The settings that must match, apart from the compared dimension. */
export const PARITY_FIELDS = ["claim", "model", "prompt_version", "K", "R", "T", "B", "max_output_tokens"] as const;
/** The settings a comparison may vary (one at a time). */
export const COMPARABLE = ["model", "prompt_version"] as const;

/** A width difference smaller than this is a tie on width (the original's 0.003). */
export const WIDTH_EPSILON = 0.003;

export type ComparedRun = {
  run_id: string;
  config: Record<(typeof PARITY_FIELDS)[number], unknown>;
  prob_true_rpl: number;
  ci95: [number, number];
  ci_width: number;
  stability_score: number;
  pqs: number;
};

export type Comparison = {
  dimension: (typeof COMPARABLE)[number] | null;
  parity: Record<string, unknown>;
  runs: Array<
    ComparedRun & {
      value: unknown;
      delta_p: number;
      delta_ci_width: number;
      delta_stability: number;
      delta_pqs: number;
    }
  >;
  winner: { run_id: string | null; rule: "ci_width" | "pqs" | "stability" | "tie" };
};

/** Thrown when runs cannot be compared; `fields` names the settings that differ beyond one. */
export class ParityError extends RangeError {
  readonly fields: string[];
  constructor(fields: string[], message: string) {
    super(message);
    this.name = "ParityError";
    this.fields = fields;
  }
}

/**
 * Compares ≥ 2 runs. Deltas are against the first run. Winner: the narrowest CI wins if it is
 * narrower than every other by at least WIDTH_EPSILON; otherwise, among the runs within
 * WIDTH_EPSILON of the narrowest, the highest PQS, then the highest stability; otherwise a tie.
 * @throws ParityError when runs differ in a setting other than one comparable dimension.
 */
export function compareRuns(runs: ComparedRun[]): Comparison {
  if (runs.length < 2) throw new RangeError("compareRuns: need at least 2 runs");
  const differing = PARITY_FIELDS.filter((f) =>
    runs.some((r) => JSON.stringify(r.config[f]) !== JSON.stringify(runs[0].config[f])),
  );
  const fixed = differing.filter((f) => !(COMPARABLE as readonly string[]).includes(f));
  if (fixed.length > 0 || differing.length > 1) {
    throw new ParityError(
      differing,
      `the runs differ in ${differing.join(", ")}; a comparison may vary only one of ${COMPARABLE.join(" or ")}, everything else equal`,
    );
  }
  const dimension = (differing[0] as Comparison["dimension"]) ?? null;
  const base = runs[0];
  const parity = Object.fromEntries(PARITY_FIELDS.filter((f) => f !== dimension).map((f) => [f, base.config[f]]));
  return {
    dimension,
    parity,
    runs: runs.map((r) => ({
      ...r,
      value: dimension ? r.config[dimension] : null,
      delta_p: r.prob_true_rpl - base.prob_true_rpl,
      delta_ci_width: r.ci_width - base.ci_width,
      delta_stability: r.stability_score - base.stability_score,
      delta_pqs: r.pqs - base.pqs,
    })),
    winner: winner(runs),
  };
}

function winner(runs: ComparedRun[]): Comparison["winner"] {
  const byWidth = [...runs].sort((a, b) => a.ci_width - b.ci_width);
  const near = byWidth.filter((r) => r.ci_width - byWidth[0].ci_width < WIDTH_EPSILON);
  if (near.length === 1) return { run_id: near[0].run_id, rule: "ci_width" };
  const topPqs = Math.max(...near.map((r) => r.pqs));
  const byPqs = near.filter((r) => r.pqs === topPqs);
  if (byPqs.length === 1) return { run_id: byPqs[0].run_id, rule: "pqs" };
  const topStability = Math.max(...byPqs.map((r) => r.stability_score));
  const byStability = byPqs.filter((r) => r.stability_score === topStability);
  if (byStability.length === 1) return { run_id: byStability[0].run_id, rule: "stability" };
  return { run_id: null, rule: "tie" };
}
