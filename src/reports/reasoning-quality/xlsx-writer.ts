/**
 * A minimal SpreadsheetML (XLSX) package writer: typed cells, column widths, row heights, frozen
 * panes and a caller-supplied styles part, zipped with fflate's synchronous `zipSync`.
 *
 * Why not an XLSX library: the pure-JS writers we tried (excel-builder-vanilla 5.2.5,
 * write-excel-file 4.1.1) index their shared-string table with a plain object, so a model or
 * dataset named "constructor" or "toString" comes out as "function Object() { [native code] }";
 * one also writes an empty (null) cell as the text "null" and deletes any "NS<digits>:" from cell
 * text; and both use fflate's asynchronous `zip`, which hands any part over 160 kB to a Web Worker,
 * which workerd does not have. Writing the few XML parts ourselves avoids all of that, and makes
 * a truly empty cell (for a metric that was not computed) possible.
 *
 * Strings are written inline (`t="inlineStr"`), not through a shared-string table: every reader
 * (Excel, LibreOffice, Google Sheets, openpyxl, SheetJS) accepts them and the package stays simpler.
 * An inline string is never evaluated as a formula, whatever its first character.
 */
import { strToU8, zipSync, type Zippable } from "fflate";
import { escapeXml } from "./xml-text.ts";

/** One cell. `style` is an index into the `cellXfs` of the styles part passed to `xlsxPackage`. */
export type XlsxCell =
  | { kind: "text"; text: string; style: number }
  | { kind: "number"; value: number; style: number }
  /** No value at all (ISBLANK is true), only a style, so fills and borders stay continuous. */
  | { kind: "blank"; style: number };

/** One worksheet. Row and column indices are 0-based. */
export type XlsxSheet = {
  /** 1–31 characters, none of `[]:*?/\`, unique within the workbook (Excel's rules). */
  name: string;
  rows: XlsxCell[][];
  /** Widths in Excel character units, by column index; missing entries keep the default width. */
  columnWidths?: number[];
  /** Row heights in points, by row index. */
  rowHeights?: Record<number, number>;
  /** Number of leading columns and rows kept in view while scrolling. */
  frozen?: { columns: number; rows: number };
};

const NS_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const NS_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const NS_PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships";
const CT_BASE = "application/vnd.openxmlformats-officedocument.spreadsheetml";
const XML_DECL = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

/** Excel refuses cells longer than this; longer text is cut rather than making the file unreadable. */
const MAX_CELL_TEXT = 32767;

/**
 * The bytes of an .xlsx file holding `sheets` in order, styled by `stylesXml` (a complete
 * `xl/styles.xml` document). `modified` sets the zip entries' timestamps, so equal input gives
 * equal bytes; it must lie in 1980–2099 (the zip format's range).
 */
export function xlsxPackage(sheets: readonly XlsxSheet[], stylesXml: string, modified: Date): Uint8Array {
  if (sheets.length === 0) throw new Error("an XLSX workbook needs at least one sheet");
  checkSheetNames(sheets);
  const files: Zippable = {
    "[Content_Types].xml": strToU8(contentTypesXml(sheets.length)),
    "_rels/.rels": strToU8(rootRelsXml()),
    "xl/workbook.xml": strToU8(workbookXml(sheets)),
    "xl/_rels/workbook.xml.rels": strToU8(workbookRelsXml(sheets.length)),
    "xl/styles.xml": strToU8(stylesXml),
  };
  sheets.forEach((s, i) => {
    files[`xl/worksheets/sheet${i + 1}.xml`] = strToU8(worksheetXml(s, i === 0));
  });
  // zipSync, never zip: the asynchronous one may start a Web Worker, which workerd lacks.
  return zipSync(files, { level: 6, mtime: modified });
}

/** Column letters of a 0-based column index: 0 → A, 25 → Z, 26 → AA. */
export function columnName(index: number): string {
  let name = "";
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
}

function checkSheetNames(sheets: readonly XlsxSheet[]): void {
  const seen = new Set<string>();
  for (const { name } of sheets) {
    if (name.length < 1 || name.length > 31 || /[[\]:*?/\\]/.test(name)) throw new Error(`invalid sheet name: ${name}`);
    // Excel compares sheet names case-insensitively.
    if (seen.has(name.toLowerCase())) throw new Error(`duplicate sheet name: ${name}`);
    seen.add(name.toLowerCase());
  }
}

function contentTypesXml(sheetCount: number): string {
  let overrides = `<Override PartName="/xl/workbook.xml" ContentType="${CT_BASE}.sheet.main+xml"/>`;
  overrides += `<Override PartName="/xl/styles.xml" ContentType="${CT_BASE}.styles+xml"/>`;
  for (let i = 1; i <= sheetCount; i++) {
    overrides += `<Override PartName="/xl/worksheets/sheet${i}.xml" ContentType="${CT_BASE}.worksheet+xml"/>`;
  }
  return (
    XML_DECL +
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    overrides +
    "</Types>"
  );
}

function rootRelsXml(): string {
  return (
    XML_DECL +
    `<Relationships xmlns="${NS_PKG_REL}">` +
    `<Relationship Id="rId1" Type="${NS_REL}/officeDocument" Target="xl/workbook.xml"/>` +
    "</Relationships>"
  );
}

/** Sheet i (0-based) is relationship rId{i+1}; the styles part comes after the sheets. */
function workbookXml(sheets: readonly XlsxSheet[]): string {
  const entries = sheets
    .map((s, i) => `<sheet name="${escapeXml(s.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`)
    .join("");
  return (
    XML_DECL +
    `<workbook xmlns="${NS_MAIN}" xmlns:r="${NS_REL}">` +
    '<bookViews><workbookView activeTab="0"/></bookViews>' +
    `<sheets>${entries}</sheets>` +
    "</workbook>"
  );
}

function workbookRelsXml(sheetCount: number): string {
  let rels = "";
  for (let i = 1; i <= sheetCount; i++) {
    rels += `<Relationship Id="rId${i}" Type="${NS_REL}/worksheet" Target="worksheets/sheet${i}.xml"/>`;
  }
  rels += `<Relationship Id="rId${sheetCount + 1}" Type="${NS_REL}/styles" Target="styles.xml"/>`;
  return XML_DECL + `<Relationships xmlns="${NS_PKG_REL}">${rels}</Relationships>`;
}

/** Child order follows the schema (CT_Worksheet is a sequence): dimension, sheetViews, cols, sheetData. */
function worksheetXml(sheet: XlsxSheet, selected: boolean): string {
  const width = Math.max(1, ...sheet.rows.map((r) => r.length));
  const dimension = `A1:${columnName(width - 1)}${Math.max(1, sheet.rows.length)}`;
  return (
    XML_DECL +
    `<worksheet xmlns="${NS_MAIN}" xmlns:r="${NS_REL}">` +
    `<dimension ref="${dimension}"/>` +
    sheetViewsXml(sheet.frozen, selected) +
    colsXml(sheet.columnWidths ?? []) +
    `<sheetData>${sheet.rows.map((row, i) => rowXml(row, i, sheet.rowHeights?.[i])).join("")}</sheetData>` +
    "</worksheet>"
  );
}

function sheetViewsXml(frozen: XlsxSheet["frozen"], selected: boolean): string {
  const open = `<sheetView${selected ? ' tabSelected="1"' : ""} workbookViewId="0">`;
  const columns = frozen?.columns ?? 0;
  const rows = frozen?.rows ?? 0;
  if (columns === 0 && rows === 0) return `<sheetViews>${open}</sheetView></sheetViews>`;
  // The pane that scrolls freely is the one the cursor starts in; its name depends on the split.
  const active = columns > 0 && rows > 0 ? "bottomRight" : rows > 0 ? "bottomLeft" : "topRight";
  const topLeft = `${columnName(columns)}${rows + 1}`;
  const split = (columns > 0 ? ` xSplit="${columns}"` : "") + (rows > 0 ? ` ySplit="${rows}"` : "");
  return (
    `<sheetViews>${open}` +
    `<pane${split} topLeftCell="${topLeft}" activePane="${active}" state="frozen"/>` +
    `<selection pane="${active}" activeCell="${topLeft}" sqref="${topLeft}"/>` +
    "</sheetView></sheetViews>"
  );
}

function colsXml(widths: readonly number[]): string {
  const cols = widths
    .map((w, i) =>
      Number.isFinite(w) && w > 0 ? `<col min="${i + 1}" max="${i + 1}" width="${w}" customWidth="1"/>` : "",
    )
    .join("");
  return cols ? `<cols>${cols}</cols>` : "";
}

function rowXml(row: readonly XlsxCell[], index: number, height: number | undefined): string {
  const r = index + 1;
  const ht = height !== undefined ? ` ht="${height}" customHeight="1"` : "";
  return `<row r="${r}"${ht}>${row.map((c, j) => cellXml(c, `${columnName(j)}${r}`)).join("")}</row>`;
}

function cellXml(cell: XlsxCell, ref: string): string {
  const s = cell.style ? ` s="${cell.style}"` : "";
  switch (cell.kind) {
    case "blank":
      return `<c r="${ref}"${s}/>`;
    case "number":
      // A non-finite <v> makes Excel "repair" the file; callers map those to blank cells first.
      if (!Number.isFinite(cell.value)) throw new Error(`non-finite number in cell ${ref}`);
      return `<c r="${ref}"${s}><v>${cell.value}</v></c>`;
    case "text":
      // xml:space keeps leading/trailing blanks, which XML would otherwise let readers drop.
      return `<c r="${ref}"${s} t="inlineStr"><is><t xml:space="preserve">${escapeXml(cell.text.slice(0, MAX_CELL_TEXT))}</t></is></c>`;
  }
}
