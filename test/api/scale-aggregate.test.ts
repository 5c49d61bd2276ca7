// Issue 19: the coordinator aggregates from a cursor over its outbox, and reasoning-quality reduces each
// item to its scores as soon as its calls are read (src/evaluators/reasoning-quality/aggregate-items.ts).
// Its `evaluateKept` is a twin of the engine's `evaluateRecords` over full records: they must agree to the
// last bit under every LS and SS method and fallback, with failed, missing and multi-dataset items.
import { describe, expect, it } from "vitest";
import {
  buildRecord,
  evaluateRecords,
  generateSynthetic,
  mergeStrategies,
  resolveWeightTable,
  splitSteps,
  stepPairs,
  storedTrace,
  type CallOutcome,
  type LsBackend,
  type NliLabel,
  type SsBackend,
} from "../../src/engines/reasoning-quality/index.ts";
import {
  evaluateKept,
  keepItem,
  keptModel,
  type KeptItem,
} from "../../src/evaluators/reasoning-quality/aggregate-items.ts";
import {
  aggregateRq,
  reasoningQuality,
  type RqRunConfig,
  type RqOutput,
} from "../../src/evaluators/reasoning-quality/index.ts";
import { callKeys, plansOf } from "../../src/evaluators/reasoning-quality/units.ts";
import type { StoredSample } from "../../src/runs/plugin/types.ts";

const items = generateSynthetic({ seed: 5, numReasoning: 10, numAdversarial: 3, numRobustness: 6 }).map((it, n) => ({
  ...it,
  id: `${n}:${it.id}`,
  dataset: ["alpha", "beta", undefined][n % 3],
}));

function config(over: Partial<RqRunConfig> = {}): RqRunConfig {
  return {
    models: [
      { name: "A", model: "A", base_url: "http://e", temperature: 0.7, max_tokens: 256, timeout_s: 5, simulator: null },
    ],
    items: items as RqRunConfig["items"],
    metrics: { consistency_runs: 3, stability_runs: 3, robustness_perturbations: 2 },
    matcher: "canonical",
    ls: { method: "lexical" },
    ss: { method: "jaccard" },
    preset: "paper-v8",
    custom_strategies: {},
    seed: 0,
    ...over,
  };
}

// A small deterministic generator, so every case sees varied answers, traces, token counts and failures.
function lcg(seed: number) {
  return () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

/** Per call key of item i: an output (ok or failed) or none (a unit that never ran). */
function outputsOf(cfg: RqRunConfig, i: number, rnd: () => number): Map<string, RqOutput | null> {
  const out = new Map<string, RqOutput | null>();
  for (const { key } of callKeys(plansOf(cfg)[i])) {
    if (rnd() < 0.05) continue;
    const r = rnd();
    const answer = r < 0.6 ? items[i].answer : r < 0.8 ? "42" : "no idea";
    const text = `Step one of ${i}. ${rnd() < 0.5 ? `Step one of ${i} is not wrong.` : "Then more."} ${"word ".repeat(Math.floor(rnd() * 15))}The answer is ${answer}.`;
    const pairs = stepPairs(storedTrace(splitSteps(text, "legacy_dot")));
    const base = {
      model: "A",
      item: i,
      call: key,
      usage: null,
      output_tokens: rnd() < 0.3 ? null : Math.floor(rnd() * 90),
    };
    if (rnd() < 0.15) out.set(key, { ...base, ok: false, text: null, output_tokens: null, error: "boom" });
    else
      out.set(key, {
        ...base,
        ok: true,
        text,
        error: null,
        ...(key === "p" && cfg.ls.method === "model"
          ? {
              nli: {
                labels: pairs.map(
                  (_, k) =>
                    (k === 0 && i % 5 === 0 ? null : rnd() < 0.2 ? "contradiction" : "entailment") as NliLabel | null,
                ),
                errors: [],
                calls: 1,
                failed_calls: 0,
                usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
              },
            }
          : {}),
      });
  }
  return out;
}

const outcome = (o: RqOutput | null | undefined): CallOutcome | undefined =>
  !o
    ? undefined
    : o.ok
      ? { ok: true, text: o.text ?? "", output_tokens: o.output_tokens }
      : { ok: false, error: o.error ?? "failed" };

const embed = (failAfter: number) => {
  let calls = 0;
  return async (texts: string[]) => {
    if (++calls > failAfter) throw new Error("503 embeddings down");
    return texts.map((t) => [(t.length % 7) + 1, (t.length % 5) + 1, 1]);
  };
};
const lsModel = (fallback: "lexical" | "none" | "neutral") =>
  ({
    method: "model",
    model: "checker",
    base_url: "http://e",
    batch_size: 8,
    timeout_s: 5,
    fallback,
  }) as RqRunConfig["ls"];

describe("reasoning-quality's kept items", () => {
  it.each<[string, Partial<RqRunConfig>, (labels: (NliLabel | null)[][]) => LsBackend, () => SsBackend]>([
    ["lexical LS, Jaccard SS", {}, () => ({ method: "lexical" }), () => ({ method: "jaccard" })],
    ["no LS, no SS, legacy7", { matcher: "legacy7" }, () => ({ method: "none" }), () => ({ method: "none" })],
    [
      "recorded labels, lexical fallback",
      { ls: lsModel("lexical") },
      (labels) => ({ method: "model", labels, fallback: "lexical", name: "checker" }),
      () => ({ method: "jaccard" }),
    ],
    [
      "recorded labels, no fallback",
      { ls: lsModel("neutral") },
      (labels) => ({ method: "model", labels, fallback: "neutral", name: "checker" }),
      () => ({ method: "jaccard" }),
    ],
    [
      "embeddings",
      {},
      () => ({ method: "lexical" }),
      () => ({ method: "embeddings", embed: embed(1e9), batchSize: 8, fallback: "jaccard", name: "emb" }),
    ],
    [
      "embeddings failing midway",
      {},
      () => ({ method: "lexical" }),
      () => ({ method: "embeddings", embed: embed(3), batchSize: 8, fallback: "none", name: "emb" }),
    ],
  ])("agree with evaluateRecords: %s", async (_, over, ls, ss) => {
    const ssMethod = ss().method;
    const cfg = config({
      ...over,
      ...(ssMethod === "embeddings"
        ? {
            ss: {
              method: "embeddings",
              model: "emb",
              base_url: "http://e",
              batch_size: 8,
              timeout_s: 5,
              dimensions: null,
              baseline: null,
              fallback: "jaccard",
            },
          }
        : {}),
    } as Partial<RqRunConfig>);
    const rnd = lcg(11);
    const kept = keptModel(cfg);
    const records = [];
    const labels: (NliLabel | null)[][] = [];
    for (let i = 0; i < items.length; i++) {
      const outputs = outputsOf(cfg, i, rnd);
      await keepItem(cfg, kept, i, outputs);
      const plan = plansOf(cfg)[i];
      const primary = outcome(outputs.get("p")) ?? { ok: false as const, error: "not run" };
      records.push(
        buildRecord(
          items[i],
          plan,
          {
            primary,
            extras: plan.extras.map((c) => outcome(outputs.get(`r${c.run}`))),
            perturbations: plan.perturbations.map((c) => (c ? outcome(outputs.get(`x${c.slot}`)) : null)),
          },
          { metrics: cfg.metrics },
        ),
      );
      labels.push((outputs.get("p")?.nli?.labels ?? null) as (NliLabel | null)[]);
    }
    const table = mergeStrategies(resolveWeightTable(cfg.preset), cfg.custom_strategies);
    const want = await evaluateRecords(records, {
      metrics: cfg.metrics,
      matcher: cfg.matcher,
      ls: ls(labels),
      ss: ss(),
      weights: table,
    });
    const got = await evaluateKept(cfg, kept.items as KeptItem[], ls(labels), ss(), table);
    const shown = (r: typeof want) =>
      JSON.stringify([r.raw_metrics, r.aggregated, r.per_dataset, r.metadata, r.extensions, r.raw, r.per_item]);
    expect(shown(got)).toBe(shown(want));
    // The kept items hold no response text, except the traces SS embeddings batch.
    for (const item of kept.items) expect(item!.traces === null).toBe(ssMethod !== "embeddings");
  });

  it("aggregateRq reads its samples once, from any iterable, in any order", async () => {
    const cfg = config();
    const rnd = lcg(3);
    const samples: StoredSample[] = [];
    for (let i = 0; i < items.length; i++)
      for (const [key, o] of outputsOf(cfg, i, rnd))
        samples.push({ unitId: `0:${i}:${key}`, status: o?.ok ? "succeeded" : "failed", output: o, error: null });
    let passes = 0;
    const once: Iterable<StoredSample> = {
      *[Symbol.iterator]() {
        passes++;
        yield* [...samples].reverse();
      },
    };
    const got = await reasoningQuality.aggregate(cfg, once, undefined);
    expect(passes).toBe(1);
    expect(JSON.stringify(got)).toBe(JSON.stringify(await aggregateRq(cfg, samples)));
  });
});
