// Issue 23: a comparison must fit in one Worker request whatever the runs' size, so what it reads (each
// run's basis, kept at aggregation) grows with the items, never with the samples, and a comparer needs
// nothing but the two bases: no samples, no result.
import { describe, expect, it } from "vitest";
import {
  aggregateRq,
  reasoningQuality,
  type RqRunConfig,
  type RqOutput,
} from "../../../src/evaluators/reasoning-quality/index.ts";
import { rqComparer } from "../../../src/evaluators/reasoning-quality/compare.ts";
import type { ComparedRun } from "../../../src/runs/plugin/compare.ts";
import type { StoredSample } from "../../../src/runs/plugin/types.ts";
import { rqConfig, syntheticItems } from "../../support/reasoning-quality-config.ts";

const model = {
  name: "reasoner",
  model: "sim:reasoner",
  base_url: "http://e",
  temperature: 0.7,
  max_tokens: 256,
  timeout_s: 5,
  simulator: null,
};

function config(items: number, K: number, P: number): RqRunConfig {
  return rqConfig([model] as unknown as RqRunConfig["models"], syntheticItems(3, items), { k: K, p: P });
}

/** Every unit answers; items with an even index right, others wrong, with a few steps of reasoning. */
function samples(cfg: RqRunConfig): StoredSample[] {
  return reasoningQuality.plan(cfg).map((unitId) => {
    const [, i, call] = unitId.split(":");
    const item = cfg.items[Number(i)];
    const text = `I read item ${i}. It is not the case that ${call} changes it. The answer is ${Number(i) % 2 ? "nothing" : item.answer}.`;
    const output: RqOutput = {
      model: "reasoner",
      item: Number(i),
      call,
      ok: true,
      text,
      output_tokens: 20 + (Number(i) % 7),
      usage: null,
      error: null,
    };
    return { unitId, status: "succeeded", output, error: null };
  });
}

async function basisOf(cfg: RqRunConfig): Promise<{ samples: number; bytes: number; basis: unknown }> {
  const s = samples(cfg);
  const result = await aggregateRq(cfg, s);
  const basis = await rqComparer.basis({ config: cfg, result, samples: s });
  return { samples: s.length, bytes: JSON.stringify(basis).length, basis };
}

describe("a comparison's basis", () => {
  it("grows with the items, not with the samples per item", async () => {
    // The bytes one more item adds (the result's few figures are a constant part), at 4 and at 9 units per item.
    const perItem = async (K: number, P: number) => {
      const [small, large] = [await basisOf(config(40, K, P)), await basisOf(config(80, K, P))];
      return { bytes: (large.bytes - small.bytes) / 40, samples: (large.samples - small.samples) / 40 };
    };
    const [few, many] = [await perItem(2, 1), await perItem(5, 3)];
    expect(many.samples / few.samples).toBeGreaterThan(2);
    // The same columns per item: only their figures' digits differ.
    expect(few.bytes).toBeGreaterThan(0);
    expect(many.bytes / few.bytes).toBeLessThan(1.25);
  });

  it("is all a comparer reads: two runs given as id, public config and basis compare", async () => {
    const cfg = config(30, 2, 1);
    const { basis } = await basisOf(cfg);
    const publicConfig = {
      datasets: [{ synthetic: { seed: 3, num_reasoning: 0, num_adversarial: 0, num_robustness: 30 } }],
      metrics: cfg.metrics,
      matcher: cfg.matcher,
      ls: cfg.ls,
      ss: cfg.ss,
      preset: cfg.preset,
      custom_strategies: {},
    };
    // Frozen, with nothing else on them: a comparer that reached for samples or a result would throw here.
    const run = (id: string) => Object.freeze({ id, config: publicConfig, basis }) as ComparedRun<never, never>;
    expect(rqComparer.incomparable(run("a"), run("b"))).toEqual([]);
    const c = await rqComparer.compare(run("a"), run("b"), { confidence: 0.95, minEffect: 0 });
    expect(c.paired).toBe(true);
    expect(c.metrics.find((m) => m.name === "reasoner.correctness")).toMatchObject({
      delta: 0,
      method: "newcombe-paired",
    });
    expect(c.details).toMatchObject({ items: 30 });
  });
});
