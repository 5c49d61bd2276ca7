/**
 * The radar plot of the six overall metrics (spec §10, `radar_plot.svg`), as a standalone SVG.
 *
 * Geometry (exported as RADAR_GEOMETRY so callers and tests can rely on it):
 * - centre (cx, cy), outer ring radius `radius`; a value v ∈ [0, 1] lies at distance v·radius;
 * - axis i (0…5, in METRIC order) points at angle i·60° clockwise from 12 o'clock, so its vertex
 *   is (cx + v·radius·sin(i·60°), cy − v·radius·cos(i·60°)) in SVG coordinates (y grows down);
 * - rings at 0.2, 0.4, 0.6, 0.8, 1.0 are circles around the centre, labelled along axis 0;
 * - coordinates are rounded to 0.01 px.
 * Starting at the top and going clockwise keeps the two widest-reaching labels (top, bottom)
 * centred and the four others at ±30° from horizontal, so six labels never collide.
 *
 * A metric that was not computed (null) is not a score of 0, but a polygon needs a vertex on every
 * axis. We draw that vertex at the centre so the filled area is not inflated by a guess, and
 * make the gap visible: the model's outline is dashed, it has no vertex marker on that axis, and
 * its legend entry says which metrics are n/a. If a metric is null for every model, its axis
 * label also says "(n/a)".
 */
import { cellNumber, METRIC_KEYS } from "./columns.ts";
import type { RqModelReport, RqReport } from "./types.ts";
import { escapeXml } from "./xml-text.ts";

/** Axis labels, index-aligned with METRIC_KEYS (the reference plot shortens "Logical Coherence"). */
export const RADAR_AXES = ["Correctness", "Consistency", "Robustness", "Coherence", "Efficiency", "Stability"] as const;

/** Ring values, innermost first. */
export const RADAR_RINGS = [0.2, 0.4, 0.6, 0.8, 1.0] as const;

/** 10-colour cycle (Tableau 10, as matplotlib's default): model i gets colour i mod 10. */
export const RADAR_COLORS = [
  "#1f77b4",
  "#ff7f0e",
  "#2ca02c",
  "#d62728",
  "#9467bd",
  "#8c564b",
  "#e377c2",
  "#7f7f7f",
  "#bcbd22",
  "#17becf",
] as const;

/** Where things are drawn; see the module comment. */
export const RADAR_GEOMETRY = { width: 640, cx: 320, cy: 250, radius: 170 } as const;

const { width: WIDTH, cx: CX, cy: CY, radius: R } = RADAR_GEOMETRY;
/** Axis labels sit this far beyond the outer ring. */
const LABEL_GAP = 22;
const LEGEND_TOP = 478;
const LEGEND_ROW = 22;
const LEGEND_COLUMN_WIDTH = 300;
/** Labels longer than this (in characters) force a one-column legend… */
const TWO_COLUMN_MAX_CHARS = 38;
/** …and are cut to this many, the full text staying in a <title> tooltip. */
const ONE_COLUMN_MAX_CHARS = 80;
const FONT = { title: 16, axis: 13, ring: 11, legend: 12 } as const;

/**
 * Renders the radar plot of every model's overall raw metrics as an SVG document
 * (640 px wide; about 500–540 px high, growing with the number of legend rows).
 * Values outside [0, 1] are clamped to the plot's range; non-finite values count as not computed.
 */
export function radarSvg(r: RqReport): string {
  const models = r.models.map((m, i) => plotModel(m, i));
  const naForAll = METRIC_KEYS.map((_, k) => models.length > 0 && models.every((m) => m.values[k] === null));
  const legend = legendLayout(models);
  const height = LEGEND_TOP + legend.rows * LEGEND_ROW + 12;

  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" role="img" aria-labelledby="rq-radar-title">`,
    `<title id="rq-radar-title">Reasoning quality radar plot, run ${escapeXml(r.run_id)}</title>`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="${CX}" y="30" text-anchor="middle" font-size="${FONT.title}" font-weight="bold" fill="#222222">Reasoning quality (0–1, higher is better)</text>`,
    ...grid(),
    ...axisLabels(naForAll),
    ...models.flatMap(modelShapes),
    ...ringLabels(),
    ...legend.entries,
    "</svg>",
  ];
  return parts.join("\n") + "\n";
}

type PlotModel = { name: string; color: string; values: (number | null)[]; naAxes: string[] };

function plotModel(m: RqModelReport, index: number): PlotModel {
  const values = METRIC_KEYS.map((k) => {
    const v = cellNumber(m.raw_metrics[k]);
    return v === null ? null : Math.min(1, Math.max(0, v));
  });
  return {
    name: m.model,
    color: RADAR_COLORS[index % RADAR_COLORS.length],
    values,
    naAxes: RADAR_AXES.filter((_, k) => values[k] === null),
  };
}

/** The point at value v on axis i (see the module comment). */
function point(axis: number, v: number): [number, number] {
  const a = (axis * 2 * Math.PI) / RADAR_AXES.length;
  return [CX + v * R * Math.sin(a), CY - v * R * Math.cos(a)];
}

/** Rounded to 0.01 px; `+ 0` turns -0 into 0 so no "-0" appears in the markup. */
function fmt(n: number): string {
  return String(Math.round(n * 100) / 100 + 0);
}

function grid(): string[] {
  const rings = RADAR_RINGS.map(
    (v) =>
      `<circle class="ring" cx="${CX}" cy="${CY}" r="${fmt(v * R)}" fill="none" stroke="#c8c8c8" stroke-width="1" stroke-dasharray="${v === 1 ? "none" : "3 3"}"/>`,
  );
  const spokes = RADAR_AXES.map((_, i) => {
    const [x, y] = point(i, 1);
    return `<line class="spoke" x1="${CX}" y1="${CY}" x2="${fmt(x)}" y2="${fmt(y)}" stroke="#c8c8c8" stroke-width="1"/>`;
  });
  return [`<circle cx="${CX}" cy="${CY}" r="${R}" fill="#f8f9fa"/>`, ...rings, ...spokes];
}

/** Labels outside the outer ring, anchored away from the centre so they never cross it. */
function axisLabels(naForAll: boolean[]): string[] {
  return RADAR_AXES.map((label, i) => {
    const a = (i * 2 * Math.PI) / RADAR_AXES.length;
    const [x, y] = point(i, (R + LABEL_GAP) / R);
    const sin = Math.sin(a);
    const cos = Math.cos(a);
    const anchor = sin > 0.1 ? "start" : sin < -0.1 ? "end" : "middle";
    // Baseline shifts by hand (not dominant-baseline, which some rasterisers ignore):
    // top label sits on its point, bottom label hangs below it, side labels are centred on it.
    const dy = cos > 0.9 ? 0 : cos < -0.9 ? FONT.axis * 0.8 : FONT.axis * 0.35;
    const text = label + (naForAll[i] ? " (n/a)" : "");
    return `<text class="axis-label" x="${fmt(x)}" y="${fmt(y + dy)}" text-anchor="${anchor}" font-size="${FONT.axis}" font-weight="bold" fill="#222222">${escapeXml(text)}</text>`;
  });
}

/** Drawn after the polygons, with a white halo, so the values stay readable over the fills. */
function ringLabels(): string[] {
  return RADAR_RINGS.map((v) => {
    const [x, y] = point(0, v);
    return `<text class="ring-label" x="${fmt(x + 4)}" y="${fmt(y - 3)}" font-size="${FONT.ring}" fill="#666666" stroke="#ffffff" stroke-width="3" paint-order="stroke">${v.toFixed(1)}</text>`;
  });
}

function modelShapes(m: PlotModel): string[] {
  const pts = m.values.map((v, i) => point(i, v ?? 0));
  const dashed = m.naAxes.length > 0 ? ' stroke-dasharray="6 4"' : "";
  const polygon =
    `<polygon class="model" points="${pts.map(([x, y]) => `${fmt(x)},${fmt(y)}`).join(" ")}" ` +
    `fill="${m.color}" fill-opacity="0.15" stroke="${m.color}" stroke-width="2" stroke-linejoin="round"${dashed}>` +
    `<title>${escapeXml(m.name)}</title></polygon>`;
  const markers = pts
    .filter((_, i) => m.values[i] !== null)
    .map(([x, y]) => `<circle class="vertex" cx="${fmt(x)}" cy="${fmt(y)}" r="3" fill="${m.color}"/>`);
  return [polygon, ...markers];
}

/** Legend below the plot: two columns when every label is short enough, else one. */
function legendLayout(models: readonly PlotModel[]): { rows: number; entries: string[] } {
  const labels = models.map((m) => m.name + (m.naAxes.length > 0 ? ` (n/a: ${m.naAxes.join(", ")})` : ""));
  const columns = labels.every((l) => [...l].length <= TWO_COLUMN_MAX_CHARS) ? 2 : 1;
  const left = columns === 2 ? (WIDTH - 2 * LEGEND_COLUMN_WIDTH) / 2 : 24;
  const entries = models.map((m, i) => {
    const x = left + (i % columns) * LEGEND_COLUMN_WIDTH;
    const y = LEGEND_TOP + Math.floor(i / columns) * LEGEND_ROW;
    const chars = [...labels[i]];
    const shown =
      chars.length > ONE_COLUMN_MAX_CHARS ? chars.slice(0, ONE_COLUMN_MAX_CHARS - 1).join("") + "…" : labels[i];
    const dashed = m.naAxes.length > 0 ? ' stroke-dasharray="3 2"' : "";
    return (
      `<g class="legend-entry"><title>${escapeXml(labels[i])}</title>` +
      `<rect x="${x}" y="${y}" width="14" height="14" fill="${m.color}" fill-opacity="0.15" stroke="${m.color}" stroke-width="2"${dashed}/>` +
      `<text x="${x + 20}" y="${y + 11.5}" font-size="${FONT.legend}" fill="#222222">${escapeXml(shown)}</text></g>`
    );
  });
  return { rows: Math.ceil(models.length / columns), entries };
}
