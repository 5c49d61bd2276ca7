/** Long-format CSV of a reasoning-quality run: one row per model × strategy. */
import { round4 } from "../../engines/reasoning-quality/index.ts";
import { csvDocument, csvNumber, csvText } from "../csv.ts";
import { cellNumber, METRIC_KEYS, strategyKeys } from "./columns.ts";
import type { RqReport } from "./types.ts";

/** Header row of `reportCsv`, in column order. */
export const CSV_COLUMNS = ["model", "strategy", "q", "rank", ...METRIC_KEYS] as const;

/**
 * Renders the run as CSV through the one writer (src/reports/csv.ts: RFC 4180, CRLF after every
 * record, model names and strategy keys quoted and guarded against formulas in every locale).
 *
 * One row per model × strategy, models in report order and strategies in the workbook's column
 * order (balanced, safety_priority, accuracy_priority, efficiency_priority, then others as first
 * seen). A model without a Q for a strategy gets no row for it: there is nothing to rank.
 * `rank` is the model's 1-based competition rank within the strategy (higher Q first; equal Q
 * share the better rank: 1, 1, 3). Q values are ranked exactly as given (as the run's `rankings` are)
 * and written rounded to 4 decimals, like the metrics beside them.
 * The six metric columns repeat the model's overall raw metrics; a null metric is an empty field.
 */
export function reportCsv(r: RqReport): string {
  const strategies = strategyKeys(r.models);
  const ranks = new Map(strategies.map((s) => [s, competitionRanks(r.models.map((m) => cellNumber(m.aggregated[s])))]));
  const records: string[][] = [];
  r.models.forEach((m, i) => {
    for (const s of strategies) {
      const q = cellNumber(m.aggregated[s]);
      if (q === null) continue;
      const fields = [csvText(m.model), csvText(s), csvNumber(round4(q)), csvNumber(ranks.get(s)![i])];
      for (const k of METRIC_KEYS) fields.push(csvNumber(cellNumber(m.raw_metrics[k])));
      records.push(fields);
    }
  });
  return csvDocument(CSV_COLUMNS, records);
}

/**
 * Competition ranks ("1224") of `scores`, higher first; null scores get null.
 * A score's rank is 1 + the number of scores strictly greater than it.
 */
export function competitionRanks(scores: readonly (number | null)[]): (number | null)[] {
  const present = scores.filter((s): s is number => s !== null);
  return scores.map((s) => (s === null ? null : 1 + present.filter((o) => o > s).length));
}
