// Public door of the reasoning-quality engine (spec reasoning-quality.md): CQ, CS, RS, LS, ES, SS and the
// composite Q. Pure TypeScript over plain data; model, NLI and embedding access are injected functions.
export { pyRound, round4 } from "./round.ts";
export {
  CQ_MATCHERS,
  NUM_TOLERANCE,
  canonicalGold,
  canonicalGoldValue,
  extractAnswer,
  extractChoice,
  extractNumber,
  extractYesNo,
  goldKind,
  hardenedSubstringMatch,
  isCorrect,
  isCorrectCanonical,
  legacy7Match,
  legacyNorm,
  naiveSubstringMatch,
  normAnswer,
} from "./answer.ts";
export type { CqMatcher, GoldKind, Legacy7Strategy, MatchOptions } from "./answer.ts";
export {
  STEP_RULES,
  apiSteps,
  localSteps,
  runTrace,
  sentenceSteps,
  splitSteps,
  storedTrace,
  whitespaceTokenCount,
} from "./steps.ts";
export type { StepRule } from "./steps.ts";
export {
  METRIC_KEYS,
  computeMetrics,
  consistencyItem,
  cosine,
  datasetOf,
  efficiencyScores,
  groupByDataset,
  jaccard,
  lexicalCoherence,
  lexicalContradictions,
  nliInputText,
  padTraces,
  robustnessItem,
  roundMetrics,
  scoreItems,
  stabilityFromPairs,
  stabilityItem,
  stepPairs,
  summarise,
} from "./metrics.ts";
export type {
  BackendFallback,
  ContradictionChecker,
  EmbedFn,
  ItemRecord,
  ItemScores,
  LsBackend,
  MetricKey,
  MetricOptions,
  MetricsConfig,
  NliLabel,
  RawMetrics,
  RecordedLabels,
  SetMetrics,
  SsBackend,
  StepPair,
} from "./metrics.ts";
export {
  DEFAULT_PRESET,
  PRESETS,
  WEIGHT_TABLES,
  aggregate,
  aggregateAll,
  aggregateDetailed,
  checkWeights,
  effectiveWeights,
  mergeStrategies,
  resolveWeightTable,
} from "./aggregate.ts";
export type {
  AggregateOptions,
  MetricValues,
  PresetVersion,
  WeightTable,
  WeightTableName,
  Weights,
} from "./aggregate.ts";
export {
  WHITESPACE_TOKENS,
  buildRecord,
  evaluateItems,
  evaluateRecords,
  evaluationOf,
  hasPerturbations,
  planItem,
  plannedCalls,
  runCall,
  runCounts,
  runItem,
  tokenCount,
} from "./pipeline.ts";
export type {
  CallKind,
  CallOutcome,
  DatasetResult,
  EvalItem,
  EvaluateOptions,
  EvaluationResult,
  Generate,
  Generation,
  ItemOutcomes,
  ItemPlan,
  PlannedCall,
  RunConfig,
  TokenCounter,
} from "./pipeline.ts";
// Datasets (spec §9): CPython's random, the synthetic generator, upload parsers.
export { PyRandom, seedKey } from "./pyrandom.ts";
export type { PyRandomState } from "./pyrandom.ts";
export {
  OWN_WORDING_NOTE,
  SYNTHETIC_CONFIG_SIZES,
  SYNTHETIC_DEFAULT_SIZES,
  generateSynthetic,
  goldInOurWords,
  syntheticReasoningDraws,
} from "./synthetic.ts";
export type { ReasoningDraw, SyntheticItem, SyntheticOptions, SyntheticType } from "./synthetic.ts";
export {
  MMLU_SUBJECTS,
  extractGsm8kAnswer,
  formatMmluQuestion,
  isDatasetFieldError,
  loadGsm8k,
  loadMmlu,
  loadStrategyQa,
  normalizePerturbations,
  parseCsv,
  parseCsvDataset,
  parseCustomJson,
  sampleIndices,
  strategyQaAnswer,
} from "./datasets.ts";
export type {
  CsvDatasetOptions,
  CsvRecord,
  CustomDatasetOptions,
  DatasetFieldError,
  DatasetItem,
  MmluOptions,
  PerturbFn,
} from "./datasets.ts";
