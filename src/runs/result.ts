import type { RunRow } from "../db/runs.ts";
import type { Evaluator } from "../evaluators/types.ts";

/**
 * The stored result of a run of `module`, typed as that module's aggregate returns it (D1 gives JSON
 * back untyped, and a run's result is only ever written from its own module's aggregate); null for a
 * run that has no result yet or belongs to another evaluator.
 */
export function resultOf<Result>(module: Pick<Evaluator<never, Result>, "name" | "aggregate">, run: Pick<RunRow, "evaluator" | "result">): Result | null {
  return run.evaluator === module.name && run.result != null ? (run.result as Result) : null;
}
