// Public door of the RPL (Raw Prior Lens) engine, spec rpl.md. Pure functions over plain data; hashing is
// async because it uses WebCrypto. Randomness comes only from the seeded numpy-compatible generator.
export {
  rotationOffset,
  stageTemplateCount,
  selectTemplates,
  balancedIndices,
  plannedCounts,
  imbalanceRatio,
  planSampling,
  replicateIndices,
} from "./sampler.ts";
export type { SamplingPlan } from "./sampler.ts";
export { composePrompt } from "./prompt.ts";
export type { ComposedPrompt } from "./prompt.ts";
export { sampleCacheKey, sampleCacheKeyV1, runId } from "./cache-key.ts";
export type { ProviderMode, SampleKeyInput } from "./cache-key.ts";
export { bootstrapSeedCanonical, makeBootstrapSeed, parseSeed } from "./seed.ts";
export type { SeedInput } from "./seed.ts";
export { checkAnswer, parseAnswer, containsUrl } from "./compliance.ts";
export type { Compliance, InvalidReason } from "./compliance.ts";
export { logit, sigmoid } from "./transforms.ts";
export { center, trimmedCenterInPlace } from "./center.ts";
export type { Center } from "./center.ts";
export { aggregateClustered } from "./aggregate.ts";
export type { AggregateOptions, Aggregation, AggregateDiagnostics } from "./aggregate.ts";
export { stability, stabilityBand, pqsV1 } from "./quality.ts";
export type { StabilityBand, Pqs } from "./quality.ts";
export { aggregateSamples, MIN_VALID_SAMPLES } from "./summarize.ts";
export type { RplSample, RunSummary } from "./summarize.ts";
export { sha256Hex } from "./hash.ts";
export { compareRuns, ParityError, PARITY_FIELDS, COMPARABLE, WIDTH_EPSILON } from "./compare.ts";
export type { ComparedRun, Comparison } from "./compare.ts";
export { AUTO_GATES, AUTO_POLICY, IMBALANCE_WARN, autoStages, decideStage, stageId } from "./auto.ts";
export type { Stage, StageDecision, StageMetrics } from "./auto.ts";
