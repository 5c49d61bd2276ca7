import { runToWire, type RunRow } from "../../db/runs.ts";
import { evaluators } from "../../evaluators/registry.ts";

/**
 * A run as the API shows it (responses, the event stream, webhooks): the stored row in wire shape, with
 * its result as its evaluator presents it (chain-determinism writes the harness's floats as `0.0`).
 */
export function runJson(r: RunRow) {
  const wire = runToWire(r);
  const present = evaluators.find(r.evaluator)?.wireResult;
  return wire.result === null || !present ? wire : { ...wire, result: present(wire.result) };
}
