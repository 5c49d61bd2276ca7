import { aggregateVerdicts, batchAgreement, validVotes, type Verdict } from "../../engines/judge/index.ts";
import { addUsage, emptyUsage } from "../../runs/plugin/usage.ts";
import type { StoredSample } from "../../runs/plugin/types.ts";
import type { ContestedReason, JudgeItemResult, JudgeOutput, JudgeResult } from "./schemas.ts";
import { unitId, type JudgeRunConfig } from "./units.ts";

type VerdictClass = "valid" | "error" | "parse_fail" | "off_vocabulary";

function classify(v: Verdict): VerdictClass {
  if (v.error === null || v.error === undefined) return "valid";
  if (v.error === "parse_fail") return "parse_fail";
  if (v.error.startsWith("off_vocabulary")) return "off_vocabulary";
  return "error";
}

type Counts = JudgeItemResult["counts"];

/** Why an item belongs in the human-review queue at `threshold`; empty when it does not. */
export function contestedReasons(
  item: Pick<JudgeItemResult, "agreement_pct" | "krippendorff_alpha" | "counts">,
  threshold: number,
): ContestedReason[] {
  if (item.counts.valid < 2) return ["fewer_than_two_valid_verdicts"];
  const reasons: ContestedReason[] = [];
  if (item.agreement_pct < threshold) reasons.push("agreement_below_threshold");
  if (item.krippendorff_alpha !== null && item.krippendorff_alpha < threshold) reasons.push("alpha_below_threshold");
  return reasons;
}

function emptyCounts(): Counts {
  return { verdicts: 0, valid: 0, errors: 0, parse_failures: 0, off_vocabulary: 0, missing: 0 };
}

const COUNT_KEY: Record<VerdictClass, keyof Counts> = {
  valid: "valid",
  error: "errors",
  parse_fail: "parse_failures",
  off_vocabulary: "off_vocabulary",
};

/**
 * An alpha as a person reads it: the original's per-item alpha leaves floating-point noise where the
 * exact value is 0 or 1 (`1.1102230246251565e-16`), so a value within 1e-12 of a whole number is that
 * number (and -0 is 0). The engine keeps the raw value; its parity tests compare it bit for bit.
 */
export function readableAlpha(x: number | null): number | null {
  if (x === null) return null;
  const whole = Math.round(x);
  return Math.abs(x - whole) < 1e-12 ? whole + 0 : x;
}

/** Of a critic's output, what the aggregate reads: the verdict without its reasoning and raw response, and the usage. */
type Kept = { verdict: Verdict; usage: JudgeOutput["usage"] };

function kept(output: JudgeOutput | null): Kept | null {
  if (!output) return null;
  const { kind, confidence, critic_id, error, elapsed_s } = output.verdict;
  // Nothing in the voting or agreement reads the texts; they stay in the samples (and the contested route).
  return {
    verdict: { kind, confidence, critic_id, error, elapsed_s, reasoning: "", raw_response: null },
    usage: output.usage,
  };
}

/**
 * The run's result: per item the panel's consensus and agreement, per batch alpha and critic statistics.
 * One pass over the samples keeps each critic's label, confidence and error, not its reasoning.
 */
export function aggregateJudge(config: JudgeRunConfig, samples: Iterable<StoredSample>): JudgeResult {
  const byUnit = new Map<string, Kept | null>();
  for (const s of samples) byUnit.set(s.unitId, kept(s.output as JudgeOutput | null));
  const totals = emptyCounts();
  const usage = emptyUsage();
  const matrix: (string | null)[][] = [];
  const consensus: (string | null)[] = [];
  const patterns = { unanimous: 0, majority: 0, no_majority: 0, no_valid: 0 };
  const items: JudgeItemResult[] = config.items.map((item, i) => {
    const counts = emptyCounts();
    const verdicts: Verdict[] = [];
    const row: (string | null)[] = [];
    config.critics.forEach((_, c) => {
      const output = byUnit.get(unitId(i, c));
      counts.verdicts++;
      if (!output) {
        counts.missing++;
        row.push(null);
        return;
      }
      const v = output.verdict;
      counts[COUNT_KEY[classify(v)]]++;
      verdicts.push(v);
      row.push(classify(v) === "valid" ? v.kind : null);
      addUsage(usage, output.usage);
    });
    for (const k of Object.keys(totals) as (keyof Counts)[]) totals[k] += counts[k];
    const ev = aggregateVerdicts(item.id, verdicts, {
      voting: config.voting.strategy,
      votingKwargs: config.voting.kwargs,
    });
    const valid = validVotes(verdicts);
    matrix.push(row);
    consensus.push(valid.length ? ev.consensus : null);
    const top = Math.max(
      0,
      ...[...new Set(valid.map((v) => v.kind))].map((k) => valid.filter((v) => v.kind === k).length),
    );
    if (valid.length === 0) patterns.no_valid++;
    else if (top === valid.length) patterns.unanimous++;
    else if (top * 2 > valid.length) patterns.majority++;
    else patterns.no_majority++;
    const result: JudgeItemResult = {
      id: item.id,
      expected: item.expected,
      consensus: ev.consensus,
      disagreement: ev.disagreement,
      agreement_pct: ev.agreement_pct,
      avg_confidence: ev.avg_confidence,
      krippendorff_alpha: readableAlpha(ev.krippendorff_alpha),
      verdicts: verdicts.map((v) => ({ critic: v.critic_id, kind: v.kind, confidence: v.confidence, error: v.error })),
      counts,
      contested: [],
    };
    result.contested = contestedReasons(result, config.contested_threshold);
    return result;
  });
  const criticNames = config.critics.map((c) => c.name);
  const raw = batchAgreement(matrix, criticNames, consensus);
  const agreement = {
    ...raw,
    alpha: { ...raw.alpha, alpha: readableAlpha(raw.alpha.alpha) },
    pairwise: raw.pairwise.map((p) => ({ ...p, alpha: readableAlpha(p.alpha) })),
  };
  const labelDistribution = criticNames.map((critic, c) => {
    const labels: Record<string, number> = {};
    for (const row of matrix) if (row[c] !== null) labels[row[c]!] = (labels[row[c]!] ?? 0) + 1;
    return { critic, labels };
  });
  const known = items.filter((it) => it.expected !== null && it.counts.valid > 0);
  const correct = known.filter((it) => it.consensus === it.expected).length;
  return {
    voting: config.voting.strategy,
    labels: config.labels,
    counts: { items: items.length, ...totals },
    batch: { ...agreement, patterns, label_distribution: labelDistribution },
    contested: { threshold: config.contested_threshold, count: items.filter((it) => it.contested.length > 0).length },
    // Consensus against the items' `expected` labels, over items with at least one valid verdict.
    accuracy: known.length ? { items: known.length, correct, rate: correct / known.length } : null,
    usage,
    items,
  };
}
