// Public door of the judge engine (spec: shared/specs/cross-judge.md). Pure functions over plain data;
// model access arrives as a `connect` parameter. Other layers import from here only.
export type { Verdict, Vote, EnsembleVerdict } from "./types.ts";
export { parseVerdict, extractJsonObject, readConfidence, errorVerdict } from "./parse.ts";
export {
  majority,
  unanimous,
  weighted,
  first_disagreement,
  STRATEGIES,
  resolveStrategy,
  validVotes,
  aggregateVerdicts,
} from "./voting.ts";
export type { Strategy, AggregateOptions } from "./voting.ts";
export { itemAlpha, batchAgreement } from "./agreement.ts";
export type { BatchAgreement, CriticAgreement, PairAgreement } from "./agreement.ts";
export {
  DEFAULT_PROMPT_TEMPLATE,
  DEFAULT_SYSTEM_PROMPT,
  YAML_DEFAULT_SYSTEM_PROMPT,
  renderPrompt,
  buildChatRequest,
  judgeCritic,
} from "./critic.ts";
export type { Critic, JudgeOptions } from "./critic.ts";
