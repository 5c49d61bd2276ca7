import type { RunRow } from "../../db/runs.ts";
import type { EvaluatorPlugin } from "../plugin/plugin.ts";
import { loadResult } from "./result-store.ts";

/**
 * The stored result of a run of `module`, typed as that module's aggregate returns it (D1 and R2 give
 * JSON back untyped, and a run's result is only ever written from its own module's aggregate), read
 * from R2 when it lives there; null for a run that has no result yet or belongs to another evaluator.
 */
export async function resultOf<Result>(
  bucket: R2Bucket,
  module: Pick<EvaluatorPlugin<never, never, Result>, "name" | "aggregate">,
  run: Pick<RunRow, "id" | "evaluator" | "result" | "resultKey">,
): Promise<Result | null> {
  return run.evaluator === module.name ? ((await loadResult(bucket, run)) as Result | null) : null;
}
