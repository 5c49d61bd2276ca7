/** Builders of reasoning-quality report inputs for the report tests. */
import type { RqMetrics, RqModelReport, RqReport } from "../../../src/reports/reasoning-quality/index.ts";

export function metrics(over: Partial<RqMetrics> = {}): RqMetrics {
  return {
    correctness: 0.8125,
    consistency: 0.75,
    robustness: 0.6667,
    logical_coherence: 0.9,
    efficiency: 0.5432,
    stability: 0.7,
    ...over,
  };
}

export function model(name: string, over: Partial<RqModelReport> = {}): RqModelReport {
  return {
    model: name,
    raw_metrics: metrics(),
    aggregated: { balanced: 0.7, safety_priority: 0.71, accuracy_priority: 0.72, efficiency_priority: 0.65 },
    per_dataset: {},
    metadata: {
      num_samples: 40,
      consistency_runs: 3,
      stability_runs: 3,
      robustness_perturbations: 3,
      datasets: ["gsm8k"],
    },
    ...over,
  };
}

export function report(models: RqModelReport[], over: Partial<RqReport> = {}): RqReport {
  return { run_id: "run_01HZX", created_at: "2026-05-01T12:34:56.000Z", duration_seconds: 123.456, models, ...over };
}
