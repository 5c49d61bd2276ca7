// The original's outputs folder, `<output_dir>/<experiment name>_<unix seconds>/`, from an ended run:
// reasoning_quality_results.xlsx (the API's workbook), radar_plot.svg (the API's chart; the original
// draws PNG), summary.json and <Model>_result.json in the original's layout, and its closing console table.
import { join } from "node:path";
import {
  getReasoningQualityRadar,
  getReasoningQualityReportXlsx,
  type ReasoningQualityModelResult,
  type ReasoningQualityRun,
} from "@assay/sdk";
import { writeText } from "../../io.ts";
import { pyFixed, table } from "../../output.ts";
import { call, type Session } from "../../session.ts";

export type ModelFile = { model: string; experiment_id: string } & Omit<ReasoningQualityModelResult, "model">;

export type Summary = {
  experiment_id: string;
  timestamp: string;
  duration_seconds: number | null;
  num_models: number;
  results: ModelFile[];
  // ours, after the original's keys
  run_id: string;
  rankings: NonNullable<ReasoningQualityRun["result"]>["rankings"];
  strategies: NonNullable<ReasoningQualityRun["result"]>["strategies"];
};

export type Written = {
  dir: string;
  excel: string;
  radar: string;
  summary: string;
  models: string[];
  content: Summary;
};

/** `experiment.name` + the unix time in seconds, as the original names a run's folder (path separators made safe). */
export function experimentId(name: string, at: Date = new Date()): string {
  return `${name.replace(/[\\/]/g, "_")}_${Math.floor(at.getTime() / 1000)}`;
}

/** Python's `time.strftime("%Y-%m-%dT%H:%M:%S")`: local time, seconds, no zone. */
function localIso(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** A model's result in the original's key order (model, experiment_id, raw_metrics, aggregated, per_dataset, metadata), then ours. */
export function modelFile(m: ReasoningQualityModelResult, experiment_id: string): ModelFile {
  const { model, raw_metrics, aggregated, per_dataset, metadata, ...ours } = m;
  return { model, experiment_id, raw_metrics, aggregated, per_dataset, metadata, ...ours };
}

/** The original's per-model file name: `/` and `\` in the model's name become `_`. */
export const modelFileName = (model: string) => `${model.replace(/[\\/]/g, "_")}_result.json`;

const json = (v: unknown) => JSON.stringify(v, null, 2) + "\n";

/** Fetches the run's workbook and chart and writes the folder; returns what was written. */
export async function writeOutputs(
  s: Session,
  run: ReasoningQualityRun,
  outputDir: string,
  experiment_id: string,
): Promise<Written> {
  const result = run.result!;
  const dir = join(outputDir, experiment_id);
  const xlsx = await call(
    s,
    getReasoningQualityReportXlsx({ client: s.client, path: { run_id: run.id }, parseAs: "arrayBuffer" }),
  );
  const svg = await call(s, getReasoningQualityRadar({ client: s.client, path: { run_id: run.id }, parseAs: "text" }));

  const results = result.models.map((m) => modelFile(m, experiment_id));
  const started = run.started_at ?? run.created_at;
  const duration = run.finished_at ? Math.round((Date.parse(run.finished_at) - Date.parse(started)) / 10) / 100 : null;
  const content: Summary = {
    experiment_id,
    timestamp: localIso(new Date()),
    duration_seconds: duration,
    num_models: results.length,
    results,
    run_id: run.id,
    rankings: result.rankings,
    strategies: result.strategies,
  };

  const written: Written = {
    dir,
    excel: join(dir, "reasoning_quality_results.xlsx"),
    radar: join(dir, "radar_plot.svg"),
    summary: join(dir, "summary.json"),
    models: results.map((r) => join(dir, modelFileName(r.model))),
    content,
  };
  // The original writes each model's file as it finishes, then the workbook, the summary and the chart.
  for (const [i, r] of results.entries()) await writeText(written.models[i], json(r));
  await writeText(written.excel, new Uint8Array(xlsx as unknown as ArrayBuffer));
  await writeText(written.summary, json(content));
  await writeText(written.radar, String(svg));
  return written;
}

/** Python's `f"{x:.3f}"` (output.ts), and the original's "  n/a" for a metric left out. */
export function pyFixed3(x: number | null | undefined): string {
  return typeof x === "number" ? pyFixed(x, 3) : "  n/a";
}

/** The original's closing table (main.py): one row per model, the six metrics and Q under balanced. */
export function summaryTable(models: ReasoningQualityModelResult[]): string {
  const rule = (c: string) => c.repeat(84);
  const head = ` ${"Model".padEnd(24)} ${["CQ", "CS", "RS", "LS", "ES", "SS"].map((h) => h.padStart(6)).join(" ")}  ${"Balanced".padStart(8)}`;
  const rows = models.map((r) => {
    const m = r.raw_metrics;
    const cells = [m.correctness, m.consistency, m.robustness, m.logical_coherence, m.efficiency, m.stability].map(
      pyFixed3,
    );
    return ` ${r.model.padEnd(24)} ${cells.join("  ")}   ${pyFixed3(r.aggregated.balanced)}`;
  });
  return (
    [
      "",
      rule("="),
      head,
      rule("-"),
      ...rows,
      rule("="),
      "  CQ=Correctness . CS=Consistency . RS=Robustness",
      "  LS=Logical Coherence . ES=Efficiency . SS=Stability",
      "",
    ].join("\n") + "\n"
  );
}

/** Q per strategy (rows, in the API's order) and model (columns), with the best model of each strategy. */
export function qTable(result: NonNullable<ReasoningQualityRun["result"]>): string {
  const models = result.models.map((m) => m.model);
  const rows = Object.keys(result.strategies).map((strategy) => {
    const best = (result.rankings[strategy] ?? []).filter((r) => r.rank === 1).map((r) => r.model);
    return [
      strategy,
      ...result.models.map((m) =>
        typeof m.aggregated[strategy] === "number" ? m.aggregated[strategy].toFixed(4) : "n/a",
      ),
      best.join(", "),
    ];
  });
  return table(["strategy", ...models, "best"], rows, ["left", ...models.map(() => "right" as const), "left"]);
}

/** The original's closing lines: where the workbook, the chart and the folder are. */
export function pathLines(w: Written): string {
  return `  Excel   -> ${w.excel}\n  Radar   -> ${w.radar}\n  Results -> ${w.dir}\n`;
}
