// Time of the reasoning-quality metrics and aggregation from stored records at the paper's scale
// (spec reasoning-quality.md §1.5, §8): 975 items × K = 3 runs × P = 3 perturbations × 7 models, lexical
// LS and Jaccard SS, Q under every strategy of the default preset, per dataset over 4 datasets.
// Target ≤ 1 s in plain Node. Run directly: `npx node bench/reasoning-quality-metrics.ts`.
import { evaluateRecords, type ItemRecord } from "../src/engines/reasoning-quality/index.ts";
import { defaultRng } from "../src/engines/stats/index.ts";

const ITEMS = 975;
const MODELS = 7;
const K = 3;
const P = 3;
const DATASETS = ["gsm8k", "mmlu", "strategyqa", "synthetic"];
const SENTENCES = [
  "First I read the question",
  "The numbers are not all relevant",
  "It is not the case that the total changes",
  "So the result follows",
  "I check the answer again",
];

/** Deterministic stored records, shaped like the pipeline's (a few failed generations included). */
function records(model: number): ItemRecord[] {
  const rng = defaultRng(100 + model);
  const u = () => rng.next32() / 2 ** 32;
  const answer = (gold: number) =>
    `${SENTENCES.slice(0, 1 + Math.floor(u() * 4)).join(". ")}. The answer is ${u() < 0.7 ? gold : gold + 1}`;
  return Array.from({ length: ITEMS }, (_, i) => {
    const gold = 10 + (i % 90);
    const failed = u() < 0.01;
    const prediction = failed ? "" : answer(gold);
    const steps = prediction
      .split(".")
      .map((s) => s.trim())
      .filter(Boolean);
    const kAnswers = failed ? [""] : [prediction, answer(gold), answer(gold)];
    return {
      prediction,
      gold_answer: String(gold),
      token_count: failed ? 0 : 20 + Math.floor(u() * 200),
      reasoning_trace: steps.length ? steps : [""],
      k_answers: kAnswers,
      k_traces: kAnswers.map((a) =>
        a
          .split(".")
          .map((s) => s.trim())
          .filter(Boolean)
          .join(" "),
      ),
      perturbed_preds: failed ? ["", "", ""] : Array.from({ length: P }, () => answer(gold)),
      dataset: DATASETS[i % DATASETS.length],
      question_id: String(i),
      generation_failed: failed,
      has_perturbations: true,
    };
  });
}

export async function benchRqMetrics(): Promise<{
  items: number;
  models: number;
  K: number;
  P: number;
  runs: number;
  median_ms: number;
  max_ms: number;
}> {
  const inputs = Array.from({ length: MODELS }, (_, m) => records(m));
  const metrics = { consistency_runs: K, stability_runs: K, robustness_perturbations: P };
  const once = async () => {
    const t0 = performance.now();
    for (const recs of inputs) {
      const r = await evaluateRecords(recs, { metrics });
      if (!(r.aggregated.balanced >= 0)) throw new Error("benchRqMetrics: no balanced Q");
    }
    return performance.now() - t0;
  };
  await once(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < 7; i++) times.push(await once());
  times.sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    items: ITEMS,
    models: MODELS,
    K,
    P,
    runs: times.length,
    median_ms: round(times[3]),
    max_ms: round(times[times.length - 1]),
  };
}

if (import.meta.main) console.log(JSON.stringify(await benchRqMetrics()));
