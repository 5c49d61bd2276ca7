// Chart.js configurations of the vrty playground, built from the API's numbers (pure; the canvas is
// components/chart.tsx).
import type { ChartConfiguration } from "chart.js";
import type { VrtyResult } from "@assay/sdk";
import type { Bin } from "./histogram.ts";

export const DIMENSIONS = ["relevance", "coherence", "completeness", "conciseness"] as const;

const ACCENT = "#2f5fd0";
const COMPOSITE = "#1f7a3d";

/** The bars of one result: the four dimensions (labelled with their weight) and the composite. */
export function dimensionBars(r: VrtyResult): { labels: string[]; values: number[] } {
  return {
    labels: [...DIMENSIONS.map((d) => `${d} ×${r.weights[d]}`), "composite"],
    values: [...DIMENSIONS.map((d) => r[d]), r.composite],
  };
}

export function dimensionsChart(r: VrtyResult): ChartConfiguration<"bar"> {
  const { labels, values } = dimensionBars(r);
  return {
    type: "bar",
    data: {
      labels,
      datasets: [
        {
          label: "score",
          data: values,
          backgroundColor: values.map((_, i) => (i === values.length - 1 ? COMPOSITE : ACCENT)),
          borderRadius: 3,
        },
      ],
    },
    options: {
      indexAxis: "y",
      scales: { x: { min: 0, max: 1, ticks: { stepSize: 0.2 } } },
      plugins: { legend: { display: false }, tooltip: { callbacks: { label: (c) => (c.parsed.x ?? 0).toFixed(4) } } },
    },
  };
}

export function histogramChart(bins: readonly Bin[]): ChartConfiguration<"bar"> {
  return {
    type: "bar",
    data: {
      labels: bins.map((b) => b.label),
      datasets: [
        {
          label: "pairs",
          data: bins.map((b) => b.count),
          backgroundColor: ACCENT,
          categoryPercentage: 1,
          barPercentage: 0.95,
        },
      ],
    },
    options: {
      scales: {
        x: { title: { display: true, text: "composite" }, ticks: { maxRotation: 0, autoSkip: true } },
        y: { beginAtZero: true, title: { display: true, text: "pairs" }, ticks: { precision: 0 } },
      },
      plugins: { legend: { display: false } },
    },
  };
}
