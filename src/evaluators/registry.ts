import type { Evaluator, EvaluatorName } from "./types.ts";
import { chainDeterminism } from "./chain-determinism.ts";
import { rpl } from "./rpl.ts";
import { judge } from "./judge.ts";
import { reasoningQuality } from "./reasoning-quality.ts";

// Adding an evaluator is one entry here: the coordinator, runner and routes look them up by name.
const evaluators: Record<EvaluatorName, Evaluator<any>> = {
  "chain-determinism": chainDeterminism,
  rpl,
  judge,
  "reasoning-quality": reasoningQuality,
};

/** The evaluator of that name, or undefined. */
export function evaluatorNamed(name: string): Evaluator<unknown> | undefined {
  return evaluators[name as EvaluatorName];
}

export function evaluatorFor(name: string): Evaluator<unknown> {
  const e = evaluators[name as EvaluatorName];
  if (!e) throw new Error(`unknown evaluator '${name}'`);
  return e;
}
