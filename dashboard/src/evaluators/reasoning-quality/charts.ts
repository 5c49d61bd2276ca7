// The reasoning-quality run page's data, from the run's result (ReasoningQualityResult): the radar of each
// model's six metrics (a Chart.js radar), the model × strategy table with ranks, score cards, the
// per-dataset breakdown (table and grouped bars) and the report links. Pure: no DOM, no Chart.js at run time.
import type { ChartConfiguration } from "chart.js";
import type { ReasoningQualityResult } from "@assay/sdk";
import { METRICS, type MetricKey } from "./metrics.ts";

export { METRICS, type MetricKey };

/** One colour per model, in the result's order (Tableau 10). */
export const MODEL_COLORS = [
  "#4e79a7",
  "#f28e2b",
  "#e15759",
  "#76b7b2",
  "#59a14f",
  "#edc948",
  "#b07aa1",
  "#ff9da7",
  "#9c755f",
  "#bab0ac",
];

export const modelColor = (i: number) => MODEL_COLORS[i % MODEL_COLORS.length];

/** A metric or Q with 4 decimals (the API's own rounding of the metrics), or "—" where it was left out (null). */
export function four(x: number | null | undefined): string {
  return x === null || x === undefined ? "—" : x.toFixed(4);
}

/** `#rrggbb` with an alpha channel, for a translucent fill. */
function translucent(hex: string, alpha: number): string {
  return (
    hex +
    Math.round(alpha * 255)
      .toString(16)
      .padStart(2, "0")
  );
}

/** The metrics a result reports, in METRICS order (the result's `metric_keys`). */
export function metricsOf(result: ReasoningQualityResult): typeof METRICS {
  const keys = new Set(result.metric_keys);
  return METRICS.filter((m) => keys.has(m.key));
}

/** The radar: one polygon per model over the six metrics (0–1); a metric left out (null) is a gap. */
export function radarChart(result: ReasoningQualityResult): ChartConfiguration<"radar", (number | null)[], string[]> {
  const metrics = metricsOf(result);
  return {
    type: "radar",
    data: {
      labels: metrics.map((m) => [m.name, m.abbr]),
      datasets: result.models.map((m, i) => ({
        label: m.model,
        data: metrics.map((k) => m.raw_metrics[k.key]),
        borderColor: modelColor(i),
        backgroundColor: translucent(modelColor(i), 0.15),
        pointBackgroundColor: modelColor(i),
        pointRadius: 3,
        borderWidth: 2,
        spanGaps: true,
      })),
    },
    options: {
      scales: {
        r: {
          min: 0,
          max: 1,
          ticks: { stepSize: 0.2, backdropColor: "transparent" },
          pointLabels: { font: { size: 12 } },
        },
      },
      plugins: { legend: { position: "bottom" } },
    },
  };
}

/** The strategies in the result's order (the preset's, then the request's own). */
export function strategyNames(result: ReasoningQualityResult): string[] {
  return Object.keys(result.strategies);
}

/** A model's rank under a strategy, from `rankings` (ties share a rank); null if the ranking leaves it out. */
export function rankOf(result: ReasoningQualityResult, strategy: string, model: string): number | null {
  return result.rankings[strategy]?.find((r) => r.model === model)?.rank ?? null;
}

export type StrategyRow = {
  strategy: string;
  weights: { [metric: string]: number };
  cells: { model: string; q: number | null; rank: number | null; best: boolean }[];
};

/** Strategies × models: Q and rank in each cell, the rank-1 models marked. */
export function strategyTable(result: ReasoningQualityResult): { models: string[]; rows: StrategyRow[] } {
  const models = result.models.map((m) => m.model);
  const rows = strategyNames(result).map((strategy) => ({
    strategy,
    weights: result.strategies[strategy],
    cells: result.models.map((m) => {
      const rank = rankOf(result, strategy, m.model);
      return { model: m.model, q: m.aggregated[strategy] ?? null, rank, best: rank === 1 };
    }),
  }));
  return { models, rows };
}

export type ScoreCard = {
  model: string;
  color: string;
  q: number | null;
  rank: number | null;
  n: number;
  correctness: number;
};

/** One card per model for a strategy, best first (the ranking's order, then the result's). */
export function scoreCards(result: ReasoningQualityResult, strategy: string): ScoreCard[] {
  const cards = result.models.map((m, i) => ({
    model: m.model,
    color: modelColor(i),
    q: m.aggregated[strategy] ?? null,
    rank: rankOf(result, strategy, m.model),
    n: m.metadata.num_samples,
    correctness: m.raw_metrics.correctness,
    order: i,
  }));
  cards.sort((a, b) => (a.rank ?? Infinity) - (b.rank ?? Infinity) || a.order - b.order);
  return cards.map(({ order: _, ...c }) => c);
}

export type DatasetRow = { dataset: string; model: string; n: number; metrics: (number | null)[]; q: number | null };

/**
 * The per-dataset breakdown under one strategy: a row per (dataset, model), datasets sorted by name, models
 * in the result's order. The API computes it only when a run has more than one dataset: empty otherwise.
 */
export function perDatasetRows(
  result: ReasoningQualityResult,
  strategy: string,
): { datasets: string[]; rows: DatasetRow[] } {
  const datasets = [...new Set(result.models.flatMap((m) => Object.keys(m.per_dataset)))].sort();
  const metrics = metricsOf(result);
  const rows: DatasetRow[] = [];
  for (const dataset of datasets) {
    for (const m of result.models) {
      const d = m.per_dataset[dataset];
      if (!d) continue;
      rows.push({
        dataset,
        model: m.model,
        n: d.num_samples,
        metrics: metrics.map((k) => d.raw_metrics[k.key]),
        q: d.aggregated[strategy] ?? null,
      });
    }
  }
  return { datasets, rows };
}

/** Q per dataset under one strategy, as grouped bars: a group per dataset, a bar per model. */
export function perDatasetChart(
  result: ReasoningQualityResult,
  strategy: string,
): ChartConfiguration<"bar", (number | null)[], string> {
  const { datasets } = perDatasetRows(result, strategy);
  return {
    type: "bar",
    data: {
      labels: datasets,
      datasets: result.models.map((m, i) => ({
        label: m.model,
        data: datasets.map((d) => m.per_dataset[d]?.aggregated[strategy] ?? null),
        backgroundColor: modelColor(i),
        maxBarThickness: 48,
      })),
    },
    options: {
      scales: { y: { min: 0, max: 1, title: { display: true, text: `Q (${strategy})` } } },
      plugins: { legend: { position: "bottom" } },
    },
  };
}

export type ReportLink = { key: "csv" | "xlsx" | "svg"; label: string; href: string; filename: string };

/** The run's reports, as same-origin GET paths (the session cookie is sent to /v1) and the names to save them under. */
export function reportLinks(runId: string): ReportLink[] {
  const base = `/v1/runs/${encodeURIComponent(runId)}`;
  return [
    { key: "csv", label: "CSV (model × strategy)", href: `${base}/report.csv`, filename: `${runId}.csv` },
    { key: "xlsx", label: "Excel report (XLSX)", href: `${base}/report.xlsx`, filename: `${runId}.xlsx` },
    { key: "svg", label: "Radar (SVG)", href: `${base}/radar.svg`, filename: `${runId}-radar.svg` },
  ];
}

/** What a reader should know about how the metrics were measured: fallbacks, left-out metrics, failures. */
export function notes(result: ReasoningQualityResult): string[] {
  const out: string[] = [];
  for (const m of result.models) {
    const x = m.extensions;
    if (x.ls_fallback) out.push(`${m.model}: LS fell back from ${x.ls_fallback.from} (${x.ls_fallback.reason}).`);
    if (x.ss_fallback) out.push(`${m.model}: SS fell back from ${x.ss_fallback.from} (${x.ss_fallback.reason}).`);
    if (x.rs_skipped) out.push(`${m.model}: no item had perturbations, so RS is left out.`);
    if (m.generation_failed)
      out.push(
        `${m.model}: ${m.generation_failed} primary generation${m.generation_failed === 1 ? "" : "s"} failed (scored as wrong).`,
      );
    if (m.calls.failed) out.push(`${m.model}: ${m.calls.failed} of ${m.calls.made} calls failed.`);
  }
  return out;
}
