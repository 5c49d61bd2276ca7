/**
 * judge on the run platform: one unit per (item, critic) call. A unit asks one critic about one
 * item through the engine's `judgeCritic` (request, parsing) and stores the verdict; the aggregate
 * votes per item and measures agreement over the whole batch (src/engines/judge).
 *
 * API decisions beyond the library (docs/evaluators/judge.md):
 * - a label outside the run's vocabulary is kept in the verdict but marked with error
 *   "off_vocabulary", so it is counted apart from votes, like ERROR and PARSE_FAIL;
 * - contested items (the human-review queue): agreement_pct or the item's alpha below the threshold,
 *   or fewer than two valid verdicts (no agreement can be measured).
 */
import type { EvaluatorPlugin } from "../../runs/plugin/plugin.ts";
import { aggregateJudge } from "./aggregate.ts";
import { judgeComparer } from "./compare.ts";
import { createJudgeRun } from "./create.ts";
import { JudgeRunRequest, type JudgeBody } from "./request.ts";
import { judgeRoutes } from "./routes.ts";
import { JudgeOutput, JudgePublicConfig, JudgeResult, NAME } from "./schemas.ts";
import { execute, failureOutput, plan, unitCost, type JudgeRunConfig } from "./units.ts";

export { aggregateJudge, contestedReasons, readableAlpha } from "./aggregate.ts";
export {
  criticSecret,
  templateContext,
  unitId,
  type JudgeRunConfig,
  type JudgeCriticConfig,
  type JudgeItem,
} from "./units.ts";
export {
  JudgeVerdict,
  type ContestedReason,
  type JudgeItemResult,
  type JudgeOutput,
  type JudgeResult,
} from "./schemas.ts";
export { DEFAULT_LABELS } from "./request.ts";

export const judge = {
  name: NAME,
  schemas: { request: JudgeRunRequest, config: JudgePublicConfig, result: JudgeResult, output: JudgeOutput },
  route: {
    operationId: "createJudgeRun",
    summary: "Judge a batch of items with a panel of LLM critics",
    description:
      "Each critic call is a unit of the run (items × critics). The result holds per item the consensus, agreement_pct, the per-item alpha and the verdicts; per batch Krippendorff's nominal alpha over the whole items × critics matrix, per-critic agreement with the consensus and a pairwise table; ERROR, PARSE_FAIL and off-vocabulary verdicts are counted apart from votes. Accepts `Idempotency-Key`.",
  },
  // GET /v1/judge/runs/{run_id}/contested (the human-review queue), GET /v1/judge/prompts.
  routes: { evaluator: judgeRoutes },
  create: createJudgeRun,
  plan,
  unitCost,
  execute,
  aggregate: (config, samples) => aggregateJudge(config, samples),
  parseOutput: (text) => JSON.parse(text),
  failureOutput,
  exportLine(sample) {
    const o = sample.output as JudgeOutput | null;
    if (!o) return null;
    // The original pipeline's per-call JSONL record, plus the prompt and usage.
    return { item_id: o.item_id, critic: o.critic, model: o.model, ...o.verdict, usage: o.usage };
  },
  comparer: judgeComparer,
} satisfies EvaluatorPlugin<JudgeBody, JudgeRunConfig, JudgeResult>;
