/**
 * Divergence aggregation (spec chain-determinism.md §5) and the console summary text (§7), plus
 * two per-query descriptors of our own computed from the same rows.
 */
import { compareCodePoints } from "../python/index.ts";
import { wilson } from "../stats/index.ts";
import { seqFull, seqKey } from "./sequence-key.ts";

/** A per-replay row as stored: only these fields are read. */
export type DivergenceRow = {
  query_id?: string | null;
  tool_call_sequence?: unknown[] | null;
  error_category?: string | null;
  error?: unknown;
};

export type QueryDivergence =
  | { query_id: string; n_total: number; n_success: number; diverged: null; status: "insufficient" }
  | {
      query_id: string;
      n_total: number;
      n_success: number;
      diverged: boolean;
      status: "measurable";
      n_unique_sequences: number;
    };

/** The reference `chain_divergence_rate` output, key for key (CI as a 2-array). */
export type DivergenceStats = {
  n_total: number;
  n_errors: number;
  n_queries: number;
  n_measurable: number;
  n_diverged: number;
  divergence_rate: number | null;
  wilson_ci_95: [number, number] | [null, null];
  per_query: QueryDivergence[];
};

/** Our additions for one measurable query (see {@link queryDivergenceDetails}). */
export type QueryDetail = { query_id: string; modal_share: number; first_divergence_turn: number | null };

// §5: an error row has a truthy error_category or a truthy `error` (Python truthiness; "" is success).
function isError(row: DivergenceRow): boolean {
  return Boolean(row.error_category) || pyTruthy(row.error);
}

function pyTruthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object" && v !== null) return Object.keys(v).length > 0;
  return Boolean(v);
}

function groupRows(rows: readonly DivergenceRow[], minSuccess: number, fn: string): Map<string, DivergenceRow[]> {
  if (!Number.isInteger(minSuccess) || minSuccess < 2)
    throw new RangeError(`${fn}: minSuccess must be an integer >= 2, got ${minSuccess}`);
  const groups = new Map<string, DivergenceRow[]>();
  rows.forEach((row, i) => {
    const id = row?.query_id;
    if (id === undefined || id === null) throw new RangeError(`${fn}: rows[${i}].query_id is missing`);
    let g = groups.get(id);
    if (!g) groups.set(id, (g = []));
    g.push(row);
  });
  return new Map([...groups].sort((a, b) => compareCodePoints(a[0], b[0])));
}

/**
 * `chain_divergence_rate` (§5). Rows are grouped by `query_id` (ids in code-point order); a query
 * with fewer than `minSuccess` non-error rows is `insufficient`; otherwise it is `diverged` when its
 * success rows have more than one distinct sequence key (§4; null/absent sequence = `[]`). The
 * headline is diverged / measurable with a Wilson 95% interval (z = 1.96); with no measurable
 * query the rate is null and the interval `[null, null]`. Error rows only lower `n_success`.
 * @throws RangeError when `minSuccess` < 2 or a row lacks `query_id`; TypeError for a malformed sequence.
 */
export function chainDivergenceRate(rows: readonly DivergenceRow[], minSuccess = 5): DivergenceStats {
  const groups = groupRows(rows, minSuccess, "chainDivergenceRate");
  const perQuery: QueryDivergence[] = [];
  let nErrors = 0;
  let nMeasurable = 0;
  let nDiverged = 0;
  for (const [queryId, group] of groups) {
    const ok = group.filter((r) => !isError(r));
    nErrors += group.length - ok.length;
    if (ok.length < minSuccess) {
      perQuery.push({
        query_id: queryId,
        n_total: group.length,
        n_success: ok.length,
        diverged: null,
        status: "insufficient",
      });
      continue;
    }
    const keys = new Set(ok.map((r) => seqKey(r.tool_call_sequence ?? [])));
    const diverged = keys.size > 1;
    nMeasurable++;
    if (diverged) nDiverged++;
    perQuery.push({
      query_id: queryId,
      n_total: group.length,
      n_success: ok.length,
      diverged,
      status: "measurable",
      n_unique_sequences: keys.size,
    });
  }
  return {
    n_total: rows.length,
    n_errors: nErrors,
    n_queries: groups.size,
    n_measurable: nMeasurable,
    n_diverged: nDiverged,
    divergence_rate: nMeasurable === 0 ? null : nDiverged / nMeasurable,
    wilson_ci_95: wilson(nDiverged, nMeasurable),
    per_query: perQuery,
  };
}

/**
 * Our per-query descriptors, for every measurable query (same grouping, error rule and minSuccess
 * as {@link chainDivergenceRate}; ids in code-point order):
 * - `modal_share`: (number of success replays whose sequence key is the most common one) / n_success,
 *   in (0, 1]; 1 exactly when the query did not diverge.
 * - `first_divergence_turn`: the smallest 0-based tool-call index i at which the success replays do
 *   not all agree, where two replays agree at i when both have a call there with the same
 *   `(name, args)` key or both have ended before i (so a replay that stops early differs at its
 *   length); null when the query did not diverge.
 */
export function queryDivergenceDetails(rows: readonly DivergenceRow[], minSuccess = 5): QueryDetail[] {
  const out: QueryDetail[] = [];
  for (const [queryId, group] of groupRows(rows, minSuccess, "queryDivergenceDetails")) {
    const ok = group.filter((r) => !isError(r));
    if (ok.length < minSuccess) continue;
    // Per replay, the key of each call: the §4 key of a one-call sequence.
    const calls = ok.map((r) => seqFull(r.tool_call_sequence ?? []).map((pair) => JSON.stringify(pair)));
    const counts = new Map<string, number>();
    for (const c of calls) {
      const k = JSON.stringify(c);
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    const modal = Math.max(...counts.values());
    let first: number | null = null;
    if (counts.size > 1) {
      const longest = Math.max(...calls.map((c) => c.length));
      for (let i = 0; i <= longest && first === null; i++) {
        const atI = new Set(calls.map((c) => (i < c.length ? c[i] : "\u0000end")));
        if (atI.size > 1) first = i;
      }
    }
    out.push({ query_id: queryId, modal_share: modal / ok.length, first_divergence_turn: first });
  }
  return out;
}

// Python `format(x, ".1f")`: round-half-even on the exact binary value. JS toFixed rounds exact
// ties up; a double is an exact tie at the 2nd decimal only if 4x is an integer and 2x is not.
function fixed1(x: number): string {
  const s = x.toFixed(1);
  if (!(Number.isInteger(x * 4) && !Number.isInteger(x * 2))) return s;
  const down = (Math.floor(x * 10) / 10).toFixed(1);
  return Number(down.slice(-1)) % 2 === 0 ? down : s;
}

/**
 * The reference `format_summary(stats, model)` console text (§7), byte for byte: rate line (or
 * "NOT MEASURABLE"), counts, and one breakdown line per diverged query ("across" counts successes).
 */
export function formatSummary(stats: DivergenceStats, model: string): string {
  const lines = ["", `Chain-divergence rate for ${model}:`];
  const [lo, hi] = stats.wilson_ci_95;
  if (stats.divergence_rate === null || lo === null || hi === null)
    lines.push("  rate: NOT MEASURABLE (no queries reached min_success)");
  else
    lines.push(`  ${fixed1(100 * stats.divergence_rate)}%  [Wilson 95% CI ${fixed1(100 * lo)}%, ${fixed1(100 * hi)}%]`);
  const insufficient = stats.per_query.filter((q) => q.status === "insufficient").length;
  lines.push(
    "",
    `  Diverged queries:    ${stats.n_diverged} / ${stats.n_measurable}`,
    `  Total replays:       ${stats.n_total}`,
    `  Error replays:       ${stats.n_errors}`,
    `  Insufficient cells:  ${insufficient}`,
  );
  const diverged = stats.per_query.filter((q) => q.diverged === true);
  if (diverged.length > 0) {
    lines.push("", "Diverged query breakdown:");
    for (const q of diverged)
      if (q.status === "measurable")
        lines.push(`  ${q.query_id}: ${q.n_unique_sequences} unique sequences across ${q.n_success} replays`);
  }
  return lines.join("\n") + "\n";
}
