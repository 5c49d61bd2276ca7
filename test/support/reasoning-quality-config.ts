// A reasoning-quality run config as the aggregation, storage and comparison tests and the benchmarks
// build it: the paper's settings (canonical matcher, lexical LS, Jaccard SS, paper-v8) around the
// models, items and run counts each one chooses.
import { generateSynthetic } from "../../src/engines/reasoning-quality/index.ts";
import type { RqRunConfig } from "../../src/evaluators/reasoning-quality/index.ts";

/** `n` synthetic robustness items of the dataset "synthetic", ids made unique by their position. */
export function syntheticItems(seed: number, n: number): RqRunConfig["items"] {
  return generateSynthetic({ seed, numReasoning: 0, numAdversarial: 0, numRobustness: n }).map((it, i) => ({
    ...it,
    dataset: "synthetic",
    id: `${i}:${it.id}`,
  })) as RqRunConfig["items"];
}

/** K consistency and stability runs and P robustness perturbations per item. */
export function rqConfig(
  models: RqRunConfig["models"],
  items: RqRunConfig["items"],
  runs: { k: number; p: number },
  over: Partial<RqRunConfig> = {},
): RqRunConfig {
  return {
    models,
    items,
    metrics: { consistency_runs: runs.k, stability_runs: runs.k, robustness_perturbations: runs.p },
    matcher: "canonical",
    ls: { method: "lexical" },
    ss: { method: "jaccard" },
    preset: "paper-v8",
    custom_strategies: {},
    seed: 0,
    ...over,
  };
}
