// `assay rq run --config config.yaml`: the original's `llm-eval --config config.yaml` with the assay server
// behind it; `assay rq report RUN`: the outputs folder of a run that was detached.
import type { Command } from "commander";
import {
  createReasoningQualityRun,
  uploadReasoningQualityDataset,
  type ReasoningQualityRun,
  type ReasoningQualityRunRequest,
  type Run,
} from "@assay/sdk";
import { CliError, usageError } from "../../errors.ts";
import { announce, followRun, requireSucceeded } from "../../follow.ts";
import { getFullRun } from "../../run-result.ts";
import { gate, threshold, type Check } from "../../gate.ts";
import { readYaml } from "../../io.ts";
import { printJson } from "../../output.ts";
import { planRun, strategiesOf, type RqPlan } from "./config.ts";
import { rowCount, uploadBody } from "./dataset-file.ts";
import { experimentId, pathLines, qTable, summaryTable, writeOutputs } from "./outputs.ts";
import { call, session, type Session } from "../../session.ts";
import { armForRuns } from "../../interrupt.ts";
import { runId } from "../../args.ts";

type GateOptions = { minQ?: number; strategy: string };

const log = (s: Session, line = "") => {
  if (!s.json) process.stderr.write(line + "\n");
};

/** The header the original logs before it evaluates: config, experiment id, models, metrics. */
function header(s: Session, plan: RqPlan, id: string, outDir: string): void {
  log(s, `Config        : ${plan.configPath}`);
  log(s, `Experiment ID : ${id}`);
  log(s, `Output dir    : ${outDir}\n`);
  log(s, "Registering models...");
  for (const m of plan.models) log(s, `  OK ${m.request.name!.padEnd(32)} [${m.type}] -> ${m.endpoint}`);
  log(s, `\n${plan.models.length} model(s) ready.\n`);
  const r = plan.request;
  const method = (b: unknown, dflt: string) =>
    b === undefined
      ? dflt
      : typeof b === "string"
        ? b
        : `${(b as { method: string }).method} ${(b as { model: string }).model}`;
  log(
    s,
    `Metrics       : K=${r.K} P=${r.P} · CQ ${r.matcher ?? "canonical"} · LS ${method(r.ls, "lexical")} · SS ${method(r.ss, "jaccard")} · weights ${r.preset ?? "paper-v8"}`,
  );
  for (const note of plan.notes) log(s, `  note: ${note}`);
}

/** Uploads the config's dataset files (each one line, as the original's "OK name [type] -- n items") and returns the run's dataset refs. */
async function datasetRefs(s: Session, plan: RqPlan): Promise<ReasoningQualityRunRequest["datasets"]> {
  // Every file is read before anything is sent: a missing one stops the run with nothing uploaded.
  const bodies = await Promise.all(plan.datasets.map((d) => (d.kind === "file" ? uploadBody(d.upload) : null)));
  log(s, "\nLoading datasets...");
  const refs: ReasoningQualityRunRequest["datasets"] = [];
  for (const [i, d] of plan.datasets.entries()) {
    const body = bodies[i];
    if (d.kind === "ref") {
      refs.push(d.ref);
      // A stored dataset's size is the server's to know; the run's total below counts it.
      const what =
        d.count !== undefined
          ? `${String(d.count).padStart(5)} items`
          : `stored dataset ${"id" in d.ref ? d.ref.id : ""}`;
      log(s, `  OK ${d.name.padEnd(20)} [${d.type}] -- ${what}`);
      continue;
    }
    if (!body) continue; // read above for every file
    if (d.defaultSamples && body.num_samples === undefined && rowCount(body) > d.defaultSamples)
      body.num_samples = d.defaultSamples;
    const ds = await call(s, uploadReasoningQualityDataset({ client: s.client, body }));
    refs.push({ id: ds.id });
    log(s, `  OK ${d.name.padEnd(20)} [${d.type}] -- ${String(ds.n_items).padStart(5)} items (uploaded as ${ds.id})`);
  }
  return refs;
}

/** `--min-q`: every model's Q under the chosen strategy must reach the threshold (exit 3 if one does not). */
function gateChecks(run: ReasoningQualityRun, g: GateOptions): Check[] {
  if (g.minQ === undefined) return [];
  return run.result!.models.map((m) => ({
    flag: "--min-q",
    metric: `Q[${g.strategy}] of ${m.model}`,
    value: m.aggregated[g.strategy],
    threshold: g.minQ!,
    kind: "min" as const,
  }));
}

/** Writes the outputs folder, prints the closing tables (or the summary as JSON), and applies the gate. */
async function finish(s: Session, run: ReasoningQualityRun, outDir: string, id: string, g: GateOptions): Promise<void> {
  const written = await writeOutputs(s, run, outDir, id);
  if (s.json) {
    printJson({
      ...written.content,
      output_dir: written.dir,
      files: [written.excel, written.radar, written.summary, ...written.models],
    });
  } else {
    process.stdout.write(summaryTable(run.result!.models));
    process.stdout.write(qTable(run.result!));
    process.stdout.write("\n" + pathLines(written) + "\n");
  }
  const checks = gateChecks(run, g);
  if (checks.length) process.exitCode = gate(checks);
}

function asRq(run: Run): ReasoningQualityRun {
  if (run.evaluator !== "reasoning-quality")
    throw new CliError(`run ${run.id} is a ${run.evaluator} run, not reasoning-quality`);
  return run;
}

const strategyName = (raw: string) => {
  if (!/^[A-Za-z0-9_ .-]{1,50}$/.test(raw)) throw usageError(`--strategy must be a strategy name, got "${raw}"`);
  return raw;
};

export function register(program: Command): void {
  const rq = program
    .command("rq")
    .description("reasoning quality (llm-reasoning-quality): CQ, CS, RS, LS, ES, SS and Q per strategy");

  rq.command("run")
    .description("evaluate the models of the original's config.yaml and write outputs/<experiment>_<timestamp>/")
    .requiredOption("--config <file>", "the original's YAML config: experiment, models, datasets, metrics, aggregation")
    .option("--out-dir <dir>", "where the run's folder goes (default: experiment.output_dir, else outputs)")
    .option("--detach", "start the run, print its id and return (write the folder later with `assay rq report`)")
    .option(
      "--min-q <x>",
      "CI gate: exit 3 unless every model's Q (under --strategy) is at least x",
      threshold("--min-q"),
    )
    .option("--strategy <name>", "the strategy --min-q reads", strategyName, "balanced")
    .action(
      async (
        opts: { config: string; outDir?: string; detach?: boolean; minQ?: number; strategy: string },
        cmd: Command,
      ) => {
        // The gate needs the result, which a detached run does not wait for.
        if (opts.detach && opts.minQ !== undefined)
          throw usageError(
            "--min-q needs the run's result: leave out --detach (or gate later with `assay rq report RUN --min-q`)",
          );
        const s = session(cmd);
        const plan = planRun(await readYaml(opts.config), opts.config);
        if (opts.minQ !== undefined && !strategiesOf(plan).includes(opts.strategy)) {
          throw usageError(
            `--strategy ${opts.strategy} is not a strategy of this run (${strategiesOf(plan).join(", ")})`,
          );
        }
        const outDir = opts.outDir ?? plan.outputDir;
        const id = experimentId(plan.experiment);
        header(s, plan, id, outDir);

        const datasets = await datasetRefs(s, plan);
        const body: ReasoningQualityRunRequest = {
          ...plan.request,
          models: plan.models.map((m) => m.request),
          datasets,
        };
        // From here Ctrl-C cancels the run rather than leaving it going unseen.
        if (!opts.detach) armForRuns();
        const created = asRq(await call(s, createReasoningQualityRun({ client: s.client, body })));
        log(s, `\nTotal items     : ${created.config.n_items}\n`);
        announce(s, created);
        const ended = await followRun(s, created.id, { detach: opts.detach });
        if (!ended) {
          const arg = (v: string) => (/^[\w./-]+$/.test(v) ? v : `'${v.replace(/'/g, "'\\''")}'`); // as a shell reads it
          log(
            s,
            `then write its outputs with \`assay rq report ${created.id} --name ${arg(plan.experiment)} --out-dir ${arg(outDir)}\``,
          );
          return;
        }
        await finish(s, asRq(requireSucceeded(ended)), outDir, id, { minQ: opts.minQ, strategy: opts.strategy });
      },
    );

  rq.command("report")
    .description("write the outputs folder (workbook, radar chart, summary.json, one JSON per model) of an ended run")
    .argument("<run>", "run id", runId)
    .option("--name <experiment>", "the folder's prefix, the config's experiment.name (default: the run id)")
    .option("--out-dir <dir>", "where the folder goes", "outputs")
    .option(
      "--min-q <x>",
      "CI gate: exit 3 unless every model's Q (under --strategy) is at least x",
      threshold("--min-q"),
    )
    .option("--strategy <name>", "the strategy --min-q reads", strategyName, "balanced")
    .action(
      async (id: string, opts: { name?: string; outDir: string; minQ?: number; strategy: string }, cmd: Command) => {
        const s = session(cmd);
        const run = asRq(requireSucceeded(await getFullRun(s, id)));
        if (opts.minQ !== undefined && !(opts.strategy in run.result!.strategies)) {
          throw usageError(
            `--strategy ${opts.strategy} is not a strategy of run ${id} (${Object.keys(run.result!.strategies).join(", ")})`,
          );
        }
        await finish(s, run, opts.outDir, experimentId(opts.name ?? id), { minQ: opts.minQ, strategy: opts.strategy });
      },
    );
}
