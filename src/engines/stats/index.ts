// Public door of the statistics helpers (STYLE "For assay" §8: one file per statistic).
export { wilson } from "./wilson.ts";
export { defaultRng, seedSequence, Pcg64 } from "./rng.ts";
export { pairwiseSum, npMean } from "./pairwise-sum.ts";
export { percentile, percentileSorted } from "./percentile.ts";
export { clusterBootstrap } from "./bootstrap.ts";
export type { ClusterBootstrapOptions } from "./bootstrap.ts";
export { nominalAlpha, nominalAlphaResampler } from "./krippendorff.ts";
export type { NominalAlpha } from "./krippendorff.ts";
export { normalQuantile, zFor } from "./normal.ts";
export { newcombeDifference, newcombePairedDifference } from "./proportions.ts";
export type { PairedTable } from "./proportions.ts";
export { mcnemarExact } from "./mcnemar.ts";
export { pairedBootstrapCi, percentileInterval } from "./paired-bootstrap.ts";
export type { PairedBootstrapOptions } from "./paired-bootstrap.ts";
export { moverDifference } from "./mover.ts";
