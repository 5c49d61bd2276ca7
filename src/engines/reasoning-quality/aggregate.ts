/**
 * Composite score Q (spec §8): Q_s = clamp_[0,1](Σ_k w_k · m_k) over the metric keys in the fixed order
 * CQ, CS, RS, LS, ES, SS, with auto-normalised weights. Python adds Σw left to right in the weights'
 * insertion order, and the products in metric order; both are kept so Q matches the reference bit for bit.
 * (JavaScript objects put integer-like keys first; metric keys never are, so insertion order holds.)
 */
import { METRIC_KEYS, type MetricKey, type RawMetrics } from "./metrics.ts";

export type Weights = Readonly<Record<string, number>>;
/** Strategy name → weights; the object's key order is the strategy (and Excel column) order. */
export type WeightTable = Readonly<Record<string, Weights>>;

const w = (cq: number, cs: number, rs: number, ls: number, es: number, ss: number): Weights =>
  Object.freeze({
    correctness: cq,
    consistency: cs,
    robustness: rs,
    logical_coherence: ls,
    efficiency: es,
    stability: ss,
  });
const uniform = (x: number) => w(x, x, x, x, x, x);

// Camera-ready [C] rows (code defaults, config.yaml and the code's tests agree).
const SAFETY_CAMERA_READY = w(0.3, 0.05, 0.3, 0.25, 0.05, 0.05);
const ACCURACY_CAMERA_READY = w(0.5, 0.1, 0.15, 0.15, 0.05, 0.05);
const EFFICIENCY = w(0.2, 0.15, 0.15, 0.1, 0.3, 0.1);
// The three strategies [C] has only in config.yaml; README 1.1.4 lists the same weights.
const CONFIG_ONLY = {
  medical_triage: w(0.4, 0.05, 0.3, 0.2, 0.03, 0.02),
  legal_compliance: w(0.15, 0.25, 0.2, 0.35, 0.03, 0.02),
  edge_device: w(0.3, 0.03, 0.1, 0.05, 0.5, 0.02),
};

/**
 * The weight tables as the reference loads them (aggregation_vectors.jsonl `weight_table`):
 * - `code_defaults`: [C]'s hard-coded defaults, 4 strategies, balanced = 1/6;
 * - `config_yaml`: [C]'s config.yaml, 7 strategies, balanced written as 0.1667 × 6 (normalised by 1.0002);
 * - `readme_1_1_4`: the PyPI 1.1.4 README table, whose safety and accuracy rows differ from camera-ready.
 */
export const WEIGHT_TABLES = Object.freeze({
  code_defaults: Object.freeze({
    balanced: uniform(1 / 6),
    safety_priority: SAFETY_CAMERA_READY,
    accuracy_priority: ACCURACY_CAMERA_READY,
    efficiency_priority: EFFICIENCY,
  }),
  config_yaml: Object.freeze({
    balanced: uniform(0.1667),
    safety_priority: SAFETY_CAMERA_READY,
    accuracy_priority: ACCURACY_CAMERA_READY,
    efficiency_priority: EFFICIENCY,
    ...CONFIG_ONLY,
  }),
  readme_1_1_4: Object.freeze({
    balanced: uniform(1 / 6),
    safety_priority: w(0.3, 0.2, 0.3, 0.1, 0.05, 0.05),
    accuracy_priority: w(0.4, 0.25, 0.15, 0.1, 0.05, 0.05),
    efficiency_priority: EFFICIENCY,
    ...CONFIG_ONLY,
  }),
}) satisfies Record<string, WeightTable>;
export type WeightTableName = keyof typeof WEIGHT_TABLES;

/**
 * §8 [D] `preset_version`: "paper-v8" (default) is the camera-ready protocol exactly as [C] ran it
 * (config.yaml); "1.1.4" is the README's table.
 */
export type PresetVersion = "paper-v8" | "1.1.4";
export const PRESETS: Readonly<Record<PresetVersion, WeightTable>> = Object.freeze({
  "paper-v8": WEIGHT_TABLES.config_yaml,
  "1.1.4": WEIGHT_TABLES.readme_1_1_4,
});
export const DEFAULT_PRESET: PresetVersion = "paper-v8";

/** A preset version, a reference table name, or a table. */
export function resolveWeightTable(table: PresetVersion | WeightTableName | WeightTable = DEFAULT_PRESET): WeightTable {
  if (typeof table !== "string") return table;
  if (table in PRESETS) return PRESETS[table as PresetVersion];
  if (table in WEIGHT_TABLES) return WEIGHT_TABLES[table as WeightTableName];
  throw new RangeError(`unknown weight table or preset "${table}"`);
}

function sumInOrder(weights: Weights): number {
  let total = 0;
  for (const v of Object.values(weights)) total += v;
  return total;
}

/**
 * `_validate_weights`: when Σw > 0 and |Σw − 1| > 1e-6, every weight is divided by Σw; otherwise the weights
 * are used as given (so an all-zero table gives Q = 0).
 */
export function effectiveWeights(weights: Weights): Record<string, number> {
  const total = sumInOrder(weights);
  const out: Record<string, number> = {};
  const normalise = Math.abs(total - 1.0) > 1e-6 && total > 0;
  for (const [k, v] of Object.entries(weights)) out[k] = normalise ? v / total : v;
  return out;
}

const KEY_SET = new Set<string>(METRIC_KEYS);

/** §8 [D]: weights must name known metrics and be finite and non-negative. Throws a RangeError naming the key. */
export function checkWeights(weights: Weights, strategy = "custom"): void {
  for (const [k, v] of Object.entries(weights)) {
    if (!KEY_SET.has(k))
      throw new RangeError(
        `strategy "${strategy}": unknown metric key "${k}" (expected one of ${METRIC_KEYS.join(", ")})`,
      );
    if (typeof v !== "number" || !Number.isFinite(v))
      throw new RangeError(`strategy "${strategy}": weight "${k}" must be a finite number`);
    if (v < 0) throw new RangeError(`strategy "${strategy}": weight "${k}" is negative (${v})`);
  }
}

export type AggregateOptions = {
  /**
   * §4/§8 [D] `aggregation.missing_metric`, for a metric that is null (RS skipped, LS `none`): "renormalize"
   * (default) spreads the effective weights over the available metrics; "zero" scores it 0. A metric key
   * that is absent (undefined) counts as 0 either way, as in [C].
   */
  missingMetric?: "renormalize" | "zero";
  /**
   * Accept unknown keys and negative weights as [C] does (an unknown key counts in Σw but scores nothing;
   * the clamp absorbs negative totals). Only for comparing with the reference; the API rejects them.
   */
  codeCompatible?: boolean;
};

export type MetricValues = Partial<Record<MetricKey, number | null>> | RawMetrics;

/** Q for one set of weights, with the effective weights used and any warnings. */
export function aggregateDetailed(
  raw: MetricValues,
  weights: Weights,
  options: AggregateOptions = {},
  strategy = "custom",
): { q: number; effective_weights: Record<string, number>; warnings: string[] } {
  if (!options.codeCompatible) checkWeights(weights, strategy);
  const eff = effectiveWeights(weights);
  const warnings: string[] = [];
  if (sumInOrder(weights) === 0) warnings.push(`strategy "${strategy}": all weights are zero, Q = 0`);
  const value = (k: MetricKey) => (raw as Partial<Record<MetricKey, number | null>>)[k];
  const missing = METRIC_KEYS.filter((k) => value(k) === null);
  let score = 0;
  if (missing.length === 0 || (options.missingMetric ?? "renormalize") === "zero") {
    for (const k of METRIC_KEYS) score += (eff[k] ?? 0.0) * (value(k) ?? 0.0);
  } else {
    let available = 0;
    for (const k of METRIC_KEYS) if (value(k) !== null) available += eff[k] ?? 0.0;
    warnings.push(`strategy "${strategy}": ${missing.join(", ")} missing, weights renormalised over the others`);
    if (available > 0)
      for (const k of METRIC_KEYS) if (value(k) !== null) score += ((eff[k] ?? 0.0) / available) * (value(k) ?? 0.0);
  }
  return { q: Math.min(Math.max(score, 0.0), 1.0), effective_weights: eff, warnings };
}

/** Q for one set of weights (§8). */
export function aggregate(raw: MetricValues, weights: Weights, options: AggregateOptions = {}): number {
  return aggregateDetailed(raw, weights, options).q;
}

/** Q under every strategy of a table, in the table's order (every strategy is computed for every result). */
export function aggregateAll(
  raw: MetricValues,
  table: PresetVersion | WeightTableName | WeightTable = DEFAULT_PRESET,
  options: AggregateOptions = {},
): Record<string, number> {
  const resolved = resolveWeightTable(table);
  const out: Record<string, number> = {};
  for (const [name, weights] of Object.entries(resolved)) out[name] = aggregateDetailed(raw, weights, options, name).q;
  return out;
}

/**
 * Config strategies merged over the built-ins by name (§8): a known name keeps its position and takes the
 * new weights, a new name is appended. Custom weights are checked unless `codeCompatible`.
 */
export function mergeStrategies(
  base: WeightTable,
  custom: WeightTable,
  options: Pick<AggregateOptions, "codeCompatible"> = {},
): WeightTable {
  if (!options.codeCompatible) for (const [name, weights] of Object.entries(custom)) checkWeights(weights, name);
  return { ...base, ...custom };
}
