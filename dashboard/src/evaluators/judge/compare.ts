// What the compare page says of two judge runs beyond the metrics: pure functions of the comparison's
// details and of a run, so Node tests check every sentence.
import type { Comparison, JudgeRun } from "@assay/sdk";
import { isObj } from "../../charts/compare.ts";

/** The details worth a sentence each: how often the consensus changed, and the contested counts. */
export function detailLines(c: Pick<Comparison, "details">): string[] {
  const d: Record<string, unknown> = c.details;
  const out: string[] = [];
  if (typeof d.consensus_changes === "number" && typeof d.items === "number") out.push(`The consensus changed on ${d.consensus_changes} of ${d.items} items.`);
  if (isObj(d.contested)) out.push(`Contested items: ${d.contested.base} in base, ${d.contested.head} in head.`);
  return out;
}

/** What tells its runs apart in a picker: the critics and the number of items. */
export function summary(run: JudgeRun): string {
  return `${run.config.critics.map((c) => c.name).join(", ")}; ${run.config.n_items} items`;
}
