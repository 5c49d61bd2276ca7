// What the compare page draws for any evaluator, as pure functions of GET /v1/compare's answer: each
// metric's change (head − base) with its interval as a forest plot, the table's figures, and the labels
// of the runs one picks from. Each evaluator's own details are in its folder (evaluators/<name>/compare.ts).
// No DOM and no Chart.js runtime here (only its types), so Node tests can check every number.
import type { ChartConfiguration, ScriptableScaleContext, TooltipItem } from "chart.js";
import type { Comparison, MetricComparison, Run } from "@assay/sdk";
import { COLORS } from "./plot.ts";

export type Verdict = Comparison["verdict"];

export const VERDICT_COLORS: Record<Verdict, string> = {
  improved: COLORS.ok,
  regressed: COLORS.bad,
  no_change: COLORS.muted,
};
/** The interval bars: the verdict's colour, light, so the point on them stands out. */
export const VERDICT_FILLS: Record<Verdict, string> = {
  improved: "rgba(31, 122, 61, 0.25)",
  regressed: "rgba(179, 38, 30, 0.25)",
  no_change: "rgba(138, 147, 163, 0.3)",
};

/** A figure with four decimals (one format from shares to PQS points), "–" for none. */
export function figure(x: number | null | undefined): string {
  return typeof x === "number" && Number.isFinite(x) ? x.toFixed(4) : "–";
}

/** A change with its sign: +0.9000, -0.0500, 0.0000. */
export function signed(x: number | null | undefined): string {
  if (typeof x !== "number" || !Number.isFinite(x)) return "–";
  const s = x.toFixed(4);
  return x > 0 && s !== "0.0000" ? `+${s}` : s;
}

export function intervalText(ci: [number, number] | null): string {
  return ci ? `[${signed(ci[0])}, ${signed(ci[1])}]` : "–";
}

/** A p-value: four decimals, or <0.0001 below that. */
export function pText(p: number | null): string {
  if (p === null || !Number.isFinite(p)) return "–";
  return p < 0.0001 ? "<0.0001" : p.toFixed(4);
}

/**
 * The API's direction of a metric: higher or lower is better, or null when a change has none (rpl's
 * prior moving: reported, never judged).
 */
export type Direction = boolean | null;

/** A metric's row label: its name, with ↓ when lower is better (a change to the left is the good one), ↕ when neither is. */
export function metricLabel(m: { name: string; higher_is_better: Direction }): string {
  return m.higher_is_better === true ? m.name : `${m.name} ${m.higher_is_better === false ? "↓" : "↕"}`;
}

export function directionText(d: Direction): string {
  return d === true ? "higher is better" : d === false ? "lower is better" : "no better direction";
}

// ---------------------------------------------------------------------------------------------------
// The forest plot

/**
 * How large a metric's figures are: the largest magnitude of its two values, its change and its
 * interval's ends. A change means something only against the scale it is measured on.
 */
export function metricScale(m: MetricComparison): number {
  const xs = [m.base, m.head, m.delta, ...(m.ci95 ?? [])].filter(
    (x): x is number => typeof x === "number" && Number.isFinite(x),
  );
  return xs.length ? Math.max(...xs.map(Math.abs)) : 0;
}

/**
 * The metric's scale group: 0 for figures within [-1, 1] (rates, shares, correctness, alpha, Q), else
 * the power of ten that bounds them (1 up to 10, 2 up to 100: PQS, agreement in percent, …).
 */
export function scaleGroup(m: MetricComparison): number {
  const s = metricScale(m);
  return s <= 1 ? 0 : Math.ceil(Math.log10(s));
}

export type ForestRow = {
  name: string;
  label: string;
  delta: number;
  ci: [number, number] | null;
  verdict: Verdict;
  higherIsBetter: Direction;
  method: string;
  pValue: number | null;
};

export type ForestGroup = {
  /** The model a plot is about (reasoning-quality: one plot per model), else null. */
  model: string | null;
  /** The scale group (see {@link scaleGroup}). */
  scale: number;
  title: string;
  rows: ForestRow[];
  /** The x axis: every change and interval end, and 0, with a margin. */
  min: number;
  max: number;
  /** Where the axis is labelled (and gridded): round values that always include 0. */
  ticks: number[];
};

export function groupTitle(scale: number, model: string | null = null): string {
  if (model === null) return scale === 0 ? "changes on a 0–1 scale" : `changes of figures up to ${10 ** scale}`;
  return scale === 0 ? model : `${model}: figures up to ${10 ** scale}`;
}

/** A round step for about `target` (1, 2, 2.5 or 5 times a power of ten, the first at least `target`). */
export function niceStep(target: number): number {
  const p = 10 ** Math.floor(Math.log10(target));
  return [1, 2, 2.5, 5, 10].map((f) => f * p).find((s) => s >= target * (1 - 1e-12))!;
}

/**
 * The x range of a plot: 0, the changes and the interval ends, widened by a tenth on each side (so a
 * whisker on the edge stays visible), then out to multiples of a round step (about a fifth of the
 * span), so the axis ends on round numbers like its ticks. A plot of nothing but zeros spans ±5 % of
 * its scale's unit.
 */
export function forestRange(rows: readonly ForestRow[], scale: number): { min: number; max: number } {
  const xs = [0, ...rows.flatMap((r) => [r.delta, ...(r.ci ?? [])])];
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  if (!(hi > lo)) return { min: -0.05 * 10 ** scale, max: 0.05 * 10 ** scale };
  const pad = (hi - lo) / 10;
  const step = niceStep((hi - lo + 2 * pad) / 5);
  // Rounded to the step's own decimals, so 0.1 × 3 does not leave 0.30000000000000004 on the axis.
  const round = (x: number) => Number(x.toPrecision(12));
  return { min: round(Math.floor((lo - pad) / step) * step), max: round(Math.ceil((hi + pad) / step) * step) };
}

/**
 * The axis labels of a plot spanning `min`..`max`: the multiples of a round step (about a third of the
 * span, so at most five or so labels fit a phone) that fall inside it. 0 is always one of them (the
 * range holds 0), so the grid draws the line of no change; Chart.js's own ticks start from the axis's
 * end and can step over 0.
 */
export function forestTicks(min: number, max: number): number[] {
  const step = niceStep((max - min) / 3);
  const out: number[] = [];
  for (let k = Math.ceil(min / step - 1e-9); k <= Math.floor(max / step + 1e-9); k++)
    out.push(Number((k * step).toPrecision(12)) + 0);
  return out;
}

/**
 * The forest plots of a comparison. Metrics of very different scales would squash each other in one
 * plot (a PQS change of 5 points next to a rate change of 0.05), so metrics are grouped by scale
 * (figures within [-1, 1] together, larger ones by their power of ten), one plot per group, smallest
 * scale first; metrics that belong to a model (`metricModel`, reasoning-quality's) are also split by
 * model (one plot per model, rows named without the model: short labels that fit a phone, and each model's changes side by side). Within a
 * plot the rows keep the API's order. Changes keep their own units and sign: no normalising, so a point
 * reads as the table's delta. A metric without a change (a side without a value) is left out of the
 * plots; the table still lists it.
 */
export function forestGroups(
  c: Pick<Comparison, "metrics">,
  metricModel: (name: string) => string | null = () => null,
): ForestGroup[] {
  const groups = new Map<string, { model: string | null; scale: number; order: number; rows: ForestRow[] }>();
  const models: (string | null)[] = [];
  for (const m of c.metrics) {
    if (m.delta === null || !Number.isFinite(m.delta)) continue;
    const scale = scaleGroup(m);
    const model = metricModel(m.name);
    if (!models.includes(model)) models.push(model);
    const key = `${scale}\u0000${model ?? ""}`;
    if (!groups.has(key)) groups.set(key, { model, scale, order: models.indexOf(model), rows: [] });
    const label = metricLabel({
      name: model === null ? m.name : m.name.slice(model.length + 1),
      higher_is_better: m.higher_is_better,
    });
    groups.get(key)!.rows.push({
      name: m.name,
      label,
      delta: m.delta,
      ci: m.ci95,
      verdict: m.verdict,
      higherIsBetter: m.higher_is_better,
      method: m.method,
      pValue: m.p_value,
    });
  }
  return [...groups.values()]
    .sort((a, b) => a.order - b.order || a.scale - b.scale)
    .map(({ model, scale, rows }) => {
      const range = forestRange(rows, scale);
      return {
        model,
        scale,
        title: groupTitle(scale, model),
        rows,
        ...range,
        ticks: forestTicks(range.min, range.max),
      };
    });
}

/** Pixels for a forest plot of `n` rows: enough for each label, never a squashed plot. */
export function forestHeight(n: number): number {
  return Math.max(120, 70 + 30 * n);
}

/** The x grid: the line at 0 (no change) dark and thick, the others faint. */
export function zeroLineColor(ctx: Pick<ScriptableScaleContext, "tick">): string {
  return ctx.tick?.value === 0 ? "#1d2330" : "rgba(0, 0, 0, 0.08)";
}

export function zeroLineWidth(ctx: Pick<ScriptableScaleContext, "tick">): number {
  return ctx.tick?.value === 0 ? 2 : 1;
}

export function rowTooltip(r: ForestRow): string[] {
  return [
    `change ${signed(r.delta)} (${directionText(r.higherIsBetter)})`,
    r.ci ? `interval ${intervalText(r.ci)} (${r.method})` : "no interval",
    ...(r.pValue === null ? [] : [`p ${pText(r.pValue)}`]),
    r.verdict.replace("_", " "),
  ];
}

/**
 * One forest plot: a horizontal bar chart with one row per metric; the interval a floating bar
 * [lo, hi], the change a point on it (a line dataset without its line), both in the verdict's colour,
 * and the x grid's line at 0 drawn dark. A metric without an interval shows only its point.
 */
export function forestConfig(g: ForestGroup): ChartConfiguration<"bar" | "line"> {
  const labels = g.rows.map((r) => r.label);
  return {
    type: "bar",
    data: {
      labels,
      datasets: [
        {
          type: "bar",
          label: "interval",
          data: g.rows.map((r): [number, number] | null => (r.ci ? [r.ci[0], r.ci[1]] : null)),
          backgroundColor: g.rows.map((r) => VERDICT_FILLS[r.verdict]),
          borderColor: g.rows.map((r) => VERDICT_COLORS[r.verdict]),
          borderWidth: 1,
          borderSkipped: false,
          // An interval of width 0 ([0, 0] when nothing moved) still shows as a thin bar.
          minBarLength: 2,
          barPercentage: 0.9,
          categoryPercentage: 0.6,
          grouped: false,
          order: 2,
        },
        {
          type: "line",
          label: "change",
          indexAxis: "y",
          data: g.rows.map((r) => r.delta),
          showLine: false,
          pointRadius: 6,
          pointHoverRadius: 7,
          pointStyle: "circle",
          pointBackgroundColor: g.rows.map((r) => VERDICT_COLORS[r.verdict]),
          pointBorderColor: "#fff",
          pointBorderWidth: 2,
          clip: false,
          order: 1,
        },
      ],
    },
    options: {
      indexAxis: "y",
      layout: { padding: { left: 4, right: 16 } },
      plugins: {
        legend: { display: false },
        tooltip: {
          callbacks: {
            title: (items: TooltipItem<"bar" | "line">[]) => g.rows[items[0]?.dataIndex ?? 0]?.name ?? "",
            label: (item: TooltipItem<"bar" | "line">) =>
              item.datasetIndex === 1 ? rowTooltip(g.rows[item.dataIndex]) : [],
          },
        },
      },
      scales: {
        x: {
          type: "linear",
          min: g.min,
          max: g.max,
          grid: { color: zeroLineColor, lineWidth: zeroLineWidth },
          afterBuildTicks: (axis) => {
            axis.ticks = g.ticks.map((value) => ({ value }));
          },
          ticks: { callback: (value) => signedTick(Number(value)), autoSkip: false },
          title: { display: true, text: "change (head − base)" },
        },
        y: { type: "category", ticks: { autoSkip: false }, grid: { display: false } },
      },
    },
  };
}

/** An axis tick: a signed number with no more decimals than it needs (+0.25, -1, 0). */
export function signedTick(x: number): string {
  const r = Math.round(x * 1e6) / 1e6;
  return r > 0 ? `+${r}` : String(r === 0 ? 0 : r);
}

// ---------------------------------------------------------------------------------------------------
// Details and runs

/** A run the details name: "base (run_…)", "head (run_…)", or its id. */
export function sideName(c: Pick<Comparison, "base" | "head">, id: string): string {
  return id === c.base.id ? `base (${id})` : id === c.head.id ? `head (${id})` : id;
}

/**
 * A run in the pickers: id, what it ran (`summary`, its evaluator's own words), and when it was
 * created (the date and minute, UTC).
 */
export function runLabel(run: Pick<Run, "id" | "created_at">, summary: string): string {
  return `${run.id} · ${summary} · ${run.created_at.slice(0, 16).replace("T", " ")}`;
}
