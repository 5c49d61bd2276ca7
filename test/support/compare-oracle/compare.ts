// The comparer contract as it was before issue 23: a comparer read the whole result and every sample of
// both runs. Kept only as the oracle the stored-basis path is checked against (same seeded runs, same
// JSON); the verdict rules are the platform's own.
import type { FieldError } from "../../../src/errors.ts";
import type { StoredSample } from "../../../src/runs/plugin/types.ts";
import type { EvaluatorComparison } from "../../../src/runs/plugin/compare.ts";

export { metric, metricVerdict, type FlippedItem, type MetricComparison } from "../../../src/runs/plugin/compare.ts";

export type ComparedRun<Config = Record<string, unknown>, Result = unknown> = {
  id: string;
  config: Config;
  result: Result;
  samples: () => Promise<StoredSample[]>;
};

export type CompareOptions = {
  confidence: number;
  minEffect: number;
  datasetItems?: (id: string) => Promise<unknown[] | null>;
};

export interface Comparer<Config = Record<string, unknown>, Result = unknown> {
  incomparable(base: ComparedRun<Config, Result>, head: ComparedRun<Config, Result>): FieldError[];
  compare(
    base: ComparedRun<Config, Result>,
    head: ComparedRun<Config, Result>,
    opts: CompareOptions,
  ): Promise<EvaluatorComparison>;
}
