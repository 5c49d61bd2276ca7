/**
 * The one CSV writer: every CSV the service writes is made of these fields and records (RFC 4180:
 * comma-separated, CRLF after every record, `"` doubled inside quoted fields).
 *
 * Text from callers (a model name, a strategy key) must never become a formula when someone opens the
 * file ("CSV injection", OWASP), whichever program opens it and whatever its list separator:
 *
 * - Every text field is quoted, so a `,` `;` tab or line break inside it cannot split it in a reader
 *   that honours quotes, whatever separator that reader uses.
 * - A `'` is put at the start of a text field, and right after each `,` `;` tab, CR or LF inside it,
 *   where what follows (past spaces and `"`) is a formula trigger: `=` `+` `-` `@`, a tab, CR or LF,
 *   their full-width forms (Excel in East Asian locales reads `＝` as `=`), or a `'` (so that the guard
 *   can be undone exactly). The separators matter because a reader with another list separator than
 *   ours (Excel in German or French locales splits on `;`) starts a cell there, and Excel honours a
 *   quote only at the start of a cell, so quoting alone does not hold the formula back; a cell that
 *   starts with `'` is text in Excel, LibreOffice and Google Sheets.
 * - Numbers are written by us, unquoted and unguarded: a negative score stays the number `-0.5`.
 *
 * The original text is what is left after dropping each such `'` (one at the start, one after a
 * separator, and only where the rule above would have put one).
 */

/** Starts a formula (or is stripped before one is looked for) in some spreadsheet program. */
const TRIGGERS = new Set(["=", "+", "-", "@", "\t", "\r", "\n", "\uFF1D", "\uFF0B", "\uFF0D", "\uFF20", "'"]);
/** Where a cell may start in some reader: any list separator in use, or a record break. */
const SEPARATORS = new Set([",", ";", "\t", "\r", "\n"]);
/** Passed over before the trigger: a reader may trim spaces, or drop a quote it pairs differently. */
const SKIPPED = new Set([" ", '"']);

/** Whether a cell starting at `i` of `s` would start with a trigger once spaces and quotes are stripped. */
function atRisk(s: string, i: number): boolean {
  while (i < s.length && SKIPPED.has(s[i])) i++;
  return i < s.length && TRIGGERS.has(s[i]);
}

/** A caller's text as a CSV field: guarded as described above, then quoted. */
export function csvText(s: string): string {
  let guarded = "";
  for (let i = 0; i < s.length; i++) {
    if ((i === 0 || SEPARATORS.has(s[i - 1])) && atRisk(s, i)) guarded += "'";
    guarded += s[i];
  }
  return '"' + guarded.replace(/"/g, '""') + '"';
}

/**
 * A number as a CSV field: the shortest text that reads back as the same double, or empty for none.
 * Not finite is none too: NaN and Infinity have no spelling that spreadsheets read back as numbers.
 */
export function csvNumber(v: number | null): string {
  return v === null || !Number.isFinite(v) ? "" : String(v);
}

/** A CSV document: a header row of our own column names, then the records, each field already written by `csvText`/`csvNumber`. */
export function csvDocument(columns: readonly string[], records: Iterable<readonly string[]>): string {
  let out = columns.join(",") + "\r\n";
  for (const fields of records) out += fields.join(",") + "\r\n";
  return out;
}
