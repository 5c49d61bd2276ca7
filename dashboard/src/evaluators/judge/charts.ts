// The judge run page's data, from the run's result (JudgeResult) and its contested queue: the item ×
// critic verdict grid, label colours and legend, per-critic agreement (a Chart.js bar chart), the
// pairwise alpha heat table and the batch cards. Pure functions: no DOM, no Chart.js at run time.
import type { ChartConfiguration } from "chart.js";
import type { ContestedItem, JudgeResult } from "@assay/sdk";

/** How a verdict counts: a vote for a label, or one of the three kinds kept apart from the votes; or absent. */
export type VerdictClass = "valid" | "error" | "parse_fail" | "off_vocabulary" | "missing";

/** As the API classifies a verdict: no error is a vote; "parse_fail"; "off_vocabulary: …"; any other error is ERROR. */
export function verdictClass(v: { error: string | null } | undefined): VerdictClass {
  if (!v) return "missing";
  if (v.error === null) return "valid";
  if (v.error === "parse_fail") return "parse_fail";
  if (v.error.startsWith("off_vocabulary")) return "off_vocabulary";
  return "error";
}

export type Swatch = { bg: string; fg: string };

/** Light fills with dark text for the vocabulary's labels (ColorBrewer Paired/Set3 pastels), in vocabulary order. */
const LABEL_FILLS = [
  "#a6cee3",
  "#b2df8a",
  "#fdbf6f",
  "#cab2d6",
  "#ffff99",
  "#8dd3c7",
  "#fccde5",
  "#bebada",
  "#ccebc5",
  "#ffed6f",
];

/** The verdicts that are not votes: dark fills with white text (ERROR, PARSE_FAIL), an outlined cell, a blank. */
export const SPECIAL: Record<Exclude<VerdictClass, "valid">, Swatch & { text: string; title: string }> = {
  error: { bg: "#7f1d1d", fg: "#ffffff", text: "ERROR", title: "ERROR: the call failed" },
  parse_fail: { bg: "#374151", fg: "#ffffff", text: "PARSE_FAIL", title: "PARSE_FAIL: an answer without JSON" },
  off_vocabulary: { bg: "#ffffff", fg: "#7a4f00", text: "", title: "off-vocabulary: a label outside the run's labels" },
  missing: { bg: "#eef0f3", fg: "#5b6475", text: "—", title: "missing: no verdict (the run was canceled)" },
};

/** A colour per label of the vocabulary: the palette in order, then evenly turned pastel hues. */
export function labelColors(labels: readonly string[]): Map<string, Swatch> {
  const colors = new Map<string, Swatch>();
  labels.forEach((label, i) => {
    const bg = i < LABEL_FILLS.length ? LABEL_FILLS[i] : `hsl(${Math.round((i * 137.5) % 360)}, 70%, 82%)`;
    colors.set(label, { bg, fg: "#1d2330" });
  });
  return colors;
}

export type GridCell = {
  critic: string;
  cls: VerdictClass;
  text: string;
  swatch: Swatch;
  confidence: number | null;
  error: string | null;
};
export type GridRow = {
  id: string;
  expected: string | null;
  consensus: string;
  consensusSwatch: Swatch;
  agreement: number;
  alpha: number | null;
  contested: boolean;
  cells: GridCell[];
};
export type VerdictGrid = { critics: string[]; hasExpected: boolean; rows: GridRow[] };

const NEUTRAL: Swatch = { bg: "#ffffff", fg: "#1d2330" };

/** The critics in the run's order (the batch statistics list every critic once, in the request's order). */
export function criticNames(result: JudgeResult): string[] {
  return result.batch.per_critic.map((c) => c.critic);
}

/** One row per item, one cell per critic: the verdict's label, or ERROR / PARSE_FAIL / the off-vocabulary label / —. */
export function verdictGrid(result: JudgeResult): VerdictGrid {
  const critics = criticNames(result);
  const colors = labelColors(result.labels);
  const rows = result.items.map((item): GridRow => {
    const byCritic = new Map(item.verdicts.map((v) => [v.critic, v]));
    const cells = critics.map((critic): GridCell => {
      const v = byCritic.get(critic);
      const cls = verdictClass(v);
      if (cls === "valid")
        return {
          critic,
          cls,
          text: v!.kind,
          swatch: colors.get(v!.kind) ?? NEUTRAL,
          confidence: v!.confidence,
          error: null,
        };
      const special = SPECIAL[cls];
      return {
        critic,
        cls,
        text: cls === "off_vocabulary" ? v!.kind : special.text,
        swatch: { bg: special.bg, fg: special.fg },
        confidence: v ? v.confidence : null,
        error: v ? v.error : null,
      };
    });
    return {
      id: item.id,
      expected: item.expected,
      consensus: item.consensus,
      consensusSwatch: colors.get(item.consensus) ?? NEUTRAL,
      agreement: item.agreement_pct,
      alpha: item.krippendorff_alpha,
      contested: item.contested.length > 0,
      cells,
    };
  });
  return { critics, hasExpected: result.items.some((i) => i.expected !== null), rows };
}

export type LegendEntry = { key: string; text: string; cls: VerdictClass; swatch: Swatch; count: number };

/**
 * The grid's legend: every label of the vocabulary, then ERROR and PARSE_FAIL (always: they are what the
 * grid sets apart), then off-vocabulary and missing when there are any; each with its number of cells.
 */
export function gridLegend(grid: VerdictGrid, labels: readonly string[]): LegendEntry[] {
  const colors = labelColors(labels);
  const count = (match: (c: GridCell) => boolean) => grid.rows.reduce((n, r) => n + r.cells.filter(match).length, 0);
  const entries: LegendEntry[] = labels.map((label) => ({
    key: label,
    text: label,
    cls: "valid",
    swatch: colors.get(label)!,
    count: count((c) => c.cls === "valid" && c.text === label),
  }));
  for (const cls of ["error", "parse_fail", "off_vocabulary", "missing"] as const) {
    const n = count((c) => c.cls === cls);
    if (n === 0 && (cls === "off_vocabulary" || cls === "missing")) continue;
    const text = cls === "off_vocabulary" ? "off-vocabulary" : cls === "missing" ? "missing" : SPECIAL[cls].text;
    entries.push({ key: cls, text, cls, swatch: { bg: SPECIAL[cls].bg, fg: SPECIAL[cls].fg }, count: n });
  }
  return entries;
}

/** A number with `digits` decimals, or "n/a" where it is undefined (null). */
export function fixed(x: number | null | undefined, digits = 3): string {
  return x === null || x === undefined || Number.isNaN(x) ? "n/a" : x.toFixed(digits);
}

/** A rate as a percentage with one decimal ("66.7%"), or "n/a". */
export function percent(x: number | null | undefined): string {
  return x === null || x === undefined ? "n/a" : `${(x * 100).toFixed(1)}%`;
}

/** Per-critic agreement with the consensus as a horizontal bar chart (0–1), a bar per critic in the run's order. */
export function criticAgreementChart(result: JudgeResult): ChartConfiguration<"bar", (number | null)[], string> {
  const rows = result.batch.per_critic;
  return {
    type: "bar",
    data: {
      labels: rows.map((r) => r.critic),
      datasets: [
        {
          label: "agreement with the consensus",
          data: rows.map((r) => r.rate),
          backgroundColor: "#2f5fd0",
          borderRadius: 3,
          maxBarThickness: 28,
        },
      ],
    },
    options: {
      indexAxis: "y",
      scales: {
        x: { min: 0, max: 1, title: { display: true, text: "share of items agreeing with the consensus" } },
        y: { ticks: { autoSkip: false } },
      },
      plugins: { legend: { display: false } },
    },
  };
}

/** A heat colour for an alpha in [-1, 1]: white at 0, towards blue as it nears 1, towards red below 0; grey if undefined. */
export function heatColor(alpha: number | null): Swatch {
  if (alpha === null) return { bg: "#eef0f3", fg: "#5b6475" };
  const t = Math.max(-1, Math.min(1, alpha));
  const target = t >= 0 ? [0x2f, 0x5f, 0xd0] : [0xb3, 0x26, 0x1e];
  const k = Math.abs(t);
  const hex = target
    .map((c) =>
      Math.round(255 + (c - 255) * k)
        .toString(16)
        .padStart(2, "0"),
    )
    .join("");
  return { bg: `#${hex}`, fg: k > 0.55 ? "#ffffff" : "#1d2330" };
}

export type PairCell = {
  a: string;
  b: string;
  alpha: number | null;
  rate: number | null;
  agree: number;
  items: number;
} | null;

/** The pairwise table as a symmetric critics × critics matrix (null on the diagonal and for pairs the result lacks). */
export function pairwiseMatrix(result: JudgeResult): { critics: string[]; cells: PairCell[][] } {
  const critics = criticNames(result);
  const find = (a: string, b: string) =>
    result.batch.pairwise.find((p) => (p.a === a && p.b === b) || (p.a === b && p.b === a));
  const cells = critics.map((a) =>
    critics.map((b): PairCell => {
      if (a === b) return null;
      const p = find(a, b);
      return p ? { a, b, alpha: p.alpha, rate: p.rate, agree: p.agree, items: p.items } : null;
    }),
  );
  return { critics, cells };
}

export type Card = { key: string; label: string; value: string; hint?: string };

/** The batch at a glance: alpha with its support, the verdict counts (errors and parse failures apart), contested, accuracy. */
export function batchCards(result: JudgeResult): Card[] {
  const { counts, batch } = result;
  const cards: Card[] = [
    {
      key: "alpha",
      label: "Batch alpha (nominal)",
      value: fixed(batch.alpha.alpha),
      hint: `${batch.alpha.pairable} pairable values over ${batch.alpha.units_used} items`,
    },
    { key: "items", label: "Items", value: String(counts.items) },
    { key: "verdicts", label: "Verdicts", value: String(counts.verdicts), hint: `${counts.valid} valid` },
    { key: "errors", label: "Errors", value: String(counts.errors) },
    { key: "parse_failures", label: "Parse failures", value: String(counts.parse_failures) },
  ];
  if (counts.off_vocabulary)
    cards.push({ key: "off_vocabulary", label: "Off-vocabulary", value: String(counts.off_vocabulary) });
  if (counts.missing) cards.push({ key: "missing", label: "Missing", value: String(counts.missing) });
  cards.push({
    key: "contested",
    label: "Contested",
    value: String(result.contested.count),
    hint: `below ${result.contested.threshold}`,
  });
  if (result.accuracy) {
    cards.push({
      key: "accuracy",
      label: "Accuracy vs expected",
      value: percent(result.accuracy.rate),
      hint: `${result.accuracy.correct} of ${result.accuracy.items}`,
    });
  }
  const p = batch.patterns;
  cards.push({
    key: "patterns",
    label: "Unanimous / majority / split",
    value: `${p.unanimous} / ${p.majority} / ${p.no_majority}`,
    hint: p.no_valid ? `${p.no_valid} without a valid verdict` : undefined,
  });
  return cards;
}

export const REASON_TEXT: Record<ContestedItem["reasons"][number], string> = {
  agreement_below_threshold: "agreement below the threshold",
  alpha_below_threshold: "alpha below the threshold",
  fewer_than_two_valid_verdicts: "fewer than two valid verdicts",
};
