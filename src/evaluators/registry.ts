/**
 * Every run evaluator by name. The coordinator, the lanes, the run routes and the OpenAPI document all
 * look evaluators up here, so adding one is its folder (src/evaluators/<name>/) and one line in BUILT_IN.
 */
import type { EvaluatorModule } from "../runs/plugin/module.ts";
import type { Evaluator } from "../runs/plugin/types.ts";
import { chainDeterminism } from "./chain-determinism/index.ts";
import { rpl } from "./rpl/index.ts";
import { judge } from "./judge/index.ts";
import { reasoningQuality } from "./reasoning-quality/index.ts";

/** The evaluators this API ships, in the order the document lists them. */
export const BUILT_IN = [chainDeterminism, rpl, judge, reasoningQuality] as const;

// A module's own types (its body, config and result) do not matter to the platform, which hands each
// module back only what the module itself made.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyModule = EvaluatorModule<any, any, any>;

const modules = new Map<string, AnyModule>(BUILT_IN.map((m) => [m.name, m]));

/**
 * Adds an evaluator beside the built-in ones (a test's, or a deployment's own). Register it before
 * `createApp()` makes the app, so its `POST /v1/<name>/runs` is routed; the coordinator and lanes find
 * it by name from then on. A name already taken by another module is an error.
 */
export function registerEvaluator(module: AnyModule): void {
  const existing = modules.get(module.name);
  if (existing && existing !== module) throw new Error(`an evaluator named '${module.name}' is already registered`);
  modules.set(module.name, module);
}

/** Every registered evaluator module, built-in ones first. */
export function evaluatorModules(): AnyModule[] {
  return [...modules.values()];
}

/** The module of that name (its comparer, schemas …); throws for an unknown name, as evaluatorFor. */
export function moduleFor(name: string): AnyModule {
  const m = modules.get(name);
  if (!m) throw new Error(`unknown evaluator '${name}'`);
  return m;
}

/** The evaluator of that name, or undefined. */
export function evaluatorNamed(name: string): Evaluator<unknown> | undefined {
  return modules.get(name);
}

export function evaluatorFor(name: string): Evaluator<unknown> {
  const e = modules.get(name);
  if (!e) throw new Error(`unknown evaluator '${name}'`);
  return e;
}
