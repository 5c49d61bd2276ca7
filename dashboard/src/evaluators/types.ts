// What the dashboard knows of an evaluator: one object per evaluator (its folder's index.ts), registered
// in ./index.ts. The pages ask the registry, never an evaluator's name: adding an evaluator is its folder
// and one line there.
import type { ComponentType } from "preact";
import type { Comparison, Run } from "@assay/sdk";

/** What the compare page shows of this evaluator's comparisons beyond the metrics every one has. */
export type CompareUi = {
  /** Its details worth a sentence each. */
  detailLines?: (c: Comparison) => string[];
  /** The model a metric belongs to, when its metrics are per model: the forest plots are then split by model. */
  metricModel?: (c: Comparison, metric: string) => string | null;
  /** A section of its own after the flipped items (reasoning-quality's rank changes). */
  Section?: ComponentType<{ c: Comparison }>;
};

/** An evaluator that makes runs: its "New run" form, its view of a run, and how its runs compare. */
export type RunsUi<R> = {
  /** The form at `#/new/<name>`: it creates the run and opens its page. */
  Form: ComponentType;
  /** A succeeded run's result, on the run's page (the page itself draws status, progress and the endpoint). */
  View: ComponentType<{ run: R }>;
  /** What tells its runs apart in the compare page's pickers: the model(s) and the settings one varies. */
  summary: (run: R) => string;
  compare?: CompareUi;
};

/** `R`: the evaluator's run, as the API serves it (the SDK's `ChainDeterminismRun`, …). */
export type EvaluatorUi<R = Run> = {
  /** The API's name of it (`Run.evaluator`), also its route (`#/new/<name>`, `#/<name>`). */
  name: string;
  /** How the nav and the pickers name it. */
  title: string;
  /** Its runs; an evaluator that scores on demand and keeps no runs (vrty) has none. */
  runs?: RunsUi<R>;
  /** A page of its own in the nav, at `#/<name>` (vrty's playground). */
  Page?: ComponentType;
};
