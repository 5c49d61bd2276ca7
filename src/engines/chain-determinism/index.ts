// Public door of the chain-determinism engine (spec: shared/specs/chain-determinism.md).
// Other layers import from here only.
export { runReplay, stepReplay, parseArguments } from "./agent-loop.ts";
export type {
  ReplayOptions,
  ReplayRecord,
  ReplayResult,
  ReplayState,
  StepOptions,
  ToolCallEntry,
  TurnInfo,
} from "./agent-loop.ts";
export { chainDivergenceRate, formatSummary, queryDivergenceDetails } from "./metrics.ts";
export type { DivergenceRow, DivergenceStats, QueryDetail, QueryDivergence } from "./metrics.ts";
export { seqFull, seqKey, seqKeySha256 } from "./sequence-key.ts";
export type { KeyMirror, SeqMirror } from "./sequence-key.ts";
export { cliDisplayKey, toolCallsHash } from "./dataset-hash.ts";
export { validateSuite, FINAL_ANSWER } from "./suite.ts";
export type { Suite, SuiteQuery } from "./suite.ts";
