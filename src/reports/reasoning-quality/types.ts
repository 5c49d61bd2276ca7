/**
 * Input types of the reasoning-quality report renderers. They mirror the per-model result JSON
 * of the evaluation (one `RqModelReport` per model) plus the run-level fields of the summary.
 */

/**
 * The six metrics of one model (overall or for one dataset), each in [0, 1].
 * `null` means "not computed" (e.g. LS with the NLI backend "none", RS with no perturbations);
 * renderers show it as a gap, never as 0.
 */
export type RqMetrics = {
  correctness: number;
  consistency: number;
  robustness: number | null;
  logical_coherence: number | null;
  efficiency: number;
  stability: number | null;
};

/** One model's results, as the engine reports them. */
export type RqModelReport = {
  model: string;
  /** Already rounded to 4 dp. */
  raw_metrics: RqMetrics;
  /** Strategy key → composite Q (balanced, safety_priority, …, custom keys), in insertion order. */
  aggregated: Record<string, number>;
  /** Per-dataset breakdown; `{}` when the run used only one dataset. */
  per_dataset: Record<string, { raw_metrics: RqMetrics; aggregated: Record<string, number>; num_samples: number }>;
  metadata: {
    num_samples: number;
    consistency_runs: number;
    stability_runs: number;
    robustness_perturbations: number;
    datasets: string[];
  };
};

/** A whole reasoning-quality run: what every renderer takes. */
export type RqReport = {
  run_id: string;
  /** ISO 8601. */
  created_at: string;
  duration_seconds: number | null;
  models: RqModelReport[];
};
