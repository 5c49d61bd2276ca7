/** Column definitions shared by the CSV and XLSX renderers, so both agree on order and labels. */
import { METRIC_KEYS } from "../../engines/reasoning-quality/index.ts";
import type { RqMetrics, RqModelReport } from "./types.ts";

/** The metric keys in the spec's fixed order (CQ, CS, RS, LS, ES, SS): the engine's one list. */
export { METRIC_KEYS };
// The report reads each of them from a model's metrics: a key the report type lacks fails to compile.
METRIC_KEYS satisfies readonly (keyof RqMetrics)[];

/** Spreadsheet header text of each metric, index-aligned with METRIC_KEYS. */
export const METRIC_LABELS = [
  "Correctness",
  "Consistency",
  "Robustness",
  "Logical Coherence",
  "Efficiency",
  "Stability",
] as const;

/** Strategies that always lead the column order when present, in this order (spec §10). */
export const LEADING_STRATEGIES = ["balanced", "safety_priority", "accuracy_priority", "efficiency_priority"] as const;

/**
 * Every strategy key found in any model's `aggregated`: the leading four first (only those present),
 * then the others in first-seen order (models in order, keys in insertion order).
 */
export function strategyKeys(models: readonly RqModelReport[]): string[] {
  const seen = new Set<string>();
  for (const m of models) for (const k of Object.keys(m.aggregated)) seen.add(k);
  const leading: string[] = LEADING_STRATEGIES.filter((k) => seen.has(k));
  return [...leading, ...[...seen].filter((k) => !leading.includes(k))];
}

/**
 * Header text of a strategy key: `_` → space, then Title Case the way the reference's Python
 * `str.title()` does it (a cased letter is upper-cased after a non-letter and lower-cased after a
 * letter), so custom keys get the same headers as in the reference workbook: "edge_device" →
 * "Edge Device", "v2_score" → "V2 Score".
 */
export function strategyLabel(key: string): string {
  let out = "";
  let prevCased = false;
  for (const ch of key.replace(/_/g, " ")) {
    const cased = ch.toLowerCase() !== ch.toUpperCase();
    out += cased ? (prevCased ? ch.toLowerCase() : ch.toUpperCase()) : ch;
    prevCased = cased;
  }
  return out;
}

/**
 * The value to render for a metric or score: a finite number, or null for "not computed".
 * NaN/±Infinity are treated as not computed too: they have no spreadsheet or CSV spelling that
 * tools read back as numbers, and an XLSX `<v>NaN</v>` makes Excel repair the file.
 */
export function cellNumber(v: number | null | undefined): number | null {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}
