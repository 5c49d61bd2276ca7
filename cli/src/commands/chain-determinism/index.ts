// `assay chain-determinism eval|report|suite`: chain_determinism_harness's `eval` with the service behind
// it. Same flags and defaults, same console layout and output files; the replays run on the server.
import { existsSync } from "node:fs";
import { Option, type Command } from "commander";
import {
  createChainDeterminismRun,
  listSamples,
  type ChainDeterminismRun,
  type ChainDeterminismRunRequest,
} from "@assay/sdk";
import { CliError, EXIT, usageError } from "../../errors.ts";
import { announce, followRun, requireSucceeded } from "../../follow.ts";
import { getFullRun } from "../../run-result.ts";
import { gate, threshold } from "../../gate.ts";
import { writeText } from "../../io.ts";
import { providerFromEnv } from "../../model-keys.ts";
import { printJson } from "../../output.ts";
import { call, session, type Session } from "../../session.ts";
import {
  byQuery,
  headerBlock,
  parseExport,
  queryBlocks,
  queryOrder,
  runsJsonl,
  summaryJson,
  type SuiteInfo,
} from "./harness.ts";
import { readSuiteFile, suiteRequest } from "./suite-file.ts";
import { addSuiteVerbs, getSuite, uploadSuite } from "./suites.ts";
import { armForRuns } from "../../interrupt.ts";
import { runId } from "../../args.ts";

function integer(flag: string, min: number) {
  return (raw: string): number => {
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isInteger(n) || n < min)
      throw usageError(`${flag} must be an integer of at least ${min}, got "${raw}"`);
    return n;
  };
}

function number(flag: string, check: (n: number) => boolean, what: string) {
  return (raw: string): number => {
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isFinite(n) || !check(n))
      throw usageError(`${flag} must be ${what}, got "${raw}"`);
    return n;
  };
}

type Outputs = { out?: string; runsOut?: string; maxDivergence?: number };

type EvalOptions = Outputs & {
  model: string;
  nQueries: number;
  nReplays: number;
  temperature: number;
  concurrency?: number;
  baseUrl?: string;
  timeout: number;
  suite: string;
  seed?: number;
  simDivergence?: number;
  detach?: boolean;
};

/** `--suite`: an id of the API (`default`, `ste_…`) unless it names a file, which is uploaded first. */
async function resolveSuite(s: Session, value: string): Promise<string> {
  const isId = value !== "-" && /^[A-Za-z0-9_-]+$/.test(value) && !existsSync(value);
  if (isId) return value;
  const parsed = await readSuiteFile(value);
  const request = suiteRequest(value, parsed, {
    registryHint: `upload it with \`assay chain-determinism suite upload ${value} --tools FILE --stubs FILE --system-prompt FILE\` and pass the suite id to --suite`,
  });
  const suite = await uploadSuite(s, request);
  if (!s.json)
    process.stderr.write(`uploaded suite ${suite.id} "${suite.name}" (${suite.n_queries} queries) from ${value}\n`);
  return suite.id;
}

/** The suite's size and query order, for the header and the per-query blocks; null if it is gone. */
async function suiteInfo(s: Session, id: string): Promise<SuiteInfo | null> {
  try {
    const d = await getSuite(s, id);
    const queries = (d.suite.queries ?? []) as { query_id: string }[];
    return { id: d.id, name: d.name, n_queries: d.n_queries, query_ids: queries.map((q) => q.query_id) };
  } catch (err) {
    if (err instanceof CliError && /^404\b/.test(err.message)) return null;
    throw err;
  }
}

/**
 * The endpoint and key, as the harness resolves them: --base-url, else CHAIN_DET_BASE_URL, else
 * OpenRouter when only OPENROUTER_API_KEY is set, else OPENAI_BASE_URL or OpenAI (model-keys.ts).
 */
function provider(opts: EvalOptions): ChainDeterminismRunRequest["provider"] {
  if (opts.model.startsWith("sim:")) return undefined;
  const baseUrl = opts.baseUrl ?? (process.env.CHAIN_DET_BASE_URL || undefined);
  const p = providerFromEnv({ baseUrl });
  // The harness refuses to start without a key (exit 2); an endpoint named explicitly may need none (a local vLLM).
  if (!p.api_key && !baseUrl) {
    throw usageError(
      "no model key: set OPENAI_API_KEY or OPENROUTER_API_KEY (a sim:* model needs none; --base-url names an endpoint that may need none)",
    );
  }
  return p;
}

/** The run's replays as the NDJSON export gives them: the harness's per-replay rows. */
async function exportText(s: Session, runId: string): Promise<string> {
  return call(
    s,
    listSamples({
      client: s.client,
      path: { run_id: runId },
      headers: { Accept: "application/x-ndjson" },
      parseAs: "text",
    }) as Promise<{ data?: string; error?: unknown; response?: Response }>,
  );
}

/**
 * Everything after the run ended: the per-query blocks and the closing summary (stdout), the files,
 * the gate. With --json, the run itself is printed instead of the console layout.
 */
async function report(s: Session, run: ChainDeterminismRun, suite: SuiteInfo | null, opts: Outputs): Promise<void> {
  requireSucceeded(run);
  const result = run.result;
  if (!result) throw new CliError(`run ${run.id} has no result`);
  const rows = parseExport(await exportText(s, run.id));
  const groups = byQuery(rows, queryOrder(rows, suite, run.config.n_queries));
  if (s.json) printJson(run);
  // The service's summary_text is the harness's format_summary, byte for byte.
  else process.stdout.write(queryBlocks(groups) + result.summary_text);
  if (opts.out) {
    const elapsed = run.finished_at ? (Date.parse(run.finished_at) - Date.parse(run.created_at)) / 1000 : 0;
    await writeText(opts.out, summaryJson(result, Math.round(elapsed * 100) / 100));
  }
  if (opts.runsOut) await writeText(opts.runsOut, runsJsonl(groups));
  if (opts.maxDivergence !== undefined) {
    process.exitCode = gate([
      {
        flag: "--max-divergence",
        metric: "divergence_rate",
        value: result.divergence_rate,
        threshold: opts.maxDivergence,
        kind: "max",
      },
    ]);
  }
}

function addOutputOptions(cmd: Command): Command {
  return cmd
    .option("--out <path>", "write the summary JSON (the harness's format)")
    .option("--runs-out <path>", "write the per-replay JSONL (the harness's rows, one per replay)")
    .option(
      "--max-divergence <rate>",
      "CI gate: exit 3 when divergence_rate is above this (0–1), or not measurable",
      threshold("--max-divergence"),
    );
}

export function register(program: Command): void {
  const cd = program
    .command("chain-determinism")
    .description("does an agent call the same tools every time? (chain_determinism_harness, on the server)");

  addOutputOptions(
    cd
      .command("eval")
      .description("replay each query N times against one model and report the chain-divergence rate")
      .requiredOption("--model <model>", "model identifier, or sim:<anything> for the built-in simulator (required)")
      .option("--n-queries <n>", "queries to use: the first N of the suite", integer("--n-queries", 1), 5)
      .option("--n-replays <k>", "replays per query", integer("--n-replays", 1), 10)
      .addOption(
        new Option("--temperature <t>", "sampling temperature")
          .argParser(number("--temperature", (n) => n >= 0, "a number of at least 0"))
          .default(0, "0.0"),
      )
      .option(
        "--concurrency <c>",
        "at most this many replays in flight (over the whole run); omitted, the run adapts to the endpoint",
        integer("--concurrency", 1),
      )
      .option(
        "--base-url <url>",
        "OpenAI-compatible API base URL (default: $CHAIN_DET_BASE_URL, OpenRouter's with only OPENROUTER_API_KEY set, else $OPENAI_BASE_URL or OpenAI's)",
      )
      .option(
        "--timeout <sec>",
        "per-request timeout in seconds",
        number("--timeout", (n) => n > 0, "a positive number of seconds"),
        60,
      )
      .option("--suite <suite>", "suite id of the server, or a suite JSON file to upload first", "default")
      .option("--seed <n>", "sent as `seed` to the endpoint; seeds the simulator", integer("--seed", 0))
      .option(
        "--sim-divergence <p>",
        "sim:* models: how often a replay departs from the query's usual plan (0–1)",
        number("--sim-divergence", (n) => n >= 0 && n <= 1, "a number from 0 to 1"),
      ),
  )
    .option(
      "--detach",
      "start the run, print its id and return; read it later with `assay chain-determinism report RUN`",
    )
    .action(async (opts: EvalOptions, cmd: Command) => {
      if (opts.detach && (opts.out || opts.runsOut || opts.maxDivergence !== undefined)) {
        throw usageError(
          "--out, --runs-out and --max-divergence need the result: without --detach, or later with `assay chain-determinism report RUN`",
        );
      }
      if (opts.simDivergence !== undefined && !opts.model.startsWith("sim:"))
        throw usageError("--sim-divergence is for sim:* models only");
      const s = session(cmd);
      const p = provider(opts);
      const suiteIdValue = await resolveSuite(s, opts.suite);
      const suite = await suiteInfo(s, suiteIdValue);
      if (!suite) throw new CliError(`no suite "${suiteIdValue}" on ${s.server} (see \`assay suites list\`)`);
      if (opts.nQueries > suite.n_queries)
        throw usageError(`--n-queries ${opts.nQueries}: the suite ${suite.id} has ${suite.n_queries} queries`);

      const body: ChainDeterminismRunRequest = {
        model: opts.model,
        ...(p ? { provider: p } : {}),
        suite: suite.id,
        n_queries: opts.nQueries,
        n_replays: opts.nReplays,
        temperature: opts.temperature,
        ...(opts.concurrency !== undefined ? { concurrency: opts.concurrency } : {}),
        timeout_s: opts.timeout,
        ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
        ...(opts.simDivergence !== undefined ? { simulator: { divergence: opts.simDivergence } } : {}),
      };
      // From here Ctrl-C cancels the run rather than leaving it going unseen.
      if (!opts.detach) armForRuns();
      const created = (await call(s, createChainDeterminismRun({ client: s.client, body }))) as ChainDeterminismRun;
      if (!s.json) process.stdout.write(headerBlock("eval", created.id, created.config, suite));
      announce(s, created);
      const run = (await followRun(s, created.id, { detach: opts.detach })) as ChainDeterminismRun | null;
      if (run) await report(s, run, suite, opts);
    });

  addOutputOptions(
    cd
      .command("report")
      .description("the console report and files of a chain-determinism run (following it to its end first)")
      .argument("<run>", "run id", runId),
  ).action(async (id: string, opts: Outputs, cmd: Command) => {
    const s = session(cmd);
    let run = (await getFullRun(s, id)) as ChainDeterminismRun;
    if (run.evaluator !== "chain-determinism")
      throw new CliError(`run ${id} is a ${run.evaluator} run, not chain-determinism`, EXIT.usage);
    const suite = await suiteInfo(s, run.config.suite.id);
    if (!s.json) process.stdout.write(headerBlock("report", run.id, run.config, suite));
    if (run.status === "queued" || run.status === "running") run = (await followRun(s, id)) as ChainDeterminismRun;
    await report(s, run, suite, opts);
  });

  addSuiteVerbs(
    cd.command("suite").description("upload (ours or the harness's query layout), list, get, delete suites"),
  );
}
