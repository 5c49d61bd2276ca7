/** Long-format CSV of a reasoning-quality run: one row per model × strategy. */
import { round4 } from "../../engines/reasoning-quality/index.ts";
import { cellNumber, METRIC_KEYS, strategyKeys } from "./columns.ts";
import type { RqReport } from "./types.ts";

/** Header row of `reportCsv`, in column order. */
export const CSV_COLUMNS = ["model", "strategy", "q", "rank", ...METRIC_KEYS] as const;

/**
 * Renders the run as CSV (RFC 4180, CRLF line endings, header row, a CRLF after every record).
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
  const lines = [CSV_COLUMNS.join(",")];
  const ranks = new Map(strategies.map((s) => [s, competitionRanks(r.models.map((m) => cellNumber(m.aggregated[s])))]));
  r.models.forEach((m, i) => {
    for (const s of strategies) {
      const q = cellNumber(m.aggregated[s]);
      if (q === null) continue;
      const fields = [textField(m.model), textField(s), numberField(round4(q)), String(ranks.get(s)![i])];
      for (const k of METRIC_KEYS) fields.push(numberField(cellNumber(m.raw_metrics[k])));
      lines.push(fields.join(","));
    }
  });
  return lines.map((l) => l + "\r\n").join("");
}

/**
 * Competition ranks ("1224") of `scores`, higher first; null scores get null.
 * A score's rank is 1 + the number of scores strictly greater than it.
 */
export function competitionRanks(scores: readonly (number | null)[]): (number | null)[] {
  const present = scores.filter((s): s is number => s !== null);
  return scores.map((s) => (s === null ? null : 1 + present.filter((o) => o > s).length));
}

function numberField(v: number | null): string {
  // String() is the shortest text that reads back as the same double; 4-dp inputs stay 4 dp.
  return v === null ? "" : String(v);
}

/** Text that leads with one of these is read as a formula (or a DDE payload) by spreadsheet apps. */
const FORMULA_TRIGGER = /^[=+\-@\t\r]/;

/**
 * A text field, guarded and quoted.
 *
 * Model names and strategy keys come from API callers. Excel, LibreOffice and Google Sheets treat
 * a CSV field starting with =, +, -, @ (or a tab/CR, which some of them strip before looking) as a
 * formula, so a name like `=HYPERLINK(...)` would run when someone opens the export ("CSV
 * injection", OWASP). A leading apostrophe makes the apps show the text literally. Numbers are
 * written by us, never guarded, so negative values stay numeric.
 *
 * Then RFC 4180: a field holding a comma, a double quote, CR or LF is enclosed in double quotes,
 * with each inner double quote doubled.
 */
export function textField(s: string): string {
  const guarded = FORMULA_TRIGGER.test(s) ? "'" + s : s;
  return /[",\r\n]/.test(guarded) ? '"' + guarded.replace(/"/g, '""') + '"' : guarded;
}
