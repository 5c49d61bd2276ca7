// What the rpl run page draws, as pure functions of the run's result and samples: each template's mean
// logit (and the samples behind it) against the trimmed center and its bootstrap CI, the estimate in
// probability space, and for `preset: auto` the controller's stages against its gates.
// No DOM and no Chart.js runtime here (only its types), so Node tests can check every number.
import type { ChartConfiguration, TooltipItem } from "chart.js";
import type { RplAuto, RplResult, RplSample } from "@assay/sdk";
import { COLORS, pct, pointIntervalConfig } from "../../charts/plot.ts";

export { pct };

/** The logistic function: logit space → probability. */
export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/** A logit with three decimals, a minus sign for negatives: -1.18593 → "-1.186". */
export function logit3(x: number): string {
  return x.toFixed(3);
}

export type TemplatePoint = {
  /** The template key the aggregate groups by (the prompt's SHA-256). */
  key: string;
  /** The paraphrase's index in the prompt bank, when a sample says which one it was. */
  paraphrase: number | null;
  /** How many valid samples the aggregate took from this template. */
  count: number;
  mean: number;
  /** The valid samples' logits, by replicate index (empty when the samples are not loaded). */
  logits: number[];
};

/**
 * The per-template means as the result reports them: `diagnostics.template_means[i]` belongs to the
 * i-th key of `aggregation.counts_by_template` (both in the order the aggregate first saw each
 * template). Samples add each template's paraphrase index and its valid logits. Drawn in paraphrase
 * order (unknown ones last, in key order) so that the x axis reads like the prompt bank.
 */
export function templatePoints(result: RplResult, samples: readonly RplSample[] = []): TemplatePoint[] {
  const keys = Object.keys(result.aggregation.counts_by_template);
  const byKey = new Map<string, { paraphrase: number; logits: Array<[number, number]> }>();
  for (const s of samples) {
    const o = s.output;
    if (!o) continue;
    let t = byKey.get(o.prompt_sha256);
    if (!t) byKey.set(o.prompt_sha256, (t = { paraphrase: o.paraphrase_idx, logits: [] }));
    if (o.json_valid && typeof o.logit === "number") t.logits.push([o.replicate_idx, o.logit]);
  }
  const points = keys.map((key, i): TemplatePoint & { order: number } => {
    const t = byKey.get(key);
    return {
      key,
      paraphrase: t?.paraphrase ?? null,
      count: result.aggregation.counts_by_template[key],
      mean: result.diagnostics.template_means[i],
      logits: t ? t.logits.sort((a, b) => a[0] - b[0]).map(([, l]) => l) : [],
      order: i,
    };
  });
  return points
    .sort((a, b) => (a.paraphrase ?? Infinity) - (b.paraphrase ?? Infinity) || a.order - b.order)
    .map(({ order: _, ...p }) => p);
}

export function templateLabel(p: TemplatePoint, i: number): string {
  return p.paraphrase === null ? `#${i + 1}` : `P${p.paraphrase}`;
}

/**
 * Where sample `j` of `n` sits around its template's x: spread over ±0.15 so that equal logits stay
 * visible side by side (deterministic, unlike a random jitter).
 */
export function jitter(j: number, n: number): number {
  return n <= 1 ? 0 : -0.15 + (0.3 * j) / (n - 1);
}

/** Both y axes cover the means, the samples, the center and its CI, with a margin of a tenth. */
export function logitRange(points: readonly TemplatePoint[], result: RplResult): { min: number; max: number } {
  const ys = [
    result.diagnostics.ell_hat,
    ...result.diagnostics.ci_logit,
    ...points.flatMap((p) => [p.mean, ...p.logits]),
  ];
  const lo = Math.min(...ys);
  const hi = Math.max(...ys);
  const pad = Math.max((hi - lo) / 10, 0.05);
  return { min: lo - pad, max: hi + pad };
}

/** The logit of a probability in (0, 1). */
export function logit(p: number): number {
  return Math.log(p / (1 - p));
}

const PROB_STEPS = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2];

/**
 * Round probabilities for the right axis of a logit plot spanning `min`..`max` (logits): the finest
 * step of 0.001 … 0.2 that gives at most 8 multiples inside the range, returned as their logits so
 * they land on the logit scale (0 and 1 have none and are never included).
 */
export function probabilityTicks(min: number, max: number): number[] {
  const lo = sigmoid(min);
  const hi = sigmoid(max);
  for (const step of PROB_STEPS) {
    const first = Math.ceil(lo / step - 1e-9);
    const last = Math.floor(hi / step + 1e-9);
    if (last - first + 1 <= 8) {
      const out: number[] = [];
      for (let k = first; k <= last; k++) {
        const p = Math.round(k * step * 1e6) / 1e6;
        if (p > 0 && p < 1) out.push(logit(p));
      }
      return out;
    }
  }
  return [];
}

type Pt = { x: number; y: number; label?: string };

/**
 * The strip plot: x = template (in {@link templatePoints} order), left y = logit, right y = the same
 * scale read as probabilities. Datasets, in order: the CI band's lower and upper edge (filled between),
 * the trimmed center, the samples (small, grey), the template means (large dots).
 */
export function templateStripConfig(
  result: RplResult,
  points: readonly TemplatePoint[],
): ChartConfiguration<"scatter", Pt[]> {
  const { ell_hat, ci_logit } = result.diagnostics;
  const { min, max } = logitRange(points, result);
  const x0 = -0.5;
  const x1 = points.length - 0.5;
  const line = (y: number): Pt[] => [
    { x: x0, y },
    { x: x1, y },
  ];
  const samples: Pt[] = points.flatMap((p, i) =>
    p.logits.map((y, j) => ({ x: i + jitter(j, p.logits.length), y, label: templateLabel(p, i) })),
  );
  const means: Pt[] = points.map((p, i) => ({ x: i, y: p.mean, label: templateLabel(p, i) }));
  const edge = { showLine: true, pointRadius: 0, pointHoverRadius: 0, borderWidth: 1, borderColor: COLORS.band };
  return {
    type: "scatter",
    data: {
      datasets: [
        { ...edge, label: "CI lower", data: line(ci_logit[0]) },
        { ...edge, label: "95% CI of the center", data: line(ci_logit[1]), fill: "-1", backgroundColor: COLORS.band },
        {
          label: "trimmed center",
          data: line(ell_hat),
          showLine: true,
          pointRadius: 0,
          pointHoverRadius: 0,
          borderColor: COLORS.accent,
          borderWidth: 2,
          borderDash: [6, 4],
        },
        { label: "samples", data: samples, pointRadius: 3, backgroundColor: COLORS.muted, borderColor: COLORS.muted },
        {
          label: "template mean",
          data: means,
          pointRadius: 7,
          pointHoverRadius: 8,
          backgroundColor: COLORS.accent,
          borderColor: "#fff",
          borderWidth: 2,
        },
      ],
    },
    options: {
      plugins: {
        legend: { labels: { filter: (item) => item.text !== "CI lower", boxHeight: 10 } },
        tooltip: {
          filter: (item: TooltipItem<"scatter">) => item.datasetIndex >= 3,
          callbacks: {
            label: (item: TooltipItem<"scatter">) => {
              const raw = item.raw as Pt;
              return `${raw.label} ${item.dataset.label}: logit ${logit3(raw.y)}, p ${pct(sigmoid(raw.y))}`;
            },
          },
        },
      },
      scales: {
        x: {
          type: "linear",
          min: x0,
          max: x1,
          grid: { display: false },
          // One tick per template, at its integer x (a linear axis would start its ticks at -0.5).
          afterBuildTicks: (axis) => {
            axis.ticks = points.map((_, i) => ({ value: i }));
          },
          ticks: {
            autoSkip: true,
            maxRotation: 0,
            callback: (v) => (points[Number(v)] ? templateLabel(points[Number(v)], Number(v)) : ""),
          },
          title: { display: true, text: "template (prompt bank paraphrase)" },
        },
        y: {
          min,
          max,
          title: { display: true, text: "logit" },
          ticks: { includeBounds: false, callback: (v) => Number(v).toFixed(2) },
        },
        y1: {
          position: "right",
          min,
          max,
          grid: { display: false },
          title: { display: true, text: "probability" },
          afterBuildTicks: (axis) => {
            axis.ticks = probabilityTicks(min, max).map((value) => ({ value }));
          },
          ticks: { callback: (v) => pct(sigmoid(Number(v))) },
        },
      },
    },
  };
}

/** p and its CI on the whole probability axis, 0 to 1 (a narrow CI shows as a short bar, as it is). */
export function probabilityConfig(result: RplResult): ChartConfiguration<"scatter"> {
  const { prob_true_rpl: p, ci95 } = result.aggregates;
  return pointIntervalConfig(
    { estimate: p, lo: ci95[0], hi: ci95[1] },
    { name: "prob_true_rpl", intervalName: "95% CI" },
  );
}

/** The headline cards, in the order shown: label, text, and the API field it comes from. */
export type Card = { label: string; value: string; field: string; tone?: "ok" | "bad" | "warn" };

export function rplCards(result: RplResult): Card[] {
  const a = result.aggregates;
  const q = result.quality;
  return [
    { label: "prob_true (RPL)", value: pct(a.prob_true_rpl), field: "aggregates.prob_true_rpl" },
    { label: "95% CI", value: `${pct(a.ci95[0])} – ${pct(a.ci95[1])}`, field: "aggregates.ci95" },
    {
      label: "CI width",
      value: pct(a.ci_width),
      field: "aggregates.ci_width",
      tone: q.gate_precision_ok ? "ok" : "bad",
    },
    {
      label: "stability",
      value: `${a.stability_score.toFixed(3)} (${a.stability_band})`,
      field: "aggregates.stability_score",
      tone: q.gate_stability_ok ? "ok" : "bad",
    },
    {
      label: "compliance",
      value: pct(a.rpl_compliance_rate),
      field: "aggregates.rpl_compliance_rate",
      tone: q.gate_compliance_ok ? "ok" : "bad",
    },
    { label: "cache hit rate", value: pct(a.cache_hit_rate), field: "aggregates.cache_hit_rate" },
    { label: "PQS", value: String(q.pqs), field: "quality.pqs" },
    {
      label: "templates · imbalance",
      value: `${result.aggregation.n_templates} · ${result.aggregation.imbalance_ratio.toFixed(2)}`,
      field: "aggregation.imbalance_ratio",
    },
  ];
}

/** The invalid samples by reason, most frequent first. */
export function invalidReasons(result: RplResult): Array<{ reason: string; count: number }> {
  return Object.entries(result.diagnostics.invalid_reasons)
    .map(([reason, count]) => ({ reason, count }))
    .sort((a, b) => b.count - a.count || (a.reason < b.reason ? -1 : 1));
}

// ---------------------------------------------------------------------------------------------------
// Auto-RPL

export type Stage = RplAuto["stages"][number];

/** Which of the controller's hard gates a stage fails (the reason it escalates). */
export function failingGates(stage: Stage, gates: RplAuto["controller"]["gates"]): string[] {
  const out: string[] = [];
  if (!(stage.ci_width <= gates.ci_width_max)) out.push("ci_width");
  if (!(stage.stability_score >= gates.stability_min)) out.push("stability");
  if (!(stage.imbalance_ratio <= gates.imbalance_max)) out.push("imbalance");
  return out;
}

/**
 * Each stage's CI width and stability (lines over the stages) with the two gates they must meet
 * (dashed): CI width at most `ci_width_max`, stability at least `stability_min`.
 */
export function stagesConfig(auto: RplAuto): ChartConfiguration<"line"> {
  const labels = auto.stages.map((s) => `${s.stage_id.split("-")[0]} (T${s.T} K${s.K} R${s.R})`);
  const flat = (y: number) => auto.stages.map(() => y);
  const { ci_width_max, stability_min } = auto.controller.gates;
  return {
    type: "line",
    data: {
      labels,
      datasets: [
        {
          label: "CI width",
          data: auto.stages.map((s) => s.ci_width),
          borderColor: COLORS.accent,
          backgroundColor: COLORS.accent,
          pointRadius: 5,
        },
        {
          label: `CI width gate (≤ ${ci_width_max})`,
          data: flat(ci_width_max),
          borderColor: COLORS.accent,
          borderDash: [6, 4],
          pointRadius: 0,
          borderWidth: 1,
        },
        {
          label: "stability",
          data: auto.stages.map((s) => s.stability_score),
          borderColor: COLORS.ok,
          backgroundColor: COLORS.ok,
          pointRadius: 5,
        },
        {
          label: `stability gate (≥ ${stability_min})`,
          data: flat(stability_min),
          borderColor: COLORS.ok,
          borderDash: [6, 4],
          pointRadius: 0,
          borderWidth: 1,
        },
      ],
    },
    options: {
      plugins: { legend: { labels: { boxHeight: 2 } } },
      scales: { y: { min: 0, max: 1 }, x: { offset: true } },
    },
  };
}
