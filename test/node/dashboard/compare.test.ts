// The data the compare page draws from GET /v1/compare's answer: the forest plots (metrics grouped by
// scale, each change with its interval, the line at 0), the table's figures, the details in sentences
// (each evaluator's, from its folder), the run pickers' labels and the page's route. Expected values are
// worked out by hand below.
import { describe, expect, expectTypeOf, it } from "vitest";
import type { ChainDeterminismRun, Comparison, MetricComparison, RplComparisonDetails } from "@assay/sdk";
import {
  figure,
  forestConfig,
  forestGroups,
  forestRange,
  forestTicks,
  groupTitle,
  intervalText,
  metricLabel,
  metricScale,
  niceStep,
  pText,
  rowTooltip,
  runLabel,
  scaleGroup,
  signed,
  signedTick,
  VERDICT_COLORS,
  zeroLineColor,
  zeroLineWidth,
} from "../../../dashboard/src/charts/compare.ts";
import { href, parseRoute } from "../../../dashboard/src/paths.ts";
import * as chainDeterminism from "../../../dashboard/src/evaluators/chain-determinism/compare.ts";
import * as rpl from "../../../dashboard/src/evaluators/rpl/compare.ts";
import * as judge from "../../../dashboard/src/evaluators/judge/compare.ts";
import {
  detailLines as rqDetailLines,
  metricModel,
  rankChanges,
} from "../../../dashboard/src/evaluators/reasoning-quality/compare.ts";

function m(
  name: string,
  base: number | null,
  head: number | null,
  ci95: [number, number] | null,
  over: Partial<MetricComparison> = {},
): MetricComparison {
  return {
    name,
    base,
    head,
    delta: base === null || head === null ? null : head - base,
    ci95,
    p_value: null,
    higher_is_better: true,
    method: ci95 ? "paired-bootstrap" : "none",
    verdict: "no_change",
    ...over,
  };
}

type Of<E extends Comparison["evaluator"]> = Extract<Comparison, { evaluator: E }>;

// A comparison of `evaluator` (judge unless named); its details, when a test reads them, are whole
// details of that evaluator as the API types them. The forest-plot tests read only the metrics.
function comparison<E extends Comparison["evaluator"] = "judge">(
  metrics: MetricComparison[],
  over: Partial<Omit<Of<E>, "evaluator" | "details">> & { evaluator?: E; details?: Of<E>["details"] } = {},
): Of<E> {
  return {
    object: "comparison",
    evaluator: "judge",
    base: { id: "run_b" },
    head: { id: "run_h" },
    confidence: 0.95,
    min_effect: 0,
    paired: true,
    verdict: "regressed",
    metrics,
    flipped: [],
    details: {},
    ...over,
  } as unknown as Of<E>;
}

// A hand-made comparison with three scales: rates and alpha within [-1, 1], PQS and agreement in points.
const METRICS = [
  m("divergence_rate", 0.1, 0.6, [0.2, 0.8], {
    higher_is_better: false,
    verdict: "regressed",
    p_value: 0.01,
    method: "newcombe-paired",
  }),
  m("error_rate", 0, 0, [0, 0], { higher_is_better: false }),
  m("pqs", 70, 85, null, { verdict: "improved" }),
  m("agreement", 80.5, 79.5, [-3, 1]),
  m("missing_side", null, 0.5, null),
  m("batch_alpha", -0.2, 0.3, [0.1, 0.9], { verdict: "improved" }),
];

describe("forest plot groups", () => {
  it("a metric's scale is its largest magnitude; within [-1, 1] is group 0, then by power of ten", () => {
    expect(metricScale(METRICS[0])).toBe(0.8); // max(|0.1|, |0.6|, |0.5|, |0.2|, |0.8|)
    expect(metricScale(METRICS[5])).toBe(0.9); // max(0.2, 0.3, 0.5, 0.1, 0.9)
    expect(metricScale(METRICS[4])).toBe(0.5); // only head
    expect(scaleGroup(METRICS[0])).toBe(0);
    expect(scaleGroup(m("rate", 0, 1, [0.7, 1]))).toBe(0); // 1 exactly is still a share
    expect(scaleGroup(m("x", 2, 10, null))).toBe(1); // log10(10) = 1
    expect(scaleGroup(m("x", 2, 10.5, null))).toBe(2); // ceil(log10(10.5)) = 2
    expect(scaleGroup(METRICS[2])).toBe(2); // 85 → ceil(1.93) = 2
    expect(scaleGroup(METRICS[3])).toBe(2); // 80.5
  });

  it("groups by scale, smallest first, keeps the API's order within a group and leaves out metrics without a change", () => {
    const groups = forestGroups(comparison(METRICS));
    expect(groups.map((g) => g.scale)).toEqual([0, 2]);
    expect(groups.map((g) => g.title)).toEqual(["changes on a 0–1 scale", "changes of figures up to 100"]);
    expect(groups[0].rows.map((r) => r.name)).toEqual(["divergence_rate", "error_rate", "batch_alpha"]);
    expect(groups[1].rows.map((r) => r.name)).toEqual(["pqs", "agreement"]);
    // Group 0's x values: 0; 0.5, 0.2, 0.8; 0, 0, 0; 0.5, 0.1, 0.9 → [0, 0.9], a tenth (0.09) each side
    // → [-0.09, 0.99]; step: 1.08 / 5 = 0.216 → 0.25; out to multiples of it: [-0.25, 1].
    expect([groups[0].min, groups[0].max]).toEqual([-0.25, 1]);
    // Group 2's: 0; 15; -1, -3, 1 → [-3, 15], pad 1.8 → [-4.8, 16.8]; step 21.6 / 5 = 4.32 → 5: [-5, 20].
    expect([groups[1].min, groups[1].max]).toEqual([-5, 20]);
  });

  it("reasoning-quality: one plot per model, rows named without it; a model named with a dot is matched whole", () => {
    const c = comparison(
      [
        m("gpt-4.1.correctness", 0.5, 0.7, [0.1, 0.3], { verdict: "improved" }),
        m("gpt-4.correctness", 0.6, 0.6, [-0.1, 0.1]),
        m("gpt-4.1.q.balanced", 0.4, 0.45, [-0.02, 0.1]),
      ],
      {
        evaluator: "reasoning-quality",
        details: {
          models: { compared: ["gpt-4", "gpt-4.1"], base_only: [], head_only: [] },
          rank_changes: {},
          items: 3,
          correctness: {},
        },
      },
    );
    expect(metricModel(c, "gpt-4.1.q.balanced")).toBe("gpt-4.1");
    expect(metricModel(c, "gpt-4.correctness")).toBe("gpt-4");
    // Without a model per metric (every other evaluator), one plot for the three.
    expect(forestGroups(c).map((g) => g.model)).toEqual([null]);
    const groups = forestGroups(c, (name) => metricModel(c, name));
    expect(groups.map((g) => [g.model, g.title, g.rows.map((r) => r.label)])).toEqual([
      ["gpt-4.1", "gpt-4.1", ["correctness", "q.balanced"]],
      ["gpt-4", "gpt-4", ["correctness"]],
    ]);
    // The tooltip still names the whole metric.
    expect(groups[0].rows[1].name).toBe("gpt-4.1.q.balanced");
    expect(groupTitle(2, "careful")).toBe("careful: figures up to 100");
  });

  it("the range always holds 0, ends on a round step, and a plot of zeros spans ±5 % of its unit", () => {
    expect([niceStep(0.216), niceStep(4.32), niceStep(1), niceStep(0.12), niceStep(0.3), niceStep(7)]).toEqual([
      0.25, 5, 1, 0.2, 0.5, 10,
    ]);
    const row = (delta: number, ci: [number, number] | null) => ({
      name: "x",
      label: "x",
      delta,
      ci,
      verdict: "improved" as const,
      higherIsBetter: true,
      method: "none",
      pValue: null,
    });
    // All changes positive: [0, 0.5], pad 0.05 → [-0.05, 0.55]; step 0.6 / 5 = 0.12 → 0.2: [-0.2, 0.6]
    // (0.6, not 3 × 0.2 = 0.6000000000000001).
    expect(forestRange([row(0.3, [0.1, 0.5])], 0)).toEqual({ min: -0.2, max: 0.6 });
    // A fall from 1 to 0.2 next to a rise to 1: [-0.8, 1], pad 0.18 → [-0.98, 1.18]; 2.16 / 5 → 0.5: [-1, 1.5].
    expect(forestRange([row(-0.8, [-0.8, -0.8]), row(1, [0.54, 1])], 0)).toEqual({ min: -1, max: 1.5 });
    expect(forestRange([row(0, [0, 0])], 0)).toEqual({ min: -0.05, max: 0.05 });
    expect(forestRange([row(0, null)], 2)).toEqual({ min: -5, max: 5 });
  });

  it("labels the axis at round steps of about a third of the span, always at 0", () => {
    // 1.25 / 3 = 0.417 → step 0.5: the multiples inside [-0.25, 1] are 0, 0.5, 1.
    expect(forestTicks(-0.25, 1)).toEqual([0, 0.5, 1]);
    // 25 / 3 = 8.3 → 10: 0, 10, 20.
    expect(forestTicks(-5, 20)).toEqual([0, 10, 20]);
    // 1.5 / 3 = 0.5 → 0.5: -1, -0.5, 0 (Chart.js would start at -1.25 and step 0.75 past 0).
    expect(forestTicks(-1.25, 0.25)).toEqual([-1, -0.5, 0]);
    // 0.1 / 3 = 0.033 → 0.05.
    expect(forestTicks(-0.05, 0.05)).toEqual([-0.05, 0, 0.05]);
    const groups = forestGroups(comparison(METRICS));
    expect(groups.map((g) => g.ticks)).toEqual([
      [0, 0.5, 1],
      [0, 10, 20],
    ]);
    for (const g of groups) expect(g.ticks).toContain(0);
  });
});

describe("forest plot config", () => {
  const [unit, points] = forestGroups(comparison(METRICS));

  it("one row per metric: the interval a floating bar [lo, hi], the change a point, coloured by verdict", () => {
    const config = forestConfig(unit);
    expect(config.type).toBe("bar");
    expect(config.options?.indexAxis).toBe("y");
    expect(config.data.labels).toEqual(["divergence_rate ↓", "error_rate ↓", "batch_alpha"]);
    const [bars, dots] = config.data.datasets;
    expect(bars.type).toBe("bar");
    expect(bars.data).toEqual([
      [0.2, 0.8],
      [0, 0],
      [0.1, 0.9],
    ]);
    expect(bars.borderColor).toEqual([VERDICT_COLORS.regressed, VERDICT_COLORS.no_change, VERDICT_COLORS.improved]);
    expect(dots.type).toBe("line");
    expect(dots.data).toEqual([0.5, 0, 0.5]);
    expect((dots as { pointBackgroundColor?: unknown }).pointBackgroundColor).toEqual([
      "#b3261e",
      "#8a93a3",
      "#1f7a3d",
    ]);
    expect((dots as { showLine?: boolean }).showLine).toBe(false);
    const x = config.options?.scales?.x as {
      min: number;
      max: number;
      afterBuildTicks: (axis: { ticks: { value: number }[] }) => void;
    };
    expect([x.min, x.max]).toEqual([unit.min, unit.max]);
    const axis = { ticks: [{ value: -0.25 }, { value: 0.5 }] };
    x.afterBuildTicks(axis);
    expect(axis.ticks).toEqual([{ value: 0 }, { value: 0.5 }, { value: 1 }]);
  });

  it("the tooltip says the change, its interval and method, p, the direction and the verdict", () => {
    expect(rowTooltip(unit.rows[0])).toEqual([
      "change +0.5000 (lower is better)",
      "interval [+0.2000, +0.8000] (newcombe-paired)",
      "p 0.0100",
      "regressed",
    ]);
    expect(rowTooltip(points.rows[0])).toEqual(["change +15.0000 (higher is better)", "no interval", "improved"]);
    expect(rowTooltip({ ...points.rows[1], higherIsBetter: null })).toEqual([
      "change -1.0000 (no better direction)",
      "interval [-3.0000, +1.0000] (paired-bootstrap)",
      "no change",
    ]);
  });

  it("a metric without an interval has no bar, only its point", () => {
    const config = forestConfig(points);
    expect(config.data.datasets[0].data).toEqual([null, [-3, 1]]);
    expect(config.data.datasets[1].data).toEqual([15, -1]);
  });

  it("the x grid marks 0 (no change) with a dark, thicker line", () => {
    expect(zeroLineColor({ tick: { value: 0 } } as never)).toBe("#1d2330");
    expect(zeroLineColor({ tick: { value: 0.2 } } as never)).not.toBe("#1d2330");
    expect(zeroLineWidth({ tick: { value: 0 } } as never)).toBe(2);
    expect(zeroLineWidth({ tick: { value: -0.4 } } as never)).toBe(1);
    expect([signedTick(0.25), signedTick(-1), signedTick(0), signedTick(0.30000000000000004)]).toEqual([
      "+0.25",
      "-1",
      "0",
      "+0.3",
    ]);
  });
});

describe("the table's figures", () => {
  it("four decimals, signed changes, intervals, p below 0.0001, ↓ for lower-is-better", () => {
    expect([figure(0.123456), figure(85), figure(null)]).toEqual(["0.1235", "85.0000", "–"]);
    expect([signed(0.5), signed(-0.05), signed(0), signed(0.00001), signed(null)]).toEqual([
      "+0.5000",
      "-0.0500",
      "0.0000",
      "0.0000",
      "–",
    ]);
    expect(intervalText([-0.0213, 0.4])).toBe("[-0.0213, +0.4000]");
    expect(intervalText(null)).toBe("–");
    expect([pText(0.001953125), pText(0.00002), pText(null)]).toEqual(["0.0020", "<0.0001", "–"]);
    expect(metricLabel(METRICS[0])).toBe("divergence_rate ↓");
    expect(metricLabel(METRICS[2])).toBe("pqs");
    expect(metricLabel({ name: "prob_true_rpl", higher_is_better: null })).toBe("prob_true_rpl ↕");
  });
});

describe("details", () => {
  it("chain-determinism: the pairing and the discordant queries, or why it is not paired", () => {
    const paired = comparison([], {
      evaluator: "chain-determinism",
      details: {
        pairing: {
          paired: true,
          queries: 10,
          measurable_in_both: 9,
          discordant: { stable_to_diverged: 4, diverged_to_stable: 1 },
        },
        modal_share: [],
        measurable_changes: [],
      },
    });
    expect(chainDeterminism.detailLines(paired)).toEqual([
      "Paired by query: 9 of 10 queries measurable in both runs; 4 went from stable to diverged, 1 from diverged to stable.",
    ]);
    const unpaired = comparison([], {
      evaluator: "chain-determinism",
      details: {
        pairing: { paired: false, reason: "different suites (base 'a', head 'b')" },
        modal_share: { base_mean: null, head_mean: null, base: [], head: [] },
      },
    });
    expect(chainDeterminism.detailLines(unpaired)).toEqual(["Not paired: different suites (base 'a', head 'b')."]);
  });

  it("rpl: the winner named as base or head, the dimension, whether the prior moved", () => {
    const c = comparison([], {
      evaluator: "rpl",
      details: {
        dimension: "model",
        winner: { run_id: "run_h", rule: "ci_width" },
        prob_true_rpl: { two_sided: true, moved: true, direction: "down" },
      },
    });
    expect(rpl.detailLines(c)).toEqual([
      "Winner: head (run_h), by ci_width.",
      "The runs differ in model.",
      "prob_true_rpl moved down (two-sided: neither better nor worse).",
    ]);
    const tie = comparison([], {
      evaluator: "rpl",
      details: {
        dimension: null,
        winner: { run_id: null, rule: "tie" },
        prob_true_rpl: { two_sided: true, moved: false, direction: null },
      },
    });
    expect(rpl.detailLines(tie)).toEqual(["No winner (tie).", "prob_true_rpl did not move."]);
  });

  it("each evaluator's compare module reads its own variant of the details, not an open object", () => {
    expectTypeOf(rpl.detailLines).parameter(0).toHaveProperty("details").toEqualTypeOf<RplComparisonDetails>();
  });

  it("judge: consensus changes and contested counts", () => {
    const c = comparison([], {
      details: { items: 12, consensus_changes: 3, accuracy: null, per_critic: [], contested: { base: 2, head: 5 } },
    });
    expect(judge.detailLines(c)).toEqual([
      "The consensus changed on 3 of 12 items.",
      "Contested items: 2 in base, 5 in head.",
    ]);
  });

  it("reasoning-quality: rank changes per strategy as rows; none when no rank moved; why not paired", () => {
    const c = comparison([], {
      evaluator: "reasoning-quality",
      details: {
        models: { compared: ["a", "b"], base_only: ["c"], head_only: [] },
        rank_changes: {
          balanced: [
            { model: "a", base_rank: 1, head_rank: 2 },
            { model: "b", base_rank: 2, head_rank: 1 },
          ],
          accuracy_first: [],
        },
        items: 4,
        correctness: {},
      },
    });
    expect(rankChanges(c)).toEqual([
      { strategy: "balanced", model: "a", base: 1, head: 2 },
      { strategy: "balanced", model: "b", base: 2, head: 1 },
    ]);
    expect(rqDetailLines(c)).toEqual(["Only in base, not compared: c."]);
    const unpaired = comparison([], {
      evaluator: "reasoning-quality",
      paired: false,
      details: {
        models: { compared: ["a"], base_only: [], head_only: ["d", "e"] },
        rank_changes: { balanced: [] },
        unpaired_reason: "a dataset was deleted",
      },
    });
    expect(rankChanges(unpaired)).toEqual([]);
    expect(rqDetailLines(unpaired)).toEqual([
      "Not paired: a dataset was deleted.",
      "Only in head, not compared: d, e.",
    ]);
  });
});

describe("pickers and route", () => {
  it("labels a run with its id, what it ran and when", () => {
    const run = {
      id: "run_1",
      evaluator: "chain-determinism",
      created_at: "2026-03-04T05:06:07.000Z",
      config: {
        model: "sim:agent",
        simulator: { divergence: 0.9, latency_ms: 0 },
        suite: { id: "default", name: "default", sha256: "x" },
        n_queries: 10,
        n_replays: 5,
      },
    } as unknown as ChainDeterminismRun;
    expect(runLabel(run, chainDeterminism.summary(run))).toBe(
      "run_1 · sim:agent (divergence 0.9), default, 10×5 · 2026-03-04 05:06",
    );
  });

  it("#/compare/<base>/<head> parses and is built back", () => {
    expect(parseRoute("#/compare")).toEqual({ page: "compare", base: undefined, head: undefined });
    expect(parseRoute("#/compare/run_a/run_b")).toEqual({ page: "compare", base: "run_a", head: "run_b" });
    expect(href.compare("run_a", "run_b")).toBe("#/compare/run_a/run_b");
    expect(href.compare("run_a")).toBe("#/compare/run_a");
    expect(href.compare(undefined, "run_b")).toBe("#/compare");
    expect(parseRoute(href.compare("run a/1", "run_b"))).toEqual({ page: "compare", base: "run a/1", head: "run_b" });
  });
});
