// What the compare page says of two rpl runs beyond the metrics: pure functions of the comparison's
// details and of a run, so Node tests check every sentence.
import type { RplRun, RplRunsComparison } from "@assay/sdk";
import { sideName } from "../../charts/compare.ts";

/** The details worth a sentence each: the winner and its rule, what differs, whether p moved. */
export function detailLines(c: Pick<RplRunsComparison, "details" | "base" | "head">): string[] {
  const { winner, dimension, prob_true_rpl: p } = c.details;
  const out = [
    winner.run_id ? `Winner: ${sideName(c, winner.run_id)}, by ${winner.rule}.` : `No winner (${winner.rule}).`,
  ];
  if (dimension !== null) out.push(`The runs differ in ${dimension}.`);
  out.push(
    p.moved
      ? `prob_true_rpl moved ${p.direction} (two-sided: neither better nor worse).`
      : "prob_true_rpl did not move.",
  );
  return out;
}

/** What tells its runs apart in a picker: the model, the prompt version, K and R. */
export function summary(run: RplRun): string {
  return `${run.config.model}, ${run.config.prompt_version}, K=${run.config.K} R=${run.config.R}`;
}
