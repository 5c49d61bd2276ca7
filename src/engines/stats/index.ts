// Public door of the statistics helpers (STYLE "For assay" §8: one file per statistic).
export { wilson } from "./wilson.ts";
export { defaultRng, seedSequence, Pcg64 } from "./rng.ts";
export { pairwiseSum, npMean } from "./pairwise-sum.ts";
export { percentile, percentileSorted } from "./percentile.ts";
export { clusterBootstrap } from "./bootstrap.ts";
export type { ClusterBootstrapOptions } from "./bootstrap.ts";
export { nominalAlpha } from "./krippendorff.ts";
export type { NominalAlpha } from "./krippendorff.ts";
