// What the compare page says of two chain-determinism runs beyond the metrics: pure functions of the
// comparison's details and of a run, so Node tests check every sentence.
import type { ChainDeterminismRun, ChainDeterminismRunsComparison } from "@assay/sdk";

/** The details worth a sentence each: how the queries were paired and which ones changed. */
export function detailLines(c: Pick<ChainDeterminismRunsComparison, "details">): string[] {
  const p = c.details.pairing;
  if (!p.paired) return [`Not paired: ${p.reason}.`];
  return [
    `Paired by query: ${p.measurable_in_both} of ${p.queries} queries measurable in both runs; ${p.discordant.stable_to_diverged} went from stable to diverged, ${p.discordant.diverged_to_stable} from diverged to stable.`,
  ];
}

/** What tells its runs apart in a picker: the model (and simulated divergence), the suite and its size. */
export function summary(run: ChainDeterminismRun): string {
  const sim = run.config.simulator?.divergence;
  return `${run.config.model}${sim !== undefined ? ` (divergence ${sim})` : ""}, ${run.config.suite.name}, ${run.config.n_queries}×${run.config.n_replays}`;
}
