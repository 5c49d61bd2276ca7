// What the compare page says of two reasoning-quality runs beyond the metrics: the models each metric
// belongs to (the forest plots are split by model), the models in one run only, and the rank changes.
// Pure functions of the comparison's details and of a run, so Node tests check every figure.
import type { Comparison, ReasoningQualityRun } from "@assay/sdk";
import { isObj } from "../../charts/compare.ts";

/**
 * reasoning-quality names its metrics `<model>.<metric>` (`careful.correctness`, `careful.q.balanced`)
 * for the models in `details.models.compared`; the model a metric belongs to, or null. Matched against
 * those names (the longest that fits), not cut at the first dot, as a model may be named `gpt-4.1`.
 */
export function metricModel(c: Pick<Comparison, "details">, name: string): string | null {
  const models = (c.details as Record<string, unknown>).models;
  if (!isObj(models) || !Array.isArray(models.compared)) return null;
  const fits = models.compared.filter((m): m is string => typeof m === "string" && name.startsWith(`${m}.`));
  return fits.sort((a, b) => b.length - a.length)[0] ?? null;
}

/** The details worth a sentence each: why the runs were not paired, and the models in one run only. */
export function detailLines(c: Pick<Comparison, "details">): string[] {
  const d: Record<string, unknown> = c.details;
  const out: string[] = [];
  if (typeof d.unpaired_reason === "string") out.push(`Not paired: ${d.unpaired_reason}.`);
  if (isObj(d.models)) {
    for (const s of ["base", "head"] as const) {
      const only = d.models[`${s}_only`];
      if (Array.isArray(only) && only.length) out.push(`Only in ${s}, not compared: ${only.join(", ")}.`);
    }
  }
  return out;
}

export type RankChange = { strategy: string; model: string; base: number | null; head: number | null };

/** The rank changes (`details.rank_changes`: per strategy, the models whose rank moved), or null without them. */
export function rankChanges(c: Pick<Comparison, "details">): RankChange[] | null {
  const rc = (c.details as Record<string, unknown>).rank_changes;
  if (!isObj(rc)) return null;
  return Object.entries(rc).flatMap(([strategy, list]) =>
    Array.isArray(list)
      ? list.filter(isObj).map((r) => ({ strategy, model: String(r.model), base: typeof r.base_rank === "number" ? r.base_rank : null, head: typeof r.head_rank === "number" ? r.head_rank : null }))
      : [],
  );
}

/** What tells its runs apart in a picker: its models. */
export function summary(run: ReasoningQualityRun): string {
  return run.config.models.map((m) => m.name).join(", ");
}
