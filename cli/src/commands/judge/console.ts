// What `assay judge` prints, in the layout of cross-judge's quickstart (README): per item
//   Consensus: KEEP / Agreement: 67% / Krippendorff α: 0.000
// and one line per verdict: `  {critic_id:20s} kind={kind:8s} conf={confidence:.2f}  {reasoning[:60]}`.
import type { ContestedItem, JudgeResult } from "@assay/sdk";
import { pyFixed } from "../../output.ts";

/** Python's `{:.0%}` (agreement, as cross-judge prints it). */
export const percent = (x: number): string => `${pyFixed(x * 100, 0)}%`;

/** `{:.3f}`, and n/a where the alpha is undefined (fewer than two valid verdicts). */
export const alphaText = (a: number | null): string => (a === null ? "n/a" : pyFixed(a, 3));

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();

export type VerdictView = {
  critic: string;
  kind: string;
  confidence: number;
  reasoning?: string;
  error: string | null;
};

/** One verdict; `width` cuts the reasoning as the quickstart does (60), undefined keeps all of it. */
export function verdictLine(v: VerdictView, width?: number): string {
  const reasoning = oneLine(v.reasoning ?? "");
  const text = width === undefined ? reasoning : Array.from(reasoning).slice(0, width).join("");
  // An excluded verdict says why (ERROR's reasoning is its error already).
  const why = v.error && v.error !== reasoning ? `  [${v.error}]` : "";
  return `  ${v.critic.padEnd(20)} kind=${v.kind.padEnd(8)} conf=${pyFixed(v.confidence, 2)}  ${text}`.trimEnd() + why;
}

function itemLines(consensus: string, agreement: number, alpha: number | null): string[] {
  return [`Consensus: ${consensus}`, `Agreement: ${percent(agreement)}`, `Krippendorff α: ${alphaText(alpha)}`];
}

type ResultItem = JudgeResult["items"][number];

/** One item of a finished run: `[i/N] id`, its three lines, its verdicts (reasoning cut to 60). */
export function itemBlock(
  item: ResultItem,
  index: number,
  total: number,
  reasoning: (critic: string) => string | undefined,
): string {
  const lines = [
    `[${index + 1}/${total}] ${item.id}`,
    ...itemLines(item.consensus, item.agreement_pct, item.krippendorff_alpha),
  ];
  for (const v of item.verdicts) lines.push(verdictLine({ ...v, reasoning: reasoning(v.critic) }, 60));
  return lines.join("\n") + "\n\n";
}

/** The batch: verdict counts, the batch alpha, the contested queue, accuracy against known labels. */
export function batchBlock(result: JudgeResult, runId: string): string {
  const c = result.counts;
  const a = result.batch.alpha;
  const counts = [
    `valid ${c.valid}`,
    `errors ${c.errors}`,
    `parse failures ${c.parse_failures}`,
    `off vocabulary ${c.off_vocabulary}`,
  ];
  if (c.missing) counts.push(`missing ${c.missing}`);
  const lines = [
    `Batch: ${c.items} items, ${c.verdicts} verdicts (${counts.join(", ")})`,
    a.alpha === null
      ? `Batch Krippendorff α: n/a (undefined: only one label occurs, or no item has two valid verdicts)`
      : `Batch Krippendorff α: ${alphaText(a.alpha)} (pairable values ${a.pairable}, items used ${a.units_used})`,
    `Contested: ${result.contested.count} of ${c.items} items (threshold ${result.contested.threshold})` +
      (result.contested.count ? `: assay judge contested ${runId}` : ""),
  ];
  if (result.accuracy)
    lines.push(
      `Accuracy: ${result.accuracy.correct}/${result.accuracy.items} (${percent(result.accuracy.rate)}) against the expected labels`,
    );
  return lines.join("\n") + "\n";
}

/** A contested item for a human reviewer: why, the query, and every verdict with all its reasoning. */
export function contestedBlock(item: ContestedItem): string {
  const lines = [`${item.id}: ${item.reasons.join(", ")}`];
  if (item.query !== null) lines.push(`Query: ${oneLine(item.query)}`);
  lines.push(...itemLines(item.consensus, item.agreement_pct, item.krippendorff_alpha));
  for (const v of item.verdicts)
    lines.push(
      verdictLine({
        critic: v.critic_id,
        kind: v.kind,
        confidence: v.confidence,
        reasoning: v.reasoning,
        error: v.error,
      }),
    );
  return lines.join("\n") + "\n";
}
