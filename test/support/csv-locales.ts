/**
 * Reads a CSV the way spreadsheet programs in different locales would, for the formula-guard tests
 * (issue 30): with a real parser (csv-parse), by the file's own separator and by the other list
 * separators a locale may use (`;` in German or French Excel, tab), quotes honoured only where they open
 * a cell, or not at all. Written from the rule in the docs, not from the writer's code.
 */
import { parse } from "csv-parse/sync";

/** The payloads of issue 30, and a few of their relatives. */
export const PAYLOADS = [
  "x;=cmd|' /C calc'!A0;",
  "=1+1",
  "+1",
  "-1+1",
  "@SUM(1)",
  "\t=1+1",
  "\r=1+1",
  '=HYPERLINK("http://x","a, ""b""")\nnext line',
  "a,=1+1",
  "a\t+1",
  "a; @SUM(1)",
  'a;"=1+1"',
  "\uFF1D1+1",
  "'quoted'",
  "x;'=1",
];

/** What starts a formula in some spreadsheet program (tab, CR and LF: some strip them first). */
const TRIGGER = /^[=+\-@\t\r\n\uFF1D\uFF0B\uFF0D\uFF20]/;
const NUMBER = /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i;

/**
 * A cell read as a formula, or null: one that, once a reader has dropped the spaces and stray quotes
 * in front (a lenient reader may), starts with a trigger and is not a number we wrote.
 */
export function formulaCell(cell: string): string | null {
  const lead = cell.replace(/^[ "]+/, "");
  return TRIGGER.test(lead) && !NUMBER.test(lead.trim()) ? cell : null;
}

/** Every cell of `csv` as each reader sees it: strict by `,`, lenient and quote-blind by `,` `;` and tab. */
export function cellsByReader(csv: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  out["strict ,"] = parse(csv, { delimiter: "," }).flat();
  for (const sep of [",", ";", "\t"]) {
    out[`lenient ${JSON.stringify(sep)}`] = lenient(csv, sep);
    out[`quote-blind ${JSON.stringify(sep)}`] = parse(csv, {
      delimiter: sep,
      quote: false,
      relax_column_count: true,
    }).flat();
  }
  return out;
}

/**
 * Quotes honoured where they open a cell, kept as text elsewhere (Excel's way). A quote opened by a
 * cell that is never closed runs to the end of the file, as in Excel: read as closed there.
 */
function lenient(csv: string, delimiter: string): string[] {
  const read = (text: string) =>
    (parse(text, { delimiter, relax_quotes: true, relax_column_count: true }) as string[][]).flat();
  try {
    return read(csv);
  } catch (err) {
    if ((err as { code?: string }).code !== "CSV_QUOTE_NOT_CLOSED") throw err;
    return read(csv + '"');
  }
}

/**
 * The caller's text back from a guarded field: a `'` at the start, or right after a `,` `;` tab, CR or
 * LF, is dropped when what follows it (past spaces and `"`) is a trigger or another `'`.
 */
export function unguard(field: string): string {
  let out = "";
  for (let i = 0; i < field.length; i++) {
    const boundary = i === 0 || /[,;\t\r\n]/.test(field[i - 1]);
    if (boundary && field[i] === "'" && /^[ "]*[=+\-@\t\r\n\uFF1D\uFF0B\uFF0D\uFF20']/.test(field.slice(i + 1)))
      continue;
    out += field[i];
  }
  return out;
}
