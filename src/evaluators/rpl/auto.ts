import { AUTO_GATES, AUTO_POLICY, autoStages, decideStage, stageId, type Stage } from "../../engines/rpl/index.ts";
import type { FollowUp } from "../../runs/plugin/types.ts";
import { planRpl, type RplRunConfig } from "./plan.ts";
import type { RplAuto, RplResult, RplStageRecord } from "./schemas.ts";

/** The auto preset's state, carried from stage run to stage run in the config. */
export type AutoState = { stage_index: number; stages: Stage[]; history: RplStageRecord[] };

/** Config fields of the first stage of an auto run on a bank of `tBank` templates. */
export function autoStart(tBank: number): { T: number; K: number; R: number; auto: AutoState } {
  const stages = autoStages(tBank);
  return { ...stages[0], auto: { stage_index: 0, stages, history: [] } };
}

/** What the API shows of a config: no prompt texts, no plan, the auto preset's stage only. */
export function publicRplConfig(config: RplRunConfig & { auto?: AutoState }): Record<string, unknown> {
  const { prompt: _prompt, plan: _plan, auto, ...rest } = config;
  return auto ? { ...rest, preset: "auto", stage: auto.stage_index + 1 } : rest;
}

/**
 * After a stage's run: records the stage, decides (spec §17), and either hands over to the next
 * stage's run (whose samples for templates and replicates already asked come from the sample cache,
 * so only the top-up calls reach the model) or closes the controller with its final figures.
 */
export async function autoFollowUp(
  config: RplRunConfig & { auto?: AutoState },
  result: RplResult,
): Promise<FollowUp | null> {
  const auto = config.auto;
  if (!auto) return null;
  const r = result;
  const stage = auto.stages[auto.stage_index];
  const metrics = {
    ci_width: r.aggregates.ci_width,
    stability_score: r.aggregates.stability_score,
    imbalance_ratio: r.aggregation.imbalance_ratio,
  };
  const d = decideStage(auto.stage_index, auto.stages, metrics);
  const record: RplStageRecord = {
    stage_id: await stageId(auto.stage_index + 1, config.claim, config.model, stage),
    ...stage,
    prob_true_rpl: r.aggregates.prob_true_rpl,
    ci95: r.aggregates.ci95,
    cache_hit_rate: r.aggregates.cache_hit_rate,
    ...metrics,
    decision: d.decision,
    reason: d.reason,
    warnings: d.warnings,
  };
  const history = [...auto.history, record];
  const controller = {
    policy: AUTO_POLICY,
    start: auto.stages[0],
    ceilings: auto.stages[auto.stages.length - 1],
    gates: AUTO_GATES,
  };
  const decision_log = history.map((h) => ({ stage_id: h.stage_id, decision: h.decision, reason: h.reason }));
  if (d.decision.startsWith("escalate")) {
    const next = auto.stages[auto.stage_index + 1];
    const plan = await planRpl({
      claim: config.claim,
      model: config.model,
      promptBank: config.prompt,
      K: next.K,
      R: next.R,
      T: next.T,
    });
    const nextConfig = { ...config, ...next, plan, auto: { ...auto, stage_index: auto.stage_index + 1, history } };
    return {
      result: { ...result, auto: { controller, stages: history, decision_log } satisfies RplAuto },
      next: { config: nextConfig, publicConfig: publicRplConfig(nextConfig) },
    };
  }
  return {
    result: { ...result, auto: { controller, final: record, stages: history, decision_log } satisfies RplAuto },
  };
}
