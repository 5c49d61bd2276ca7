/**
 * The reasoning-quality workbook (spec §10): four sheets in the reference's order —
 * "Overall Raw Metrics", "Aggregated Scores", "Per-Dataset Breakdown", "Experiment Metadata".
 */
import { round4 } from "../../engines/reasoning-quality/index.ts";
import { cellNumber, METRIC_KEYS, METRIC_LABELS, strategyKeys, strategyLabel } from "./columns.ts";
import type { RqMetrics, RqModelReport, RqReport } from "./types.ts";
import { xlsxPackage, type XlsxCell, type XlsxSheet } from "./xlsx-writer.ts";

/** Sheet names, in workbook order. */
export const XLSX_SHEETS = [
  "Overall Raw Metrics",
  "Aggregated Scores",
  "Per-Dataset Breakdown",
  "Experiment Metadata",
] as const;

/** Number format of every metric and Q cell. */
export const SCORE_FORMAT = "0.0000";

/**
 * Cell formats, by name; a style's id is its position here (its index in `cellXfs`).
 * Colours are the reference's: header #1F4E79 with white bold text, alternate rows #D6E4F0.
 */
const CELL_XFS = {
  default: '<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>',
  header:
    '<xf numFmtId="0" fontId="1" fillId="2" borderId="1" xfId="0" applyFont="1" applyFill="1" applyBorder="1" applyAlignment="1">' +
    '<alignment horizontal="center" vertical="center" wrapText="1"/></xf>',
  plain:
    '<xf numFmtId="0" fontId="0" fillId="0" borderId="1" xfId="0" applyBorder="1" applyAlignment="1"><alignment horizontal="center"/></xf>',
  plainAlt:
    '<xf numFmtId="0" fontId="0" fillId="3" borderId="1" xfId="0" applyFill="1" applyBorder="1" applyAlignment="1"><alignment horizontal="center"/></xf>',
  score:
    '<xf numFmtId="164" fontId="0" fillId="0" borderId="1" xfId="0" applyNumberFormat="1" applyBorder="1" applyAlignment="1"><alignment horizontal="center"/></xf>',
  scoreAlt:
    '<xf numFmtId="164" fontId="0" fillId="3" borderId="1" xfId="0" applyNumberFormat="1" applyFill="1" applyBorder="1" applyAlignment="1"><alignment horizontal="center"/></xf>',
  metaKey: '<xf numFmtId="0" fontId="2" fillId="0" borderId="0" xfId="0" applyFont="1"/>',
} as const;

type StyleName = keyof typeof CELL_XFS;
const STYLE_ID = Object.fromEntries(Object.keys(CELL_XFS).map((k, i) => [k, i])) as Record<StyleName, number>;

const THIN_GREY = '<color rgb="FFAAAAAA"/>';
const STYLES_XML =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
  '<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">' +
  // 164 is the first id free for custom formats (0–163 are built in).
  `<numFmts count="1"><numFmt numFmtId="164" formatCode="${SCORE_FORMAT}"/></numFmts>` +
  '<fonts count="3">' +
  '<font><sz val="11"/><name val="Calibri"/><family val="2"/></font>' +
  '<font><b/><sz val="11"/><color rgb="FFFFFFFF"/><name val="Calibri"/><family val="2"/></font>' +
  '<font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font>' +
  "</fonts>" +
  // Fills 0 and 1 are reserved by Excel (none, gray125) whether used or not.
  '<fills count="4">' +
  '<fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill>' +
  '<fill><patternFill patternType="solid"><fgColor rgb="FF1F4E79"/><bgColor indexed="64"/></patternFill></fill>' +
  '<fill><patternFill patternType="solid"><fgColor rgb="FFD6E4F0"/><bgColor indexed="64"/></patternFill></fill>' +
  "</fills>" +
  '<borders count="2"><border><left/><right/><top/><bottom/><diagonal/></border>' +
  `<border><left style="thin">${THIN_GREY}</left><right style="thin">${THIN_GREY}</right>` +
  `<top style="thin">${THIN_GREY}</top><bottom style="thin">${THIN_GREY}</bottom><diagonal/></border></borders>` +
  '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
  `<cellXfs count="${Object.keys(CELL_XFS).length}">${Object.values(CELL_XFS).join("")}</cellXfs>` +
  '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
  "</styleSheet>";

/**
 * Renders the run as an .xlsx workbook (the bytes of the file).
 *
 * - A metric or Q that is null (not computed), missing or non-finite is an empty cell, never 0.
 * - Tabular sheets: bold white header on #1F4E79, frozen header row plus the identifying columns
 *   (Model; Model and Dataset on the breakdown), every other data row shaded #D6E4F0.
 * - Text is stored as inline strings, which spreadsheet apps never evaluate, so unlike the CSV
 *   no formula-injection guard is needed (or wanted: it would alter the names).
 * - Equal input gives equal bytes (zip timestamps come from `created_at`).
 *
 * Async for API stability only: the work is synchronous and small.
 */
export async function reportXlsx(r: RqReport): Promise<Uint8Array> {
  const sheets: XlsxSheet[] = [
    overallSheet(r.models),
    aggregatedSheet(r.models),
    breakdownSheet(r.models),
    metadataSheet(r),
  ];
  return xlsxPackage(sheets, STYLES_XML, zipTimestamp(r.created_at));
}

// ---- sheets ------------------------------------------------------------------------------------

function overallSheet(models: readonly RqModelReport[]): XlsxSheet {
  const rows = models.map((m, i) => [text(m.model, i), ...metricCells(m.raw_metrics, i)]);
  return tabular(XLSX_SHEETS[0], ["Model", ...METRIC_LABELS], rows, 1, [
    modelWidth(models),
    ...METRIC_LABELS.map(() => 18),
  ]);
}

function aggregatedSheet(models: readonly RqModelReport[]): XlsxSheet {
  const keys = strategyKeys(models);
  const labels = keys.map(strategyLabel);
  const rows = models.map((m, i) => [text(m.model, i), ...keys.map((k) => score(m.aggregated[k], i))]);
  return tabular(XLSX_SHEETS[1], ["Model", ...labels], rows, 1, [
    modelWidth(models),
    ...labels.map((l) => Math.max(14, l.length + 4)),
  ]);
}

/**
 * One row per model × dataset, datasets in code-unit order of their names (as the reference sorts
 * them). A model without a breakdown (single-dataset run) gets one "overall" row from its overall
 * metrics, its metadata's sample count and its overall balanced Q.
 */
function breakdownSheet(models: readonly RqModelReport[]): XlsxSheet {
  const entries: {
    model: string;
    dataset: string;
    samples: number;
    metrics: RqMetrics;
    balanced: number | undefined;
  }[] = [];
  for (const m of models) {
    const names = Object.keys(m.per_dataset).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (names.length === 0) {
      entries.push({
        model: m.model,
        dataset: "overall",
        samples: m.metadata.num_samples,
        metrics: m.raw_metrics,
        balanced: m.aggregated.balanced,
      });
    }
    for (const d of names) {
      const ds = m.per_dataset[d];
      entries.push({
        model: m.model,
        dataset: d,
        samples: ds.num_samples,
        metrics: ds.raw_metrics,
        balanced: ds.aggregated.balanced,
      });
    }
  }
  const rows = entries.map((e, i) => [
    text(e.model, i),
    text(e.dataset, i),
    count(e.samples, i),
    ...metricCells(e.metrics, i),
    score(e.balanced, i),
  ]);
  const datasetWidth = Math.min(40, Math.max(16, ...entries.map((e) => e.dataset.length + 2)));
  return tabular(XLSX_SHEETS[2], ["Model", "Dataset", "# Samples", ...METRIC_LABELS, "Balanced"], rows, 2, [
    modelWidth(models),
    datasetWidth,
    12,
    ...METRIC_LABELS.map(() => 18),
    14,
  ]);
}

/**
 * Key/value rows, no header. The per-run settings (samples, datasets, runs, perturbations) are the
 * same for every model of a run, so they are read from the first model, as the reference does;
 * with no models those values are empty. "Total Samples" is the item count of the run (per model),
 * not a sum over models.
 */
function metadataSheet(r: RqReport): XlsxSheet {
  const first = r.models[0]?.metadata;
  const duration = cellNumber(r.duration_seconds);
  const pairs: [string, XlsxCell][] = [
    ["Experiment ID", plainText(r.run_id)],
    ["Timestamp", plainText(r.created_at)],
    ["Duration (s)", duration === null ? blank(0) : plainNumber(Math.round(duration * 100) / 100)],
    ["Models Evaluated", plainNumber(r.models.length)],
    ["Total Samples", first ? plainNumber(first.num_samples) : blank(0)],
    ["Datasets", first ? plainText(first.datasets.join(", ")) : blank(0)],
    ["Consistency Runs", first ? plainNumber(first.consistency_runs) : blank(0)],
    ["Robustness Perturb.", first ? plainNumber(first.robustness_perturbations) : blank(0)],
  ];
  return {
    name: XLSX_SHEETS[3],
    rows: pairs.map(([k, v]) => [{ kind: "text", text: k, style: STYLE_ID.metaKey }, v]),
    columnWidths: [24, 40],
  };
}

// ---- cells -------------------------------------------------------------------------------------

/** A sheet with a styled header row; the first `frozenColumns` columns and the header stay in view. */
function tabular(
  name: string,
  header: readonly string[],
  rows: XlsxCell[][],
  frozenColumns: number,
  widths: number[],
): XlsxSheet {
  const head: XlsxCell[] = header.map((h) => ({ kind: "text", text: h, style: STYLE_ID.header }));
  return {
    name,
    rows: [head, ...rows],
    columnWidths: widths,
    rowHeights: { 0: 30 },
    frozen: { columns: frozenColumns, rows: 1 },
  };
}

/** Data row i (0-based) is shaded when i is even, i.e. sheet rows 2, 4, 6… as in the reference. */
const shaded = (row: number): boolean => row % 2 === 0;

function text(s: string, row: number): XlsxCell {
  return { kind: "text", text: s, style: STYLE_ID[shaded(row) ? "plainAlt" : "plain"] };
}

function count(n: number, row: number): XlsxCell {
  const v = cellNumber(n);
  const style = STYLE_ID[shaded(row) ? "plainAlt" : "plain"];
  return v === null ? { kind: "blank", style } : { kind: "number", value: v, style };
}

/** A metric or Q cell, rounded to 4 decimals as the run's raw metrics are (Q is stored unrounded). */
function score(v: number | null | undefined, row: number): XlsxCell {
  const c = cellNumber(v);
  const n = c === null ? null : round4(c);
  const style = STYLE_ID[shaded(row) ? "scoreAlt" : "score"];
  return n === null ? { kind: "blank", style } : { kind: "number", value: n, style };
}

function metricCells(m: RqMetrics, row: number): XlsxCell[] {
  return METRIC_KEYS.map((k) => score(m[k], row));
}

const plainText = (s: string): XlsxCell => ({ kind: "text", text: s, style: STYLE_ID.default });
const plainNumber = (n: number): XlsxCell =>
  cellNumber(n) === null ? blank(0) : { kind: "number", value: n, style: STYLE_ID.default };
const blank = (style: number): XlsxCell => ({ kind: "blank", style });

/** Wide enough for the longest model name, within reason. */
function modelWidth(models: readonly RqModelReport[]): number {
  return Math.min(60, Math.max(18, ...models.map((m) => m.model.length + 2)));
}

/** The run's creation time if the zip format can hold it (1980–2099), else 1980-01-01. */
function zipTimestamp(iso: string): Date {
  const d = new Date(iso);
  const y = d.getFullYear();
  return Number.isFinite(d.getTime()) && y >= 1980 && y <= 2099 ? d : new Date(1980, 0, 1);
}
