// `assay compare BASE HEAD`: did the change make things better or worse? GET /v1/compare's metrics as a
// table (each change with its interval, p and verdict), the overall verdict, the items that flipped and
// the evaluator's own details; `--fail-on-regression` turns a regressed verdict into exit 3 for CI.
import type { Command } from "commander";
import {
  compareRuns,
  type Comparison,
  type MetricComparison,
  type ReasoningQualityComparisonDetails,
} from "@assay/sdk";
import { EXIT, usageError } from "../errors.ts";
import { printJson, table } from "../output.ts";
import { call, session } from "../session.ts";
import { runId } from "../args.ts";

/** Flipped items printed before "… N more": a CI log stays readable; --json has them all. */
export const FLIPPED_SHOWN = 20;

/** commander's argParser for a number in an interval; a usage error naming the flag otherwise. */
function numberIn(flag: string, ok: (n: number) => boolean, what: string) {
  return (raw: string): number => {
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isFinite(n) || !ok(n)) throw usageError(`${flag} must be ${what}, got "${raw}"`);
    return n;
  };
}

/** A figure with four decimals (metrics run from shares to PQS points: one format for all), n/a for none. */
export function num(x: number | null | undefined): string {
  return typeof x === "number" && Number.isFinite(x) ? x.toFixed(4) : "n/a";
}

/** A change with its sign: +0.9000, -0.0500, 0.0000. */
export function signed(x: number | null | undefined): string {
  if (typeof x !== "number" || !Number.isFinite(x)) return "n/a";
  const s = x.toFixed(4);
  return x > 0 && s !== "0.0000" ? `+${s}` : s;
}

export function interval(ci: [number, number] | null): string {
  return ci ? `[${signed(ci[0])}, ${signed(ci[1])}]` : "n/a";
}

/** A p-value: four decimals, or <0.0001 below that. */
export function pValue(p: number | null): string {
  if (p === null || !Number.isFinite(p)) return "n/a";
  return p < 0.0001 ? "<0.0001" : p.toFixed(4);
}

/** The marks after a metric's name: ↓ lower is better; ↕ no better direction (reported, never judged). */
export const MARKS = { lower: "↓", none: "↕" } as const;

export function metricName(m: { name: string; higher_is_better: boolean | null }): string {
  return m.higher_is_better === true ? m.name : `${m.name} ${m.higher_is_better === false ? MARKS.lower : MARKS.none}`;
}

/** One table row per metric. */
export function metricRow(m: MetricComparison): string[] {
  return [metricName(m), num(m.base), num(m.head), signed(m.delta), interval(m.ci95), pValue(m.p_value), m.verdict];
}

/** The line under the table explaining the marks it uses, or null when it uses none. */
export function marksLegend(metrics: readonly { higher_is_better: boolean | null }[]): string | null {
  const used = [
    metrics.some((m) => m.higher_is_better === false) ? `${MARKS.lower} lower is better` : null,
    metrics.some((m) => m.higher_is_better !== true && m.higher_is_better !== false)
      ? `${MARKS.none} no better direction, never judged`
      : null,
  ].filter(Boolean);
  return used.length ? `(${used.join("; ")})` : null;
}

/**
 * The evaluator's details worth a line each (the rest is in --json), read from its own `details` once
 * `evaluator` has narrowed the comparison. An evaluator not listed here (a plug-in the CLI does not know
 * yet) prints none.
 */
export function detailLines(c: Comparison): string[] {
  switch (c.evaluator) {
    case "chain-determinism": {
      const p = c.details.pairing;
      if (!p.paired) return [`not paired: ${p.reason}`];
      return [
        `paired by query: ${p.measurable_in_both} of ${p.queries} measurable in both runs; ${p.discordant.stable_to_diverged} stable → diverged, ${p.discordant.diverged_to_stable} diverged → stable`,
      ];
    }
    case "rpl": {
      const { dimension, winner, prob_true_rpl: p } = c.details;
      return [
        ...(dimension !== null ? [`varies: ${dimension}`] : []),
        `winner: ${winner.run_id ?? "none"} (rule: ${winner.rule})`,
        `prob_true_rpl ${p.moved ? `moved ${p.direction}` : "did not move"} (two-sided: a prior that moves is neither better nor worse)`,
      ];
    }
    case "judge":
      return [
        `consensus changed on ${c.details.consensus_changes} of ${c.details.items} items`,
        `contested items: base ${c.details.contested.base}, head ${c.details.contested.head}`,
      ];
    case "reasoning-quality":
      return rqLines(c.details);
  }
  return [];
}

/**
 * reasoning-quality's details: why the runs were not paired, models in one run only, and the rank
 * changes (`rank_changes`: per strategy, the models whose rank moved; an empty list when none did).
 */
function rqLines(d: ReasoningQualityComparisonDetails): string[] {
  const out: string[] = [];
  if ("unpaired_reason" in d) out.push(`not paired: ${d.unpaired_reason}`);
  for (const side of ["base", "head"] as const) {
    const only = d.models[`${side}_only`];
    if (only.length) out.push(`models only in ${side} (not compared): ${only.join(", ")}`);
  }
  if (!Object.keys(d.rank_changes).length) return out;
  const moved = Object.entries(d.rank_changes).flatMap(([strategy, list]) => list.map((r) => ({ ...r, strategy })));
  if (!moved.length) return [...out, "ranks: unchanged in every strategy"];
  return [
    ...out,
    "rank changes:",
    ...moved.map((r) => `  ${r.strategy}: ${r.model} ${r.base_rank ?? "unranked"} → ${r.head_rank ?? "unranked"}`),
  ];
}

/** What `assay compare` prints for people. */
export function describeComparison(c: Comparison): string {
  const conf = `${Number((c.confidence * 100).toFixed(2))}% intervals`;
  const lines = [
    `${c.evaluator}: base ${c.base.id} → head ${c.head.id} (${c.paired ? "paired" : "not paired"}, ${conf}, min effect ${c.min_effect})`,
    "",
  ];
  let text = lines.join("\n") + "\n";
  text += table(["metric", "base", "head", "delta", "interval", "p", "verdict"], c.metrics.map(metricRow), [
    "left",
    "right",
    "right",
    "right",
    "right",
    "right",
    "left",
  ]);
  const legend = marksLegend(c.metrics);
  if (legend) text += legend + "\n";
  text += `\nverdict: ${c.verdict}\n`;
  if (c.flipped.length) {
    text += `\nflipped (${c.flipped.length}):\n`;
    for (const f of c.flipped.slice(0, FLIPPED_SHOWN)) text += `  ${f.id}: ${f.base} → ${f.head}\n`;
    if (c.flipped.length > FLIPPED_SHOWN) text += `  … ${c.flipped.length - FLIPPED_SHOWN} more (all with --json)\n`;
  } else text += "\nflipped: none\n";
  const details = detailLines(c);
  if (details.length) text += "\n" + details.join("\n") + "\n";
  return text;
}

type CompareOptions = { confidence: number; minEffect: number; failOnRegression?: boolean };

export function register(program: Command): void {
  program
    .command("compare")
    .description(
      "compare two succeeded runs of one evaluator: each metric's change with its interval and verdict, the items that flipped",
    )
    .argument("<base>", "the run before the change", runId)
    .argument("<head>", "the run with the change", runId)
    .option(
      "--confidence <c>",
      "confidence of every interval (above 0.5, below 1)",
      numberIn("--confidence", (n) => n > 0.5 && n < 1, "a number above 0.5 and below 1"),
      0.95,
    )
    .option(
      "--min-effect <x>",
      "noise floor: a smaller change (in the metric's units) is no_change",
      numberIn("--min-effect", (n) => n >= 0, "a number of at least 0"),
      0,
    )
    .option("--fail-on-regression", "CI gate: exit 3 when the overall verdict is regressed")
    .action(async (base: string, head: string, opts: CompareOptions, cmd: Command) => {
      const s = session(cmd);
      const c = await call(
        s,
        compareRuns({
          client: s.client,
          query: { base, head, confidence: opts.confidence, min_effect: opts.minEffect },
        }),
      );
      if (s.json) printJson(c);
      else process.stdout.write(describeComparison(c));
      if (opts.failOnRegression) {
        const failed = c.verdict === "regressed";
        const why = failed
          ? c.metrics
              .filter((m) => m.verdict === "regressed")
              .map((m) => m.name)
              .join(", ")
          : "";
        process.stderr.write(
          `gate ${failed ? "FAILED" : "passed"}: verdict ${c.verdict}${failed ? ` (${why})` : ""} (--fail-on-regression)\n`,
        );
        if (failed) process.exitCode = EXIT.gateFailed;
      }
    });
}
