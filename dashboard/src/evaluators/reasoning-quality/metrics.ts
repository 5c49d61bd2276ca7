// The six reasoning-quality metrics, in the API's order (\`metric_keys\`), with the names and abbreviations
// the original's report uses: one list for the run page and the new-run form.
import type { RqRawMetrics } from "@assay/sdk";

export type MetricKey = keyof RqRawMetrics;

/** The six dimensions in the paper's order, with the names and abbreviations the original's report uses. */
export const METRICS: { key: MetricKey; name: string; abbr: string }[] = [
  { key: "correctness", name: "Correctness", abbr: "CQ" },
  { key: "consistency", name: "Consistency", abbr: "CS" },
  { key: "robustness", name: "Robustness", abbr: "RS" },
  { key: "logical_coherence", name: "Logical coherence", abbr: "LS" },
  { key: "efficiency", name: "Efficiency", abbr: "ES" },
  { key: "stability", name: "Stability", abbr: "SS" },
];
