/**
 * Confidence intervals for a difference of two binomial proportions, both oriented head − base, both
 * built from Wilson score limits of each proportion (Newcombe's "hybrid score" idea), which keeps
 * the interval inside [−1, 1], well behaved at 0/n and n/n, and close to nominal coverage for small n:
 *
 * - independent samples: Newcombe (1998a), "Interval estimation for the difference between independent
 *   proportions: comparison of eleven methods", Statistics in Medicine 17:873–890, method 10;
 * - paired samples (the same items in both runs): Newcombe (1998b), "Improved confidence intervals for
 *   the difference between binomial proportions based on paired data", Statistics in Medicine
 *   17:2635–2650, method 10 (the same construction with the correlation φ̂ of the 2×2 table).
 *
 * The Wilson limits use the exact z of the confidence (1.959963984540054 at 0.95), not the harness's
 * fixed 1.96, so the results agree with the papers' tables.
 */
import { zFor } from "./normal.ts";
import { wilson } from "./wilson.ts";

function count(name: string, v: number): void {
  if (!Number.isInteger(v) || v < 0) throw new RangeError(`${name} must be a non-negative integer, got ${v}`);
}

/** Wilson limits of k/n at z, known non-empty (n >= 1). */
function limits(k: number, n: number, z: number): [number, number] {
  return wilson(k, n, z) as [number, number];
}

/**
 * CI of k2/n2 − k1/n1 (head − base) for independent samples, Newcombe's method 10: with p_i = k_i/n_i
 * and Wilson limits [l_i, u_i] at the same confidence, d = p2 − p1 and
 *   L = d − sqrt((p2 − l2)² + (u1 − p1)²),   U = d + sqrt((u2 − p2)² + (p1 − l1)²).
 * @throws RangeError when a count is not a non-negative integer, k > n, n = 0 (no estimate), or confidence is not in (0, 1).
 */
export function newcombeDifference(
  k1: number,
  n1: number,
  k2: number,
  n2: number,
  confidence: number,
): [number, number] {
  count("newcombeDifference: k1", k1);
  count("newcombeDifference: k2", k2);
  if (!Number.isInteger(n1) || n1 < 1 || k1 > n1)
    throw new RangeError(`newcombeDifference: n1 must be an integer >= max(1, k1), got ${n1} (k1 = ${k1})`);
  if (!Number.isInteger(n2) || n2 < 1 || k2 > n2)
    throw new RangeError(`newcombeDifference: n2 must be an integer >= max(1, k2), got ${n2} (k2 = ${k2})`);
  const z = zFor(confidence);
  const p1 = k1 / n1;
  const p2 = k2 / n2;
  const [l1, u1] = limits(k1, n1, z);
  const [l2, u2] = limits(k2, n2, z);
  const d = p2 - p1;
  return [d - Math.hypot(p2 - l2, u1 - p1), d + Math.hypot(u2 - p2, p1 - l1)];
}

/**
 * Newcombe's continuity correction of the association ad − bc: a positive one is shrunk by n/2 and
 * floored at 0, a negative one is kept. Without it the interval is too narrow for strongly concordant
 * tables (e.g. a = d = 1, b = c = 0 would give the single point 0).
 */
function correctedAssociation(association: number, n: number): number {
  if (association > n / 2) return association - n / 2;
  return association >= 0 ? 0 : association;
}

/** A paired 2×2 table of binary outcomes: counts of items by (base, head) outcome. */
export type PairedTable = {
  /** 1 in both runs. */
  both: number;
  /** 1 in base only (a regression when 1 is good). */
  baseOnly: number;
  /** 1 in head only. */
  headOnly: number;
  /** 0 in both runs. */
  neither: number;
};

/**
 * CI of p_head − p_base for paired binary outcomes, Newcombe's paired method 10. In the paper's notation
 * (a, b, c, d) = (both, headOnly, baseOnly, neither), so its θ = (b − c)/n is our head − base. With
 * p1 = (a+b)/n (head), p2 = (a+c)/n (base), their Wilson limits [l1, u1], [l2, u2], and the paper's
 * continuity-corrected correlation
 *   φ̂ = C / sqrt((a+b)(c+d)(a+c)(b+d)),  C = ad − bc − n/2 if ad − bc > n/2, 0 if 0 ≤ ad − bc ≤ n/2,
 *        ad − bc if ad − bc < 0   (φ̂ = 0 when any margin is 0),
 *   δ = sqrt((p1 − l1)² − 2φ̂(p1 − l1)(u2 − p2) + (u2 − p2)²),
 *   ε = sqrt((u1 − p1)² − 2φ̂(u1 − p1)(p2 − l2) + (p2 − l2)²),
 * the interval is [θ − δ, θ + ε].
 * @throws RangeError when a count is not a non-negative integer, the table is empty, or confidence is not in (0, 1).
 */
export function newcombePairedDifference(t: PairedTable, confidence: number): [number, number] {
  const { both: a, headOnly: b, baseOnly: c, neither: d } = t;
  count("newcombePairedDifference: both", a);
  count("newcombePairedDifference: headOnly", b);
  count("newcombePairedDifference: baseOnly", c);
  count("newcombePairedDifference: neither", d);
  const n = a + b + c + d;
  if (n === 0) throw new RangeError("newcombePairedDifference: the table is empty (no paired items)");
  const z = zFor(confidence);
  const p1 = (a + b) / n;
  const p2 = (a + c) / n;
  const [l1, u1] = limits(a + b, n, z);
  const [l2, u2] = limits(a + c, n, z);
  const margins = (a + b) * (c + d) * (a + c) * (b + d);
  const phi = margins === 0 ? 0 : correctedAssociation(a * d - b * c, n) / Math.sqrt(margins);
  const theta = (b - c) / n;
  // max(0, …): the radicand is a sum of squares minus a cross term and can round just below 0.
  const delta = Math.sqrt(Math.max(0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2));
  const eps = Math.sqrt(Math.max(0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2));
  return [theta - delta, theta + eps];
}
