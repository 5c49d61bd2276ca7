// Comparisons and aggregation at the scale the README promises (issue 23), in plain Node: peak heap and
// CPU of
// - aggregating a 60,000-unit reasoning-quality run, and a 10,000-item × 5-critic judge run, and
//   building their comparison bases (what the coordinator's finish does), reading synthetic samples one
//   at a time as the coordinator pages them;
// - GET /v1/compare's work for two such runs, and for two 10,000-item × 5-critic judge runs: parse the
//   two kept bases (as read from R2), check them, compare, write the answer.
// Targets: each comparison under 64 MB of peak heap and 5 s of CPU; aggregation bounded by the per-item
// scores, not the samples.
//
// Each measurement runs in a child process of its own (`node --expose-gc --trace-gc
// --max-old-space-size=… bench/compare-scale.ts <case>`), from a heap collected by `gc()`, with its old
// space capped, so a run that needed more heap than the cap would fail rather than report a number.
// Peak heap: the most heap in use at any moment of the work, as V8 reports it just before each of its
// collections (`--trace-gc`), the last one a `gc()` right after the work. It includes what Node and the
// loaded modules hold before the work starts (the baseline: in use after the `gc()` before it).
// Run directly: `node bench/compare-scale.ts`.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultRng } from "../src/engines/stats/index.ts";
import { aggregateJudge } from "../src/evaluators/judge/aggregate.ts";
import { judgeComparer } from "../src/evaluators/judge/compare.ts";
import type { JudgeRunConfig } from "../src/evaluators/judge/units.ts";
import type { JudgeOutput } from "../src/evaluators/judge/schemas.ts";
import {
  aggregateRq,
  reasoningQuality,
  type RqRunConfig,
  type RqOutput,
} from "../src/evaluators/reasoning-quality/index.ts";
import { rqComparer } from "../src/evaluators/reasoning-quality/compare.ts";
import type { ComparedRun } from "../src/runs/plugin/compare.ts";
import type { StoredSample } from "../src/runs/plugin/types.ts";
import { rqConfig, syntheticItems } from "../test/support/reasoning-quality-config.ts";

const RQ_ITEMS = 10_000;
const RQ_K = 3;
const RQ_P = 3;
const JUDGE_ITEMS = 10_000;
const CRITICS = 5;
const LABELS = ["KEEP", "REJECT", "SPLIT", "MERGE", "UNCLEAR"];
/** The cap of each child's old space: the target of a comparison (the Worker's whole isolate has 128 MB). */
const OLD_SPACE_MB = 64;

export type Measure = { peak_heap_mb: number; baseline_mb: number; cpu_s: number; detail: string };

const MB = 2 ** 20;
const gc = () => (globalThis as { gc?: () => void }).gc!();

/** Runs `work` between two collections, marked in the output for `child` to read V8's trace of it. */
async function measured(work: () => Promise<string>): Promise<Measure> {
  gc();
  // stdout is synchronous on pipes, so V8's trace lines and these markers keep their order.
  console.log(START);
  const cpu0 = process.cpuUsage();
  const detail = await work();
  const cpu = process.cpuUsage(cpu0);
  console.log(END);
  gc();
  return { peak_heap_mb: NaN, baseline_mb: NaN, cpu_s: (cpu.user + cpu.system) / 1e6, detail };
}

const START = "compare-scale: measure starts";
const END = "compare-scale: measure ends";
/** `--trace-gc`'s line: `… ms: Scavenge 12.3 (14.0) -> 10.1 (15.0) MB, …`: the heap in use before and after. */
const GC_LINE =
  /: (?:Scavenge|Mark-Compact|Mark-Sweep|Minor Mark-Sweep|Mark-sweep)\b[^\d]*([\d.]+) \(([\d.]+)\) -> ([\d.]+)/;

// ---- reasoning-quality ------------------------------------------------------------------------------

const SENTENCES = [
  "First I read the question",
  "The numbers are not all relevant",
  "It is not the case that the total changes",
  "So the result follows",
  "I check the answer again",
];

function benchRqConfig(): RqRunConfig {
  // Robustness items carry paraphrases, so every item has its P perturbations: 1 + (K − 1) + P units per item.
  const models = [
    {
      name: "reasoner",
      model: "sim:reasoner",
      base_url: "http://e",
      temperature: 0.7,
      max_tokens: 256,
      timeout_s: 5,
      simulator: null,
    },
  ] as unknown as RqRunConfig["models"];
  return rqConfig(models, syntheticItems(11, RQ_ITEMS), { k: RQ_K, p: RQ_P });
}

/** The run's samples, made one at a time in plan order as the coordinator's cursor yields them. */
function* rqSamples(config: RqRunConfig, accuracy: number, seed: number): Generator<StoredSample> {
  const rng = defaultRng(seed);
  const u = () => rng.next32() / 2 ** 32;
  for (const unitId of reasoningQuality.plan(config)) {
    const [, i, call] = unitId.split(":");
    const item = config.items[Number(i)];
    const steps = SENTENCES.slice(0, 1 + Math.floor(u() * 4)).join(". ");
    const answer = u() < accuracy ? item.answer : `${item.answer}1`;
    const text = `${steps}. The answer is ${answer}.`;
    const output: RqOutput = {
      model: "reasoner",
      item: Number(i),
      call,
      ok: true,
      text,
      output_tokens: 20 + Math.floor(u() * 200),
      usage: { prompt_tokens: 50, completion_tokens: 40, total_tokens: 90 },
      error: null,
    };
    yield { unitId, status: "succeeded", output, error: null };
  }
}

/** The finish's work for one run: the aggregate, then the basis (a second pass over the samples). */
async function rqAggregate(accuracy: number, seed: number, out: string): Promise<string> {
  const config = benchRqConfig();
  const samples = { [Symbol.iterator]: () => rqSamples(config, accuracy, seed) };
  const result = await aggregateRq(config, samples);
  const basis = await rqComparer.basis({ config, result, samples });
  writeFileSync(out, JSON.stringify(basis));
  return `${reasoningQuality.plan(config).length} units, ${RQ_ITEMS} items, correctness ${result.models[0].raw_metrics.correctness}`;
}

const rqPublicConfig = {
  datasets: [{ synthetic: { seed: 11, num_reasoning: 0, num_adversarial: 0, num_robustness: RQ_ITEMS } }],
  preset: "paper-v8",
  custom_strategies: {},
  metrics: { consistency_runs: RQ_K, stability_runs: RQ_K, robustness_perturbations: RQ_P },
  matcher: "canonical",
  ls: { method: "lexical" },
  ss: { method: "jaccard" },
};

// ---- judge ------------------------------------------------------------------------------------------

function judgeConfig(): JudgeRunConfig {
  const rng = defaultRng(5);
  return {
    items: Array.from({ length: JUDGE_ITEMS }, (_, i) => ({
      id: `item-${i}`,
      query: `Question ${i}?`,
      context: {},
      expected: LABELS[rng.below(LABELS.length)],
    })),
    critics: Array.from({ length: CRITICS }, (_, c) => ({
      name: `critic-${c}`,
      model: "sim:critic",
    })) as unknown as JudgeRunConfig["critics"],
    labels: LABELS,
    voting: { strategy: "majority", kwargs: {} },
    contested_threshold: 0.6,
    seed: 0,
  };
}

/** Each critic copies the item's expected label with probability `honesty`, else draws any label; 5 % error. */
function* judgeSamples(config: JudgeRunConfig, honesty: number, seed: number): Generator<StoredSample> {
  const rng = defaultRng(seed);
  const u = () => rng.next32() / 2 ** 32;
  for (const [i, item] of config.items.entries()) {
    for (const [c, critic] of config.critics.entries()) {
      const error = u() < 0.05 ? "timeout" : null;
      const kind = u() < honesty ? item.expected! : LABELS[rng.below(LABELS.length)];
      const verdict = {
        kind,
        confidence: 0.8,
        reasoning: "Because the reasons say so.",
        critic_id: critic.name,
        raw_response: null,
        error,
        elapsed_s: 0.5,
      };
      const output = { item_id: item.id, critic: critic.name, verdict, usage: null } as unknown as JudgeOutput;
      yield { unitId: `${i}:${c}`, status: "succeeded", output, error: null };
    }
  }
}

async function judgeBasisFile(honesty: number, seed: number, out: string): Promise<string> {
  const config = judgeConfig();
  const result = aggregateJudge(config, { [Symbol.iterator]: () => judgeSamples(config, honesty, seed) });
  writeFileSync(out, JSON.stringify(await judgeComparer.basis({ config, result })));
  return `${JUDGE_ITEMS * CRITICS} units, batch alpha ${result.batch.alpha.alpha?.toFixed(4)}`;
}

const judgePublicConfig = () => ({ critics: judgeConfig().critics, labels: LABELS });

// ---- the comparison: what GET /v1/compare does with two kept bases ----------------------------------

/** The bases are read as the route reads them from R2, as text, within the measure. */
async function compareFiles(
  evaluator: "reasoning-quality" | "judge",
  baseFile: string,
  headFile: string,
): Promise<string> {
  const config = evaluator === "judge" ? judgePublicConfig() : rqPublicConfig;
  const comparer = (evaluator === "judge" ? judgeComparer : rqComparer) as unknown as {
    incomparable(b: ComparedRun, h: ComparedRun): unknown[];
    compare(b: ComparedRun, h: ComparedRun, o: object): Promise<{ metrics: { name: string; ci95: unknown }[] }>;
  };
  {
    const [baseText, headText] = [readFileSync(baseFile, "utf8"), readFileSync(headFile, "utf8")];
    const base: ComparedRun = { id: "base", config, basis: JSON.parse(baseText) };
    const head: ComparedRun = { id: "head", config, basis: JSON.parse(headText) };
    const errors = comparer.incomparable(base, head);
    if (errors.length) throw new Error(`incomparable: ${JSON.stringify(errors)}`);
    const result = await comparer.compare(base, head, { confidence: 0.95, minEffect: 0 });
    const answer = JSON.stringify(result);
    const withCi = result.metrics.filter((m) => m.ci95 !== null).length;
    return `${result.metrics.length} metrics (${withCi} with an interval), answer ${Math.round(answer.length / 1024)} KiB, bases ${Math.round((baseText.length + headText.length) / 1024)} KiB`;
  }
}

/** In a child: runs the work measured and prints the measure as the last line of stdout. */
async function measuredJson(work: () => Promise<string>): Promise<void> {
  console.log(JSON.stringify(await measured(work)));
}

function child(args: string[]): Measure {
  const out = execFileSync(
    process.execPath,
    ["--expose-gc", "--trace-gc", `--max-old-space-size=${OLD_SPACE_MB}`, import.meta.filename, ...args],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], maxBuffer: 64 * MB },
  );
  const lines = out.trim().split("\n");
  const measure = JSON.parse(lines.at(-1)!) as Measure;
  const [start, end] = [lines.indexOf(START), lines.indexOf(END)];
  const gcs = (from: number, to: number) =>
    lines
      .slice(from, to)
      .map((line) => GC_LINE.exec(line))
      .filter((m) => m !== null);
  // The baseline: in use after the collection just before the work; the peak: the most in use before any collection since, the final gc() included.
  const before = gcs(0, start).at(-1);
  const during = gcs(start, end + 2);
  if (!before || !during.length) throw new Error("compare-scale: no --trace-gc lines around the measure");
  measure.baseline_mb = Number(before[3]);
  measure.peak_heap_mb = Math.max(...during.map((m) => Number(m[1])));
  return measure;
}

export type CompareScale = {
  rqAggregate: Measure & { units: string };
  judgeAggregate: Measure;
  rqCompare: Measure;
  judgeCompare: Measure;
};

export function benchCompareScale(): CompareScale {
  const dir = mkdtempSync(join(tmpdir(), "assay-compare-"));
  try {
    const f = (name: string) => join(dir, name);
    const aggregate = child(["rq-aggregate", "0.7", "1", f("rq-base.json")]);
    child(["rq-aggregate", "0.65", "2", f("rq-head.json")]);
    const judgeAggregate = child(["judge-basis", "0.7", "3", f("judge-base.json")]);
    child(["judge-basis", "0.6", "4", f("judge-head.json")]);
    return {
      rqAggregate: { ...aggregate, units: aggregate.detail },
      judgeAggregate,
      rqCompare: child(["compare", "reasoning-quality", f("rq-base.json"), f("rq-head.json")]),
      judgeCompare: child(["compare", "judge", f("judge-base.json"), f("judge-head.json")]),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function printCompareScale(r: CompareScale): void {
  console.log(
    `comparisons at scale, plain Node, each in a child with --max-old-space-size=${OLD_SPACE_MB} (targets: compare < 64 MB peak heap, < 5 s CPU)`,
  );
  console.log("| work | peak heap MB | of which Node's baseline MB | CPU s | what |");
  console.log("|---|---:|---:|---:|---|");
  const row = (name: string, m: Measure) =>
    console.log(
      `| ${name} | ${m.peak_heap_mb.toFixed(1)} | ${m.baseline_mb.toFixed(1)} | ${m.cpu_s.toFixed(2)} | ${m.detail} |`,
    );
  row("reasoning-quality: aggregate + basis of one run", r.rqAggregate);
  row(`reasoning-quality: compare two ${r.rqAggregate.units.split(",")[0]} runs`, r.rqCompare);
  row(`judge: aggregate + basis of one ${JUDGE_ITEMS}-item × ${CRITICS}-critic run`, r.judgeAggregate);
  row(`judge: compare two ${JUDGE_ITEMS}-item × ${CRITICS}-critic runs`, r.judgeCompare);
}

const [what, ...rest] = process.argv.slice(2);
if (import.meta.filename === process.argv[1] && what) {
  if (what === "rq-aggregate") await measuredJson(() => rqAggregate(Number(rest[0]), Number(rest[1]), rest[2]));
  else if (what === "judge-basis") await measuredJson(() => judgeBasisFile(Number(rest[0]), Number(rest[1]), rest[2]));
  else if (what === "compare")
    await measuredJson(() => compareFiles(rest[0] as "reasoning-quality" | "judge", rest[1], rest[2]));
  else throw new Error(`compare-scale: unknown case ${what}`);
} else if (import.meta.filename === process.argv[1]) {
  printCompareScale(benchCompareScale());
}
