// Chart pieces every evaluator's run view and the compare page share: the palette, shares as
// percentages, and a point on its interval. No DOM and no Chart.js runtime (only its types).
import type { ChartConfiguration, TooltipItem } from "chart.js";

export const COLORS = {
  accent: "#2f5fd0",
  band: "rgba(47, 95, 208, 0.18)",
  ok: "#1f7a3d",
  bad: "#b3261e",
  muted: "#8a93a3",
  line: "#d9dde5",
};

/** A share in [0, 1] as a percentage with one decimal: 0.15004 → "15.0%". */
export function pct(x: number | null | undefined): string {
  return typeof x === "number" && Number.isFinite(x) ? `${(100 * x).toFixed(1)}%` : "–";
}

export type Interval = { estimate: number; lo: number; hi: number };

/**
 * A point with its interval on one horizontal axis (`min`..`max`, values as given, ticks as `tick`):
 * the interval is a two-point line with whisker ends, the estimate a dot on it. `name` labels both
 * in the legend-free tooltip. Used for chain-determinism's rate and its Wilson CI, and for rpl's p and its CI.
 */
export function pointIntervalConfig(
  v: Interval,
  opts: { name: string; intervalName: string; min?: number; max?: number; tick?: (x: number) => string },
): ChartConfiguration<"scatter"> {
  const { min = 0, max = 1, tick = pct } = opts;
  return {
    type: "scatter",
    data: {
      datasets: [
        {
          label: opts.intervalName,
          data: [
            { x: v.lo, y: 0 },
            { x: v.hi, y: 0 },
          ],
          showLine: true,
          borderColor: COLORS.accent,
          borderWidth: 3,
          pointStyle: "line",
          pointRotation: 90,
          pointRadius: 10,
          pointBorderWidth: 3,
          pointBorderColor: COLORS.accent,
          // An end at 0 or 1 sits on the plot's edge: draw it whole.
          clip: false,
        },
        {
          label: opts.name,
          data: [{ x: v.estimate, y: 0 }],
          clip: false,
          pointRadius: 7,
          pointHoverRadius: 8,
          backgroundColor: COLORS.accent,
          borderColor: "#fff",
          borderWidth: 2,
        },
      ],
    },
    options: {
      layout: { padding: { left: 8, right: 16 } },
      plugins: {
        legend: { display: false },
        tooltip: {
          callbacks: { label: (item: TooltipItem<"scatter">) => `${item.dataset.label}: ${tick(item.parsed.x ?? 0)}` },
        },
      },
      scales: {
        x: { type: "linear", min, max, ticks: { callback: (value) => tick(Number(value)), maxTicksLimit: 6 } },
        y: { display: false, min: -1, max: 1 },
      },
    },
  };
}
