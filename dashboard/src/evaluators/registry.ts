// The registry of evaluators: each folder's index.ts registers its EvaluatorUi, ./index.ts imports them in
// order, and the pages look an evaluator up here instead of switching on its name.
import type { Run } from "@assay/sdk";
import type { EvaluatorUi, RunsUi } from "./types.ts";

const byName = new Map<string, EvaluatorUi>();

/**
 * Adds an evaluator (its folder's index.ts calls this once). Its view and summary receive only runs of
 * its own evaluator: the pages look them up by `run.evaluator`, so `R` is narrowed here, once.
 */
export function registerEvaluator<R extends { evaluator: string }>(ui: EvaluatorUi<R>): void {
  if (byName.has(ui.name)) throw new Error(`two evaluators named ${ui.name}`);
  byName.set(ui.name, ui as unknown as EvaluatorUi);
}

export const evaluators = {
  /** The evaluator named `name`, or undefined. */
  get: (name: string): EvaluatorUi | undefined => byName.get(name),
  /** Every evaluator, in the order they were registered. */
  all: (): EvaluatorUi[] => [...byName.values()],
  /** The evaluators that make runs, with their runs' UI (the "New run" menu, the filters, the compare page). */
  withRuns: (): (EvaluatorUi & { runs: RunsUi<Run> })[] =>
    [...byName.values()].filter((e): e is EvaluatorUi & { runs: RunsUi<Run> } => !!e.runs),
};
