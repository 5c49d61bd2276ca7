// What the compare page says of two judge runs beyond the metrics: pure functions of the comparison's
// details and of a run, so Node tests check every sentence.
import type { JudgeRun, JudgeRunsComparison } from "@assay/sdk";

/** The details worth a sentence each: how often the consensus changed, and the contested counts. */
export function detailLines(c: Pick<JudgeRunsComparison, "details">): string[] {
  const d = c.details;
  return [
    `The consensus changed on ${d.consensus_changes} of ${d.items} items.`,
    `Contested items: ${d.contested.base} in base, ${d.contested.head} in head.`,
  ];
}

/** What tells its runs apart in a picker: the critics and the number of items. */
export function summary(run: JudgeRun): string {
  return `${run.config.critics.map((c) => c.name).join(", ")}; ${run.config.n_items} items`;
}
