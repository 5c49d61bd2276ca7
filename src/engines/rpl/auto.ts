/**
 * The Auto-RPL preset the original planned (spec §17): policy "templates-first-then-replicates",
 * stages S1 (T,K,R) = (8,8,2), S2 (16,16,2), S3 (16,16,3) — with a bank smaller than 16, S2 and S3 use
 * T = K = T_bank — and hard gates that must all pass to stop: ci_width ≤ 0.20, stability ≥ 0.70,
 * imbalance ≤ 1.50 (a warning above 1.25). A failing stage escalates to the next; after the last
 * one the decision is `stop_limits`.
 */
import { sha256Hex } from "./hash.ts";

export const AUTO_POLICY = "templates-first-then-replicates";
export const AUTO_GATES = { ci_width_max: 0.2, stability_min: 0.7, imbalance_max: 1.5 } as const;
export const IMBALANCE_WARN = 1.25;

export type Stage = { T: number; K: number; R: number };
export type StageMetrics = { ci_width: number; stability_score: number; imbalance_ratio: number };
export type StageDecision = {
  decision: string;
  reason: string;
  failing: Array<"ci_width" | "stability" | "imbalance">;
  warnings: string[];
};

/** The three stages for a bank of `tBank` templates. */
export function autoStages(tBank: number): Stage[] {
  const t = Math.min(16, tBank);
  return [
    { T: Math.min(8, tBank), K: Math.min(8, tBank), R: 2 },
    { T: t, K: t, R: 2 },
    { T: t, K: t, R: 3 },
  ];
}

/** `S{i}-` + the first 8 hex of sha256("claim|model|K=..|R=.."), i 1-based. */
export async function stageId(i: number, claim: string, model: string, stage: Stage): Promise<string> {
  return `S${i}-${(await sha256Hex(`${claim}|${model}|K=${stage.K}|R=${stage.R}`)).slice(0, 8)}`;
}

/** The decision after stage `index` (0-based) of `stages`, from that stage's metrics. */
export function decideStage(index: number, stages: Stage[], m: StageMetrics): StageDecision {
  const failing: StageDecision["failing"] = [];
  if (!(m.ci_width <= AUTO_GATES.ci_width_max)) failing.push("ci_width");
  if (!(m.stability_score >= AUTO_GATES.stability_min)) failing.push("stability");
  if (!(m.imbalance_ratio <= AUTO_GATES.imbalance_max)) failing.push("imbalance");
  const warnings = m.imbalance_ratio > IMBALANCE_WARN ? [`imbalance ${m.imbalance_ratio} > ${IMBALANCE_WARN}`] : [];
  if (failing.length === 0) return { decision: "stop_pass", reason: "all gates pass", failing, warnings };
  const reason = `failing gates: ${failing.join(", ")}`;
  const next = stages[index + 1];
  if (!next) return { decision: "stop_limits", reason: `${reason}; no stage left`, failing, warnings };
  return { decision: `escalate_to_T${next.T}_K${next.K}_R${next.R}`, reason, failing, warnings };
}
