// What the compare page says of two rpl runs beyond the metrics: pure functions of the comparison's
// details and of a run, so Node tests check every sentence.
import type { Comparison, RplRun } from "@assay/sdk";
import { isObj, sideName } from "../../charts/compare.ts";

/** The details worth a sentence each: the winner and its rule, what differs, whether p moved. */
export function detailLines(c: Pick<Comparison, "details" | "base" | "head">): string[] {
  const d: Record<string, unknown> = c.details;
  const out: string[] = [];
  if (isObj(d.winner)) out.push(d.winner.run_id ? `Winner: ${sideName(c, d.winner.run_id)}, by ${d.winner.rule}.` : `No winner (${d.winner.rule}).`);
  if (typeof d.dimension === "string") out.push(`The runs differ in ${d.dimension}.`);
  if (isObj(d.prob_true_rpl)) {
    out.push(d.prob_true_rpl.moved ? `prob_true_rpl moved ${d.prob_true_rpl.direction} (two-sided: neither better nor worse).` : "prob_true_rpl did not move.");
  }
  return out;
}

/** What tells its runs apart in a picker: the model, the prompt version, K and R. */
export function summary(run: RplRun): string {
  return `${run.config.model}, ${run.config.prompt_version}, K=${run.config.K} R=${run.config.R}`;
}
