// Issue 23: a coordinator has 128 MB, shared with the other objects of its isolate, and a run may have
// 60,000 samples: the aggregate and the comparison basis built at the finish may hold per-item scores,
// never the samples. Measured as the live heap (after a full collection, every 1,000 samples read) over
// the same items at 3 and at 6 units per item: the 3,000 samples more must not show in the live heap.
import v8 from "node:v8";
import vm from "node:vm";
import { describe, expect, it } from "vitest";
import {
  aggregateRq,
  reasoningQuality,
  type RqRunConfig,
  type RqOutput,
} from "../../../src/evaluators/reasoning-quality/index.ts";
import { rqComparer } from "../../../src/evaluators/reasoning-quality/compare.ts";
import type { StoredSample } from "../../../src/runs/plugin/types.ts";
import { rqConfig, syntheticItems } from "../../support/reasoning-quality-config.ts";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

const ITEMS = 1000;
const model = {
  name: "reasoner",
  model: "sim:reasoner",
  base_url: "http://e",
  temperature: 0.7,
  max_tokens: 256,
  timeout_s: 5,
  simulator: null,
};

function config(P: number): RqRunConfig {
  return rqConfig([model] as unknown as RqRunConfig["models"], syntheticItems(9, ITEMS), { k: 3, p: P });
}

/** The most live heap above `baseline` seen while the finish's work reads the samples (made one at a time, each ~2 KB of text). */
async function liveHeapOfFinish(cfg: RqRunConfig): Promise<{ samples: number; growth: number }> {
  const units = reasoningQuality.plan(cfg);
  let highWater = 0;
  let read = 0;
  function* samples(): Generator<StoredSample> {
    for (const unitId of units) {
      if (++read % 1000 === 0) {
        gc();
        highWater = Math.max(highWater, process.memoryUsage().heapUsed);
      }
      const [, i, call] = unitId.split(":");
      const text = `${"I think about it step by step. ".repeat(60)}The answer is ${cfg.items[Number(i)].answer}.`;
      const output: RqOutput = {
        model: "reasoner",
        item: Number(i),
        call,
        ok: true,
        text,
        output_tokens: 300,
        usage: null,
        error: null,
      };
      yield { unitId, status: "succeeded", output, error: null };
    }
  }
  gc();
  const baseline = process.memoryUsage().heapUsed;
  const iterable = { [Symbol.iterator]: samples };
  const result = await aggregateRq(cfg, iterable);
  await rqComparer.basis({ config: cfg, result, samples: iterable });
  return { samples: units.length, growth: highWater - baseline };
}

describe("the finish's aggregate and basis", () => {
  it("hold per-item scores, not samples: 3,000 samples more, no more live heap", { timeout: 120_000 }, async () => {
    const few = await liveHeapOfFinish(config(0));
    const many = await liveHeapOfFinish(config(3));
    expect(many.samples / few.samples).toBeGreaterThanOrEqual(2);
    // Had the samples (or their outputs) been held, the 3,000 more would show: ~2 KB of text each, 6 MB.
    expect(many.growth - few.growth).toBeLessThan(2 ** 20);
  });
});
