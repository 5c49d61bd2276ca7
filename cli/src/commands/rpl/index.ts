// `assay rpl run|compare`: Heretix's `heretix run --config run.yaml` with the assay API behind it, and
// the comparison of runs that differ in model or prompt version.
import { type Command, Option } from "commander";
import {
  cancelRun,
  compareRplRuns,
  createRplRun,
  type RplComparison,
  type RplResult,
  type RplRun,
  type Run,
  type RunGroup,
} from "@assay/sdk";
import { CliError, EXIT, usageError } from "../../errors.ts";
import { announce, followRun } from "../../follow.ts";
import { writeText } from "../../io.ts";
import { printJson } from "../../output.ts";
import { readRunConfig, requestBody } from "./config.ts";
import { comparisonText, resultLine, runningLine, stageLines } from "./format.ts";
import { call, session, type Session } from "../../session.ts";
import { armForRuns } from "../../interrupt.ts";
import { runId } from "../../args.ts";

type RunOptions = {
  config: string;
  claim?: string;
  model?: string;
  promptVersion?: string[];
  preset?: "auto";
  mock?: boolean;
  out?: string;
  detach?: boolean;
};

const warn = (line: string) => process.stderr.write(`assay: warning: ${line}\n`);

const FINAL = new Set(["succeeded", "failed", "canceled"]);

/**
 * Follows one version's run to its end; with the auto preset, stage after stage (each stage's result
 * names the next stage's run) until the controller stops. Returns the last run.
 */
async function followVersion(s: Session, first: Run, detach: boolean, live: Set<string>): Promise<RplRun | null> {
  let id = first.id;
  for (;;) {
    live.add(id);
    const run = (await followRun(s, id, { detach })) as RplRun | null;
    if (run) live.delete(id);
    const next = run?.status === "succeeded" ? run.result?.next_run_id : undefined;
    if (!run || !next) return run;
    if (!s.json)
      process.stderr.write(
        `run ${id}: stage ${run.config.stage ?? "?"} escalates (${run.result?.auto?.decision_log.at(-1)?.reason}); next stage: run ${next}\n`,
      );
    id = next;
  }
}

async function run(opts: RunOptions, cmd: Command): Promise<void> {
  if (opts.out && opts.detach) throw usageError("--out needs the run's result: leave out --detach");
  const cfg = await readRunConfig(opts.config, warn);
  const body = requestBody(
    cfg,
    { claim: opts.claim, model: opts.model, promptVersion: opts.promptVersion, preset: opts.preset, mock: opts.mock },
    warn,
  );
  const s = session(cmd);
  // From here Ctrl-C cancels the run rather than leaving it going unseen.
  if (!opts.detach) armForRuns();
  const created = await call(s, createRplRun({ client: s.client, body }));
  // A list of versions answers a group (one run per version); one version, the run itself.
  const runs: Run[] = (created as RunGroup).object === "run_group" ? (created as RunGroup).runs : [created as Run];

  const finals: RplRun[] = [];
  // Runs of this invocation that may still be going: Ctrl-C on one cancels the others too.
  const live = new Set(runs.map((r) => r.id));
  try {
    for (const r of runs) {
      const c = (r as RplRun).config;
      if (!s.json && !opts.detach)
        process.stdout.write(runningLine(c.model, c.K, c.R, c.prompt_version, c.preset) + "\n");
      announce(s, r);
      const last = await followVersion(s, r, Boolean(opts.detach), live);
      if (last) finals.push(last);
    }
  } catch (err) {
    if (err instanceof CliError && err.exitCode === EXIT.interrupted) await cancelRest(s, live);
    throw err;
  }
  if (opts.detach) return;

  if (s.json) printJson({ runs: finals });
  const results = finals
    .filter((f) => f.status === "succeeded" && f.result)
    .map((f) => ({ execution_id: f.id, ...(f.result as RplResult) }));
  if (!s.json) {
    for (const r of results) {
      for (const line of stageLines(r)) process.stdout.write(line + "\n");
      process.stdout.write(resultLine(r) + "\n");
    }
  }
  const failed = finals.filter((f) => f.status !== "succeeded");
  if (failed.length) {
    const f = failed[0];
    throw new CliError(`run ${f.id} (version ${f.config.prompt_version}) ${f.status}${f.error ? `: ${f.error}` : ""}`);
  }
  if (opts.out) {
    // Heretix's --out: {"runs": [one result per version]}; our run id is each entry's execution_id.
    await writeText(opts.out, JSON.stringify({ runs: results }, null, 2) + "\n");
    if (!s.json) process.stdout.write(`Wrote ${opts.out}\n`);
  }
}

/** After Ctrl-C: cancels this invocation's other runs that have not ended (an ended one is left as it is). */
async function cancelRest(s: Session, ids: Set<string>): Promise<void> {
  for (const id of ids) {
    const res = await cancelRun({ client: s.client, path: { run_id: id } }).catch(() => null);
    const status = (res?.data as Run | undefined)?.status;
    if (status && FINAL.has(status)) process.stderr.write(`run ${id} ${status}\n`);
  }
}

async function compare(ids: string[], _opts: unknown, cmd: Command): Promise<void> {
  if (ids.length < 2 || ids.length > 10) throw usageError(`compare takes 2 to 10 runs, got ${ids.length}`);
  const s = session(cmd);
  const comparison: RplComparison = await call(s, compareRplRuns({ client: s.client, query: { runs: ids.join(",") } }));
  if (s.json) return printJson(comparison);
  process.stdout.write(comparisonText(comparison));
}

export function register(program: Command): void {
  const rpl = program
    .command("rpl")
    .description("Heretix's RPL: a model's prior that a claim is true, over K paraphrases × R replicates");

  rpl
    .command("run")
    .description(
      "run a Heretix config (run.yaml) and print one row per prompt version: p, CI95, width, stability, compliance, cache hit rate",
    )
    .requiredOption(
      "--config <path>",
      "Heretix run config, YAML (or JSON by its .json suffix): claim, model, prompt_version, K, R, T, B, seed, max_output_tokens, no_cache",
    )
    .option("--claim <text>", "the claim (overrides the config)")
    .option("--model <name>", "the model (overrides the config; sim:* is the built-in simulator)")
    .option(
      "--prompt-version <version...>",
      "prompt versions to run, one run each (an A/B group); repeatable; overrides the config",
    )
    .addOption(
      new Option(
        "--preset <preset>",
        "auto: the Auto-RPL stages (8,8,2) → (16,16,2) → (16,16,3), escalating until the gates pass",
      ).choices(["auto"]),
    )
    .option(
      "--mock",
      "use the deterministic simulator instead of the model (no key, no network): model becomes sim:<model>",
    )
    .option("--out <path>", 'write the results as JSON: {"runs": [one result per version]}')
    .option("--detach", "print the run ids and return; the runs go on")
    .addHelpText(
      "after",
      "\nEnvironment: OPENAI_API_KEY / OPENROUTER_API_KEY (or the config's api_key_env) for a live model; OPENAI_BASE_URL or the\nconfig's base_url for another OpenAI-compatible endpoint; HERETIX_RPL_SEED (bootstrap seed when the config has none);\nHERETIX_RPL_NO_CACHE (any value: no sample cache).",
    )
    .action(run);

  rpl
    .command("compare")
    .description(
      "compare succeeded runs that differ only in model or prompt version: p, CI95, width, stability, PQS, and the winner",
    )
    .argument("<runs...>", "2 to 10 run ids", (raw: string, prev: string[] = []) => [...prev, runId(raw)])
    .action(compare);
}
