// What the compare page says of two reasoning-quality runs beyond the metrics: the models each metric
// belongs to (the forest plots are split by model), the models in one run only, and the rank changes.
// Pure functions of the comparison's details and of a run, so Node tests check every figure.
import type { ReasoningQualityRun, ReasoningQualityRunsComparison } from "@assay/sdk";

type Details = Pick<ReasoningQualityRunsComparison, "details">;

/**
 * reasoning-quality names its metrics `<model>.<metric>` (`careful.correctness`, `careful.q.balanced`)
 * for the models in `details.models.compared`; the model a metric belongs to, or null. Matched against
 * those names (the longest that fits), not cut at the first dot, as a model may be named `gpt-4.1`.
 */
export function metricModel(c: Details, name: string): string | null {
  const fits = c.details.models.compared.filter((m) => name.startsWith(`${m}.`));
  return fits.sort((a, b) => b.length - a.length)[0] ?? null;
}

/** The details worth a sentence each: why the runs were not paired, and the models in one run only. */
export function detailLines(c: Details): string[] {
  const d = c.details;
  const out: string[] = [];
  if ("unpaired_reason" in d) out.push(`Not paired: ${d.unpaired_reason}.`);
  for (const s of ["base", "head"] as const) {
    const only = d.models[`${s}_only`];
    if (only.length) out.push(`Only in ${s}, not compared: ${only.join(", ")}.`);
  }
  return out;
}

export type RankChange = { strategy: string; model: string; base: number | null; head: number | null };

/** The rank changes (`details.rank_changes`: per strategy, the models whose rank moved), one row each. */
export function rankChanges(c: Details): RankChange[] {
  return Object.entries(c.details.rank_changes).flatMap(([strategy, list]) =>
    list.map((r) => ({ strategy, model: r.model, base: r.base_rank, head: r.head_rank })),
  );
}

/** What tells its runs apart in a picker: its models. */
export function summary(run: ReasoningQualityRun): string {
  return run.config.models.map((m) => m.name).join(", ");
}
