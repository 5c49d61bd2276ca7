// `assay judge run|contested`: a cross-judge panel over a batch of items, and the human-review queue.
import type { Command } from "commander";
import {
  createJudgeRun,
  listContestedItems,
  listSamples,
  type ContestedItem,
  type JudgeResult,
  type JudgeSample,
  type Run,
} from "@assay/sdk";
import { allPages, eachItem } from "@assay/sdk/pages";
import { usageError } from "../../errors.ts";
import { announce, followRun, requireSucceeded } from "../../follow.ts";
import { gate, threshold } from "../../gate.ts";
import { writeText } from "../../io.ts";
import { batchBlock, contestedBlock, itemBlock } from "./console.ts";
import { readItems, readPanel } from "./panel.ts";
import { printJson } from "../../output.ts";
import { call, session, type Session } from "../../session.ts";
import { armForRuns } from "../../interrupt.ts";
import { runId } from "../../args.ts";

/** Every verdict's reasoning, by item id and critic: the result keeps labels only, the samples the rest. */
async function reasoningOf(s: Session, id: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const samples = eachItem((after) =>
    call(s, listSamples({ client: s.client, path: { run_id: id }, query: { limit: 100, after } })),
  );
  for await (const sample of samples as AsyncGenerator<JudgeSample>) {
    if (sample.output) out.set(`${sample.output.item_id}\n${sample.output.critic}`, sample.output.verdict.reasoning);
  }
  return out;
}

type RunOptions = { critics: string; items: string; out?: string; minAlpha?: number; detach?: boolean };

async function run(opts: RunOptions, cmd: Command): Promise<void> {
  if (opts.detach && (opts.out !== undefined || opts.minAlpha !== undefined)) {
    throw usageError("--detach returns before the run ends: it cannot be combined with --out or --min-alpha");
  }
  // Files and keys first: nothing is sent while one of them is wrong.
  const panel = await readPanel(opts.critics);
  const items = await readItems(opts.items);
  const s = session(cmd);
  // From here Ctrl-C cancels the run rather than leaving it going unseen.
  if (!opts.detach) armForRuns();
  const created = await call(s, createJudgeRun({ client: s.client, body: { ...panel, items } }));
  announce(s, created);
  const ended = await followRun(s, created.id, { detach: opts.detach });
  if (!ended) return;
  const finished = requireSucceeded(ended) as Run & { result: JudgeResult };
  const result = finished.result;

  if (opts.out !== undefined) await writeText(opts.out, JSON.stringify(result, null, 2) + "\n");
  if (s.json) printJson(finished);
  else {
    const reasoning = await reasoningOf(s, finished.id);
    for (const [i, item] of result.items.entries()) {
      process.stdout.write(itemBlock(item, i, result.items.length, (critic) => reasoning.get(`${item.id}\n${critic}`)));
    }
    process.stdout.write(batchBlock(result, finished.id));
  }
  if (opts.out !== undefined && !s.json) process.stderr.write(`wrote ${opts.out}\n`);
  if (opts.minAlpha !== undefined) {
    const alpha = result.batch.alpha.alpha;
    if (alpha === null)
      process.stderr.write(
        "batch alpha is undefined (null): only one label occurs, or no item has two valid verdicts; the gate fails\n",
      );
    process.exitCode = gate([
      { flag: "--min-alpha", metric: "batch alpha", value: alpha, threshold: opts.minAlpha, kind: "min" },
    ]);
  }
}

async function contested(id: string, opts: { threshold?: number }, cmd: Command): Promise<void> {
  const s = session(cmd);
  // Each page also says which threshold the server applied (the run's own when none was given).
  let used: number | undefined;
  const data: ContestedItem[] = await allPages(async (after) => {
    const page = await call(
      s,
      listContestedItems({
        client: s.client,
        path: { run_id: id },
        query: { threshold: opts.threshold, limit: 100, after },
      }),
    );
    used = page.threshold;
    return page;
  });
  if (s.json) return printJson({ run_id: id, threshold: used, data });
  process.stdout.write(
    `${data.length} contested item${data.length === 1 ? "" : "s"} in run ${id} (threshold ${used})\n`,
  );
  for (const item of data) process.stdout.write("\n" + contestedBlock(item));
}

export function register(program: Command): void {
  const judge = program
    .command("judge")
    .description("a panel of LLM critics (cross-judge): consensus, agreement and Krippendorff's alpha");

  judge
    .command("run")
    .description(
      "every critic of the panel judges every item; prints each item's consensus, agreement and alpha, then the batch alpha",
    )
    .requiredOption(
      "--critics <panel.yaml>",
      "the panel: critics (name, model, vendor, temperature, system_prompt / prompt_template or yaml_path), voting, labels",
    )
    .requiredOption("--items <items.jsonl>", 'one item per line: {"query", "query_id"?, "context"?, "expected"?}')
    .option("--out <file>", "write the run's result JSON here")
    .option(
      "--min-alpha <x>",
      "exit 3 unless the batch alpha is at least x (an undefined alpha fails)",
      threshold("--min-alpha"),
    )
    .option("--detach", "print the run id and return; the run goes on")
    .addHelpText(
      "after",
      "\nKeys: each critic's vendor variable (DEEPSEEK_API_KEY, OPENAI_API_KEY, OPENROUTER_API_KEY, TOGETHER_API_KEY),\nor the variable its api_key_env names; sim:* critics need none.",
    )
    .action(run);

  judge
    .command("contested")
    .description(
      "the human-review queue of an ended run: items the panel could not agree on, with every verdict's reasoning",
    )
    .argument("<run>", "run id", runId)
    .option(
      "--threshold <x>",
      "contested below this agreement or alpha (default: the run's contested_threshold)",
      threshold("--threshold"),
    )
    .action(contested);
}
