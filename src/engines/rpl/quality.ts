/**
 * Stability (spec rpl.md §10) and PQS v1 with its gates (§11): the run-quality numbers derived from an
 * aggregation. Gates are informational; no run fails because of them.
 */
import { percentile } from "../stats/index.ts";

export type StabilityBand = "high" | "medium" | "low";

/**
 * IQR of the per-template mean logits (linear percentiles 75 − 25) and the calibrated score
 * `1 / (1 + (max(0, iqr)/s)^alpha)` with s = 0.2 (floored at 1e-12) and alpha = 1.7 (floored at 1e-6).
 * iqr = 0 → 1.0; iqr = 0.2 → 0.5. The band uses the IQR, not the score: ≤ 0.05 high, ≤ 0.30 medium, else low.
 * Empty basis → iqr 0 and score 0.0 (as the original).
 */
export function stability(
  basis: ArrayLike<number>,
  s = 0.2,
  alpha = 1.7,
): { iqr: number; score: number; band: StabilityBand } {
  if (basis.length === 0) return { iqr: 0, score: 0, band: "high" };
  const iqr = percentile(basis, 75) - percentile(basis, 25);
  const score = 1 / (1 + (Math.max(0, iqr) / Math.max(s, 1e-12)) ** Math.max(alpha, 1e-6));
  return { iqr, score, band: stabilityBand(iqr) };
}

/** Band thresholds of §10 on the logit IQR. */
export function stabilityBand(iqr: number): StabilityBand {
  return iqr <= 0.05 ? "high" : iqr <= 0.3 ? "medium" : "low";
}

export type Pqs = {
  pqs: number;
  pqs_version: "v1";
  gate_compliance_ok: 0 | 1;
  gate_stability_ok: 0 | 1;
  gate_precision_ok: 0 | 1;
};

/**
 * PQS v1: `trunc(100·(0.4·stability + 0.4·(1 − min(width, 0.5)/0.5) + 0.2·compliance))`, truncating toward
 * zero as Python `int()` does (not rounding). Gates: compliance ≥ 0.98, stability ≥ 0.25, width ≤ 0.30.
 * `width` is the CI width in probability space.
 */
export function pqsV1(stabilityScore: number, width: number, complianceRate: number): Pqs {
  const raw = 100 * (0.4 * stabilityScore + 0.4 * (1 - Math.min(width, 0.5) / 0.5) + 0.2 * complianceRate);
  return {
    pqs: Math.trunc(raw),
    pqs_version: "v1",
    gate_compliance_ok: complianceRate >= 0.98 ? 1 : 0,
    gate_stability_ok: stabilityScore >= 0.25 ? 1 : 0,
    gate_precision_ok: width <= 0.3 ? 1 : 0,
  };
}
