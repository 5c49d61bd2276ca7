// Heretix's console lines. Its CLI prints, per prompt version,
//   v=<version>  p=0.412  CI95=[0.380,0.450]  width=0.070  stab=0.812  compl=1.00  cache=0.00
// with Python's format specs (.3f, .2f), which round the exact binary value half to even.
import type { RplComparison, RplResult } from "@assay/sdk";
import { pyFixed, table } from "../../output.ts";

const f3 = (x: number) => pyFixed(x, 3);
const f2 = (x: number) => pyFixed(x, 2);

/** "Running <model>  K=<K> R=<R>  version=<name>", before each version's run. */
export function runningLine(model: string, K: number, R: number, version: string, preset?: string): string {
  return `Running ${model}  K=${K} R=${R}  version=${version}${preset ? `  preset=${preset}` : ""}`;
}

/** One row of the A/B table. `prompt_version` is the bank's full version string, as Heretix prints it. */
export function resultLine(r: RplResult): string {
  const a = r.aggregates;
  return `v=${r.prompt_version}  p=${f3(a.prob_true_rpl)}  CI95=[${f3(a.ci95[0])},${f3(a.ci95[1])}]  width=${f3(a.ci_width)}  stab=${f3(a.stability_score)}  compl=${f2(a.rpl_compliance_rate)}  cache=${f2(a.cache_hit_rate)}`;
}

/** The auto preset's stages, one line each, in the row's style, with the controller's decision. */
export function stageLines(r: RplResult): string[] {
  return (r.auto?.stages ?? []).map(
    (s) =>
      `  ${s.stage_id}  T=${s.T} K=${s.K} R=${s.R}  p=${f3(s.prob_true_rpl)}  CI95=[${f3(s.ci95[0])},${f3(s.ci95[1])}]  width=${f3(s.ci_width)}  stab=${f3(s.stability_score)}  imb=${f2(s.imbalance_ratio)}  cache=${f2(s.cache_hit_rate)}  -> ${s.decision} (${s.reason}${s.warnings.length ? `; ${s.warnings.join("; ")}` : ""})`,
  );
}

/** Python's f"{x:+.{digits}f}": a sign always, "+0.000" for zero. */
const signed = (x: number, digits: number) => (x < 0 || Object.is(x, -0) ? "" : "+") + pyFixed(x, digits);

type ComparedRow = {
  run_id: string;
  value: unknown;
  prob_true_rpl: number;
  ci95: [number, number];
  ci_width: number;
  stability_score: number;
  pqs: number;
  delta_p: number;
  delta_ci_width: number;
  delta_stability: number;
  delta_pqs: number;
};

/**
 * The comparison for people: what was compared and what was held equal, a table (deltas against the
 * first run), and the winner as Heretix's A/B report words it ("Winner: …" or "Result: tie").
 */
export function comparisonText(c: RplComparison): string {
  const rows = c.runs as unknown as ComparedRow[];
  const parity = Object.entries(c.parity)
    .map(([k, v]) => `${k}=${typeof v === "string" ? JSON.stringify(v) : String(v)}`)
    .join("  ");
  const head = [`compared: ${c.dimension ?? "nothing (the runs have the same settings)"}`, `held equal: ${parity}`];
  // The compared dimension's value leads each row, when there is one.
  const lead = c.dimension ? [c.dimension] : [];
  const body = table(
    [...lead, "run", "p", "CI95", "width", "stab", "PQS", "Δp", "Δwidth", "Δstab", "ΔPQS"],
    rows.map((r) => [
      ...(c.dimension ? [String(r.value)] : []),
      r.run_id,
      f3(r.prob_true_rpl),
      `[${f3(r.ci95[0])},${f3(r.ci95[1])}]`,
      f3(r.ci_width),
      f3(r.stability_score),
      String(r.pqs),
      signed(r.delta_p, 3),
      signed(r.delta_ci_width, 3),
      signed(r.delta_stability, 3),
      signed(r.delta_pqs, 0),
    ]),
    [
      ...lead.map(() => "left" as const),
      "left",
      "right",
      "left",
      "right",
      "right",
      "right",
      "right",
      "right",
      "right",
      "right",
    ],
  );
  const w = c.winner;
  const winnerRow = rows.find((r) => r.run_id === w.run_id);
  const verdict = w.run_id
    ? `Winner: ${w.run_id}${c.dimension && winnerRow ? ` (${String(winnerRow.value)})` : ""} by ${w.rule === "ci_width" ? "narrower CI" : w.rule === "pqs" ? "higher PQS" : "higher stability"}`
    : "Result: tie";
  return `${head.join("\n")}\n${body}${verdict}\n`;
}
