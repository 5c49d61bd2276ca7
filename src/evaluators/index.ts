/**
 * The evaluators this API ships, in the order the OpenAPI document lists them. Adding one is its folder
 * (src/evaluators/<name>/, README.md) and its line here; everything else finds it through registry.ts.
 */
import { chainDeterminism } from "./chain-determinism/index.ts";
import { rpl } from "./rpl/index.ts";
import { judge } from "./judge/index.ts";
import { reasoningQuality } from "./reasoning-quality/index.ts";

export const BUILT_IN = [chainDeterminism, rpl, judge, reasoningQuality] as const;
